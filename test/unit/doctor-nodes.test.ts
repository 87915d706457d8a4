/** `winkube doctor`'s node checks on object fixtures: each fires on its fault and stays quiet without it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowsNodeNotReady } from '../../src/doctor/checks/windows-node-not-ready.js';
import { kubeletSkew, kubeletVersionSkew } from '../../src/doctor/checks/kubelet-version-skew.js';
import { windowsNodeUntainted } from '../../src/doctor/checks/windows-node-untainted.js';
import { pauseImagesOf, pauseImageWithoutWincat } from '../../src/doctor/checks/pause-image-without-wincat.js';
import { node, snapshot } from '../helpers/doctor-cluster.js';

const taints = [{ key: 'os', value: 'windows', effect: 'NoSchedule' as const }];

test('windows-node-not-ready: a Windows node whose Ready condition is Unknown, with its reason and message', () => {
  const c = snapshot({ nodes: [node('lin-1', 'linux', { ready: 'False' }), node('win-1', 'windows', { ready: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] })] });
  const [f, ...rest] = windowsNodeNotReady.run(c);
  assert.equal(rest.length, 0, 'a Linux node is not this check\'s business');
  assert.deepEqual([f?.severity, f?.object.name, f?.message, f?.evidence], ['error', 'win-1', 'Windows node win-1 is not Ready', [
    'status.conditions[Ready]: Unknown (NodeStatusUnknown): Kubelet stopped posting node status.',
    'spec.taints: node.kubernetes.io/unreachable:NoSchedule',
  ]]);
  assert.deepEqual(windowsNodeNotReady.run(snapshot()), []);
});

test('kubelet-version-skew: newer than the server, or more than three minors older; provider suffixes parse', () => {
  assert.equal(kubeletSkew('v1.32.0', 'v1.29.8-eks-a737599'), 3);
  assert.equal(kubeletSkew('v1.32.0', 'v1.33.1'), -1);
  assert.equal(kubeletSkew('v1.32.0', 'nonsense'), undefined);
  const c = snapshot({ nodes: [node('old', 'windows', { kubelet: 'v1.28.15' }), node('new', 'windows', { kubelet: 'v1.33.0' }), node('ok', 'windows', { kubelet: 'v1.29.0' })] });
  assert.deepEqual(kubeletVersionSkew.run(c).map((f) => f.message), [
    'the kubelet on old (v1.28.15) is 4 minor versions older than kube-apiserver (v1.32.0)',
    'the kubelet on new (v1.33.0) is newer than kube-apiserver (v1.32.0)',
  ]);
  assert.deepEqual(kubeletVersionSkew.run({ ...c, serverVersion: undefined }), [], 'no /version: no judgement');
});

test('windows-node-untainted: only on a mixed cluster, and condition taints do not count', () => {
  const c = snapshot({ nodes: [node('lin-1', 'linux'), node('win-a', 'windows', { taints }), node('win-b', 'windows', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] })] });
  const found = windowsNodeUntainted.run(c);
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.evidence]), [['warning', 'win-b', ['spec.taints: node.kubernetes.io/not-ready:NoSchedule']]]);
  assert.deepEqual(windowsNodeUntainted.run(snapshot({ nodes: [node('win-b', 'windows')] })), [], 'a Windows-only cluster has no Linux pods to keep off');
});

test('pause-image-without-wincat: a pause image of one\'s own is reported, the Kubernetes and Microsoft ones are not', () => {
  assert.deepEqual(pauseImagesOf([{ names: ['example.com/pause@sha256:00', 'example.com/pause:1.0'] }, { names: ['nginx:1.27'] }, { names: ['corp/pause-win:2'] }]),
    ['example.com/pause:1.0', 'corp/pause-win:2']);
  const c = snapshot({ nodes: [node('lin-1', 'linux', { images: ['example.com/pause:1.0'] }),
    node('win-a', 'windows', { taints, images: ['registry.k8s.io/pause:3.10', 'mcr.microsoft.com/oss/kubernetes/pause:3.6'] }),
    node('win-b', 'windows', { taints, images: ['registry.k8s.io/pause:3.10', 'example.com/pause:1.0'] })] });
  const found = pauseImageWithoutWincat.run(c);
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.message, f.evidence]), [['warning', 'win-b',
    'win-b holds pause image example.com/pause:1.0, not one known to carry wincat: as the sandbox image, kubectl port-forward to the node\'s pods fails with "unable to do port forwarding: wincat not found"',
    ['status.images: example.com/pause:1.0']]]);
});

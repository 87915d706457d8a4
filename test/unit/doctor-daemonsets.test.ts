/** `winkube doctor`'s DaemonSet checks on object fixtures: missing, unscheduled and not-ready kube-proxy/flannel on Windows nodes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowsNetworkDaemonSetMissing } from '../../src/doctor/checks/windows-network-daemonset-missing.js';
import { windowsNetworkDaemonSetUnhealthy } from '../../src/doctor/checks/windows-network-daemonset-unhealthy.js';
import { componentOf } from '../../src/doctor/network-daemonsets.js';
import { daemonSet, node, pod, snapshot } from '../helpers/doctor-cluster.js';

const KUBE_PROXY = daemonSet('kube-proxy', 'linux', 'registry.k8s.io/kube-proxy:v1.32.0');
const KUBE_PROXY_WIN = daemonSet('kube-proxy-windows', 'windows', 'sigwindowstools/kube-proxy:v1.32.0-flannel-hostprocess', { desired: 2, ready: 1 });
const FLANNEL = daemonSet('kube-flannel-ds', 'linux', 'docker.io/flannel/flannel:v0.26.1', {}, 'kube-flannel');

test('network components are recognised by name, k8s-app label or image', () => {
  assert.equal(componentOf(KUBE_PROXY_WIN), 'kube-proxy');
  assert.equal(componentOf(daemonSet('node-agent', 'linux', 'quay.io/calico/node:v3.29.1')), undefined);
  assert.equal(componentOf(daemonSet('calico-node', 'linux', 'quay.io/calico/node:v3.29.1')), 'calico');
  assert.equal(componentOf(daemonSet('cni', 'linux', 'docker.io/flannel/flannel:v0.26.1')), 'flannel');
});

test('windows-network-daemonset-missing: a Linux-only kube-proxy or flannel DaemonSet on a cluster with Windows nodes', () => {
  const found = windowsNetworkDaemonSetMissing.run(snapshot({ daemonSets: [KUBE_PROXY, FLANNEL] }));
  assert.deepEqual(found.map((f) => [f.severity, `${f.object.namespace ?? ''}/${f.object.name}`, f.message, f.evidence]), [
    ['warning', 'kube-system/kube-proxy', 'kube-proxy runs as a DaemonSet on the Linux nodes only: no kube-proxy DaemonSet covers the Windows nodes',
      ['DaemonSet kube-system/kube-proxy spec.template.spec.nodeSelector: kubernetes.io/os=linux', 'no kube-proxy DaemonSet selects kubernetes.io/os=windows']],
    ['warning', 'kube-flannel/kube-flannel-ds', 'flannel runs as a DaemonSet on the Linux nodes only: no flannel DaemonSet covers the Windows nodes',
      ['DaemonSet kube-flannel/kube-flannel-ds spec.template.spec.nodeSelector: kubernetes.io/os=linux', 'no flannel DaemonSet selects kubernetes.io/os=windows']],
  ]);
  assert.deepEqual(windowsNetworkDaemonSetMissing.run(snapshot({ daemonSets: [KUBE_PROXY, KUBE_PROXY_WIN] })), [], 'a Windows DaemonSet beside it');
  assert.deepEqual(windowsNetworkDaemonSetMissing.run(snapshot({ daemonSets: [daemonSet('kube-proxy', undefined, 'registry.k8s.io/kube-proxy:v1.32.0')] })), [], 'an unpinned DaemonSet covers every node');
  assert.deepEqual(windowsNetworkDaemonSetMissing.run(snapshot({ daemonSets: [KUBE_PROXY], nodes: [node('lin-1', 'linux')] })), [], 'no Windows nodes');
  assert.deepEqual(windowsNetworkDaemonSetMissing.run(snapshot({ daemonSets: [] })), [], 'no DaemonSet at all: installed as services, as managed clusters do');
});

test('windows-network-daemonset-unhealthy: pods not ready on Windows nodes with their state, and a DaemonSet scheduled nowhere', () => {
  const owner = { kind: 'DaemonSet', name: 'kube-proxy-windows', uid: 'uid-kube-proxy-windows' };
  const c = snapshot({
    daemonSets: [KUBE_PROXY, KUBE_PROXY_WIN, daemonSet('kube-flannel-ds-windows-amd64', 'windows', 'sigwindowstools/flannel:v0.26.1-hostprocess', { desired: 0, ready: 0 })],
    pods: [
      pod('kube-proxy-windows-a', 'win2019-1', {}, { owner, namespace: 'kube-system', waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=kube-proxy pod=kube-proxy-windows-a_kube-system(uid)' } }),
      pod('kube-proxy-windows-b', 'win2022-1', {}, { owner, namespace: 'kube-system' }),
    ],
  });
  const found = windowsNetworkDaemonSetUnhealthy.run(c);
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.message, f.evidence]), [
    ['error', 'kube-proxy-windows', 'kube-proxy is not ready on Windows node win2019-1', ['status: desiredNumberScheduled 2, numberReady 1',
      'pod kube-proxy-windows-a on win2019-1: app CrashLoopBackOff: back-off 40s restarting failed container=kube-proxy pod=kube-proxy-windows-a_kube-system(uid)']],
    ['error', 'kube-flannel-ds-windows-amd64', 'flannel DaemonSet is scheduled on no Windows node', ['status.desiredNumberScheduled: 0', 'spec.template.spec.nodeSelector: {"kubernetes.io/os":"windows"}']],
  ]);
});

/** `winkube doctor`'s pod checks on object fixtures: each fires on its fault and stays quiet without it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podSandboxFailed } from '../../src/doctor/checks/pod-sandbox-failed.js';
import { windowsImageBuildMismatch } from '../../src/doctor/checks/windows-image-build-mismatch.js';
import { imageOSMismatch } from '../../src/doctor/checks/image-os-mismatch.js';
import { podWithoutOSSelector } from '../../src/doctor/checks/pod-without-os-selector.js';
import { windowsDNSPolicy } from '../../src/doctor/checks/windows-dns-policy.js';
import { windowsNodePortFromNode } from '../../src/doctor/checks/windows-nodeport-from-node.js';
import { windowsPodsICMP } from '../../src/doctor/checks/windows-pods-icmp.js';
import { node, pod, podEvent, service, snapshot } from '../helpers/doctor-cluster.js';

const SANDBOX_ERR = 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem abc: The container operating system does not match the host operating system. (0xc0370101): unknown';
const WIN = { nodeSelector: { 'kubernetes.io/os': 'windows' } };

test('pod-sandbox-failed: the newest FailedCreatePodSandBox event of a pod whose containers never started on a Windows node', () => {
  const stuck = pod('stuck', 'win2022-1', WIN, { waiting: { reason: 'ContainerCreating' } });
  const running = pod('running', 'win2022-1', WIN);
  const onLinux = pod('lin', 'lin-1', { containers: [{ name: 'c', image: 'nginx:1.27' }] }, { waiting: { reason: 'ContainerCreating' } });
  const c = snapshot({
    pods: [stuck, running, onLinux],
    events: [podEvent(stuck, 'FailedCreatePodSandBox', 'older', '2025-01-01T00:00:00Z'), podEvent(stuck, 'FailedCreatePodSandBox', SANDBOX_ERR, '2025-01-01T00:01:00Z', 4),
      podEvent(running, 'FailedCreatePodSandBox', SANDBOX_ERR), podEvent(onLinux, 'FailedCreatePodSandBox', SANDBOX_ERR)],
  });
  const found = podSandboxFailed.run(c);
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.message, f.evidence]), [['error', 'stuck',
    'pod is stuck in ContainerCreating on Windows node win2022-1: the pod sandbox cannot be created', [`event FailedCreatePodSandBox (x4): ${SANDBOX_ERR}`]]]);
  assert.equal(found[0]?.fix, "set containerd's sandbox_image (and the kubelet's --pod-infra-container-image) on win2022-1 to a pause image with a Windows build 20348 variant, such as registry.k8s.io/pause:3.10, and restart containerd");
});

test('windows-image-build-mismatch: a 2022 image on a 2019 node; multi-build images, unknown images and HostProcess containers pass', () => {
  const c = snapshot({
    pods: [
      pod('bad', 'win2019-1', { ...WIN, containers: [{ name: 'web', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }] },
        { waiting: { reason: 'CreateContainerError', message: 'hcs failed' } }),
      pod('good', 'win2019-1', { ...WIN, containers: [{ name: 'web', image: 'mcr.microsoft.com/windows/servercore:ltsc2019' }] }),
      pod('multi', 'win2022-1', { ...WIN, containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] }),
      pod('unknown', 'win2019-1', { ...WIN, containers: [{ name: 'web', image: 'corp.example/app:7' }] }),
      pod('hpc', 'win2019-1', { ...WIN, hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } },
        containers: [{ name: 'agent', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }] }),
    ],
  });
  const found = windowsImageBuildMismatch.run(c);
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.message, f.evidence]), [['error', 'bad',
    'image mcr.microsoft.com/windows/servercore:ltsc2022 was built for Windows build 20348 and cannot run on win2019-1 (build 17763) under process isolation', [
      'spec.containers[0].image: mcr.microsoft.com/windows/servercore:ltsc2022 (Windows build 20348)',
      'node win2019-1 label node.kubernetes.io/windows-build: 10.0.17763',
      'status.containerStatuses[web].state.waiting: CreateContainerError: hcs failed',
    ]]]);
});

test('image-os-mismatch: a Linux image on a Windows node and a Windows image on a Linux node; unknown images are not judged', () => {
  const c = snapshot({
    pods: [
      pod('linux-on-win', 'win2019-1', { containers: [{ name: 'sh', image: 'busybox:1.36' }] }, { waiting: { reason: 'ErrImagePull', message: 'no match for platform in manifest: not found' } }),
      pod('win-on-linux', 'lin-1', { containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }] }),
      pod('unknown-on-win', 'win2019-1', { containers: [{ name: 'app', image: 'corp.example/app:7' }] }),
      pod('fine', 'lin-1', { containers: [{ name: 'app', image: 'nginx:1.27' }] }),
    ],
  });
  assert.deepEqual(imageOSMismatch.run(c).map((f) => [f.object.name, f.message, f.evidence]), [
    ['linux-on-win', 'Linux image busybox:1.36 on Windows node win2019-1', ['spec.containers[0].image: busybox:1.36 (Linux only)', 'spec.nodeName: win2019-1 (kubernetes.io/os: windows)',
      'status.containerStatuses[sh].state.waiting: ErrImagePull: no match for platform in manifest: not found']],
    ['win-on-linux', 'Windows image mcr.microsoft.com/windows/nanoserver:ltsc2022 on Linux node lin-1', ['spec.containers[0].image: mcr.microsoft.com/windows/nanoserver:ltsc2022 (Windows only)', 'spec.nodeName: lin-1 (kubernetes.io/os: linux)']],
  ]);
});

test('pod-without-os-selector: unpinned pods on a mixed cluster; DaemonSet pods, pinned pods, RuntimeClass pods and single-OS clusters pass', () => {
  const pods = [
    pod('loose', 'win2019-1', { containers: [{ name: 'sh', image: 'busybox:1.36' }] }, { owner: { kind: 'ReplicaSet', name: 'loose-7d9', uid: 'rs' } }),
    pod('pinned', 'win2019-1', WIN),
    pod('affinity', 'lin-1', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } } } }),
    pod('rc', 'win2019-1', { runtimeClassName: 'windows-2019' }),
    pod('ds', 'win2019-1', {}, { owner: { kind: 'DaemonSet', name: 'agent', uid: 'ds' } }),
    pod('done', 'lin-1', {}, { phase: 'Succeeded' }),
  ];
  const found = podWithoutOSSelector.run(snapshot({ pods }));
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.message, f.evidence, f.fix]), [['warning', 'loose', 'pod has no OS selector and runs on Windows node win2019-1', [
    'spec.nodeSelector: no kubernetes.io/os', 'spec.runtimeClassName: none', 'spec.nodeName: win2019-1 (kubernetes.io/os: windows)', 'metadata.ownerReferences: ReplicaSet loose-7d9',
  ], "add nodeSelector kubernetes.io/os: linux to the ReplicaSet's pod template"]]);
  assert.deepEqual(podWithoutOSSelector.run(snapshot({ pods, nodes: [node('lin-1', 'linux')] })), []);
});

test('windows-dns-policy: ClusterFirstWithHostNet on a Windows node is a warning, search domains are information; Linux pods pass', () => {
  const c = snapshot({
    pods: [
      pod('hostdns', 'win2019-1', { ...WIN, dnsPolicy: 'ClusterFirstWithHostNet' }),
      pod('searches', 'win2019-1', { ...WIN, dnsConfig: { searches: ['corp.example.com', 'example.com'] } }, { namespace: 'shop' }),
      pod('linux', 'lin-1', { dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true, containers: [{ name: 'c', image: 'nginx:1.27' }] }),
    ],
  });
  const found = windowsDNSPolicy.run(c);
  assert.deepEqual(found.map((f) => [f.severity, f.object.name, f.message, f.evidence[0]]), [
    ['warning', 'hostdns', 'dnsPolicy ClusterFirstWithHostNet is not supported for pods on Windows node win2019-1', 'spec.dnsPolicy: ClusterFirstWithHostNet'],
    ['info', 'searches', 'the pod sets DNS search domains, but a Windows pod resolves with one DNS suffix only', 'spec.dnsConfig.searches: corp.example.com, example.com'],
  ]);
  assert.match(found[1]?.explanation ?? '', /\(example: shop\.svc\.cluster\.local\)\.$/);
});

test('windows-nodeport-from-node and windows-pods-icmp: information when Windows pods back a NodePort, and once for pods on Windows nodes', () => {
  const web = pod('web-1', 'win2022-1', WIN, { labels: { app: 'web' } });
  const api = pod('api-1', 'lin-1', { containers: [{ name: 'c', image: 'nginx:1.27' }] }, { labels: { app: 'api' } });
  const c = snapshot({ pods: [web, api], services: [service('web', 'NodePort', { app: 'web' }), service('web-internal', 'ClusterIP', { app: 'web' }), service('api', 'LoadBalancer', { app: 'api' })] });
  assert.deepEqual(windowsNodePortFromNode.run(c).map((f) => [f.severity, f.object.name, f.evidence]), [['info', 'web', ['spec.type: NodePort, nodePort 30080', 'Windows backends: web-1 (win2022-1)']]]);
  assert.deepEqual(windowsPodsICMP.run(c).map((f) => [f.severity, f.evidence]), [['info', ['1 pod on the pod network of Windows nodes']]]);
  assert.deepEqual(windowsPodsICMP.run(snapshot({ pods: [api, pod('hpc', 'win2022-1', { ...WIN, hostNetwork: true })] })), []);
});

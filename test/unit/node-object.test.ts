import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POOLS, PoolError, expandPools, type NodePool } from '../../src/node/pool.js';
import { buildNode, nodeInfo, nodeLabels } from '../../src/node/node-object.js';
import { machineIdentity } from '../../src/node/identity.js';
import { healthyConditions, conditionsChanged } from '../../src/node/conditions.js';
import { rfc3339Micro } from '../../src/apimachinery/time.js';
import { nodeLease } from '../../src/node/lease.js';

const NOW = '2026-01-02T03:04:05Z';
const byName = (name: string) => {
  const nodes = expandPools(DEFAULT_POOLS);
  const i = nodes.findIndex((n) => n.name === name);
  const cfg = nodes[i];
  assert.ok(cfg, `no node ${name}`);
  return { cfg, index: i };
};

test('the default cluster: a Linux control plane, two Linux, two 2019 and one 2022 Windows workers', () => {
  const nodes = expandPools(DEFAULT_POOLS);
  assert.deepEqual(nodes.map((n) => [n.name, n.os, n.role, n.windows?.tag]), [
    ['winkube-control-plane', 'linux', 'control-plane', undefined],
    ['linux-1', 'linux', 'worker', undefined],
    ['linux-2', 'linux', 'worker', undefined],
    ['win2019-1', 'windows', 'worker', 'ltsc2019'],
    ['win2019-2', 'windows', 'worker', 'ltsc2019'],
    ['win2022-1', 'windows', 'worker', 'ltsc2022'],
  ]);
  const [controlPlane, firstWorker] = nodes;
  assert.ok(controlPlane && firstWorker);
  const cp = buildNode(controlPlane, 0, machineIdentity(controlPlane.name, 'linux'), NOW);
  assert.deepEqual(cp.spec.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  assert.equal(cp.metadata.labels['node-role.kubernetes.io/control-plane'], '');
  assert.equal(buildNode(firstWorker, 1, machineIdentity('linux-1', 'linux'), NOW).spec.taints, undefined);
});

test('a Windows pool with the control-plane role is refused', () => {
  const pool: NodePool = { name: 'wincp', count: 1, os: 'windows', role: 'control-plane', windowsVersion: 'ltsc2022' };
  assert.throws(() => expandPools([pool]), (e: unknown) => e instanceof PoolError
    && /a Windows pool cannot have the control-plane role: the Kubernetes control plane runs on Linux only/.test((e as Error).message));
  assert.throws(() => expandPools([{ name: 'w', count: 1, os: 'windows', windowsVersion: 'ltsc2099' }]), /unknown windowsVersion "ltsc2099"/);
  assert.throws(() => expandPools([{ name: 'l', count: 1, os: 'linux', windowsVersion: 'ltsc2019' }]), /only for Windows pools/);
  assert.throws(() => expandPools([{ name: 'a', count: 1, os: 'linux' }, { name: 'a', count: 1, os: 'linux' }]), /node a-1 is defined twice/);
  assert.deepEqual(expandPools([{ name: 'w25', count: 2, os: 'windows', windowsVersion: 'ltsc2025' }]).map((n) => n.windows?.build), [26100, 26100]);
});

test('labels as the kubelet registers them, with the Windows build label', () => {
  assert.deepEqual(nodeLabels(byName('linux-1').cfg), {
    'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': 'linux-1', 'kubernetes.io/os': 'linux',
  });
  assert.deepEqual(nodeLabels(byName('win2019-1').cfg), {
    'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'windows',
    'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': 'win2019-1', 'kubernetes.io/os': 'windows',
    'node.kubernetes.io/windows-build': '10.0.17763',
  });
  assert.equal(nodeLabels(byName('win2022-1').cfg)['node.kubernetes.io/windows-build'], '10.0.20348');
  const [custom] = expandPools([{ name: 'gpu', count: 1, os: 'linux', labels: { pool: 'gpu' }, taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] }]);
  assert.ok(custom);
  assert.equal(nodeLabels(custom).pool, 'gpu');
  assert.deepEqual(buildNode(custom, 0, machineIdentity('gpu-1', 'linux'), NOW).spec.taints, [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }]);
});

test('nodeInfo per OS: versions, kernel, osImage and identity formats', () => {
  const l = nodeInfo(byName('linux-1').cfg, machineIdentity('linux-1', 'linux'));
  assert.equal(l.osImage, 'Debian GNU/Linux 12 (bookworm)');
  assert.match(l.kernelVersion ?? '', /^6\.1\.0-\d+-amd64$/);
  assert.match(l.containerRuntimeVersion ?? '', /^containerd:\/\/1\.7\.\d+$/);
  assert.equal(l.kubeletVersion, 'v1.32.0');
  assert.equal(l.kubeProxyVersion, 'v1.32.0');
  assert.equal(l.operatingSystem, 'linux');
  assert.equal(l.architecture, 'amd64');
  assert.match(l.machineID ?? '', /^[0-9a-f]{32}$/);
  assert.match(l.systemUUID ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(l.bootID ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  // Stable per name, across farm starts.
  assert.equal(machineIdentity('linux-1', 'linux').machineID, l.machineID);

  const w = nodeInfo(byName('win2019-1').cfg, machineIdentity('win2019-1', 'windows'));
  assert.equal(w.osImage, 'Windows Server 2019 Datacenter');
  assert.equal(w.kernelVersion, '10.0.17763.1879');
  assert.equal(w.operatingSystem, 'windows');
  assert.equal(w.machineID, 'win2019-1');
  assert.match(w.systemUUID ?? '', /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
  assert.match(w.bootID ?? '', /^\d+$/);
  assert.equal(nodeInfo(byName('win2022-1').cfg, machineIdentity('win2022-1', 'windows')).kernelVersion, '10.0.20348.2582');
});

test('spec, addresses, annotations, daemon endpoint and conditions', () => {
  const { cfg, index } = byName('win2019-1');
  assert.ok(cfg);
  const n = buildNode(cfg, index, machineIdentity(cfg.name, 'windows'), NOW);
  assert.deepEqual(n.spec, { podCIDR: '10.244.3.0/24', podCIDRs: ['10.244.3.0/24'] });
  assert.deepEqual(n.status.addresses, [{ type: 'InternalIP', address: '172.18.0.5' }, { type: 'Hostname', address: 'win2019-1' }]);
  assert.deepEqual(n.metadata.annotations, {
    'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
  });
  assert.deepEqual(n.status.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
  assert.equal(n.status.images, undefined);
  assert.deepEqual(n.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
    ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
    ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
    ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
    ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
  ]);
});

test('conditions keep lastTransitionTime while unchanged; heartbeats move', () => {
  const first = healthyConditions('2026-01-01T00:00:00Z');
  const later = healthyConditions('2026-01-01T00:05:00Z', first);
  assert.ok(later.every((c) => c.lastTransitionTime === '2026-01-01T00:00:00Z' && c.lastHeartbeatTime === '2026-01-01T00:05:00Z'));
  assert.equal(conditionsChanged(first, later), false);
  const notReady = first.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' as const } : c));
  const back = healthyConditions('2026-01-01T00:06:00Z', notReady);
  assert.equal(back.find((c) => c.type === 'Ready')!.lastTransitionTime, '2026-01-01T00:06:00Z');
  assert.equal(conditionsChanged(notReady, back), true);
});

test('the node lease: 40 s, held by the node, MicroTime renewTime, owned by the Node', () => {
  const d = new Date('2026-01-02T03:04:05.678Z');
  assert.equal(rfc3339Micro(d), '2026-01-02T03:04:05.678000Z');
  assert.deepEqual(nodeLease('linux-1', 'uid-1', d), {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name: 'linux-1', namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'linux-1', uid: 'uid-1' }] },
    spec: { holderIdentity: 'linux-1', leaseDurationSeconds: 40, renewTime: '2026-01-02T03:04:05.678000Z' },
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClusterFile } from '../../src/node/cluster-file.js';
import { expandPools } from '../../src/node/pool.js';
import { nodeAllocatable } from '../../src/node/allocatable.js';
import { buildNode, internalIP } from '../../src/node/node-object.js';
import { machineIdentity } from '../../src/node/identity.js';

const FILE = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
  - name: cp
    os: linux
    role: control-plane
    exactName: true
  - name: win25
    os: windows
    windowsVersion: ltsc2025
    count: 2
    cpu: 8
    memory: 32Gi
    maxPods: 30
    labels: { team: payments }
    taints: [{ key: os, value: windows, effect: NoSchedule }]
    kubeReserved: { cpu: 100m, memory: 500Mi }
    systemReserved: { memory: 1Gi }
`;

test('a cluster file: pools, defaults, reservations', () => {
  const pools = parseClusterFile(FILE);
  const nodes = expandPools(pools);
  assert.deepEqual(nodes.map((n) => n.name), ['cp', 'win25-1', 'win25-2']);
  const w = nodes[1];
  assert.ok(w);
  assert.equal(w.windows?.build, 26100);
  assert.equal(w.cpu, '8');
  assert.deepEqual(w.taints, [{ key: 'os', value: 'windows', effect: 'NoSchedule' }]);
  assert.deepEqual(w.labels, { team: 'payments' });
  // 32Gi − 500Mi − 1Gi − the Windows default memory.available 500Mi.
  assert.equal(nodeAllocatable(w).memory, '30744Mi');
  assert.equal(nodeAllocatable(w).cpu, '7900m');
  assert.equal(nodeAllocatable(w).pods, '30');
});

test('cluster file errors name the field', () => {
  const head = 'apiVersion: winkube.io/v1alpha1\nkind: Cluster\n';
  assert.throws(() => parseClusterFile('kind: Cluster\n'), /apiVersion: winkube.io\/v1alpha1 and kind: Cluster/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: a\n    os: linux\n    colour: red\n'), /^Error: node pool a: unknown field "colour"$/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: a\n'), /node pool a: os is required/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - os: linux\n'), /nodePools\[0\]\.name is required/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: w\n    os: windows\n    role: control-plane\n'),
    /node pool w: a Windows pool cannot have the control-plane role: the Kubernetes control plane runs on Linux only/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: a\n    os: linux\n    taints: [{ key: x, effect: Sometimes }]\n'), /node pool a: taints\[0\] needs a key and an effect/);
  assert.throws(() => parseClusterFile(head + 'extra: 1\nnodePools: []\n'), /unknown field "extra"/);
});

const head = 'apiVersion: winkube.io/v1alpha1\nkind: Cluster\n';
const one = (pool: string, extra = '') => {
  const [node] = expandPools(parseClusterFile(`${head}${extra}nodePools:\n  - ${pool}\n`));
  assert.ok(node, 'the pool expands to a node');
  return node;
};
const refused = (pool: string, message: string, extra = '') => {
  assert.throws(() => one(pool, extra), (e: unknown) => { assert.equal((e as Error).message, message); return true; });
};

test('every Windows version of the issue: LTSC 2019/2022/2025 and SAC 1809/1903/1909/2004/20H2', () => {
  const builds = ['ltsc2019', 'ltsc2022', 'ltsc2025', '1809', '1903', '1909', '2004', '20H2']
    .map((v) => one(`{ name: w, os: windows, windowsVersion: "${v}" }`).windows!.build);
  assert.deepEqual(builds, [17763, 20348, 26100, 17763, 18362, 18363, 19041, 19042]);
  refused('{ name: w, os: windows, windowsVersion: "2016" }', 'node pool w: unknown windowsVersion "2016"');
});

test('container runtime: containerd by default, docker (Docker EE / Mirantis) with its documented differences', () => {
  const c = one('{ name: w, os: windows }');
  assert.ok(c);
  assert.equal(c.runtime.containerRuntimeVersion, 'containerd://1.7.24');
  assert.equal(c.runtime.fixedStopTimeoutSeconds, undefined);
  assert.equal(c.runtime.hostNetworkSandboxError, undefined);
  const d = one('{ name: w, os: windows, containerRuntime: docker }');
  assert.ok(d);
  assert.deepEqual(d.runtime, {
    name: 'docker', version: '20.10.9', containerRuntimeVersion: 'docker://20.10.9', endpoint: 'npipe:////./pipe/cri-dockerd',
    fixedStopTimeoutSeconds: 5, singleFileMounts: false,
    hostNetworkSandboxError: 'failed to create a sandbox for pod "%s": Error response from daemon: network host not found',
  });
  const l = one('{ name: l, os: linux, containerRuntime: docker }');
  assert.ok(l);
  assert.equal(l.runtime.containerRuntimeVersion, 'docker://20.10.9');
  assert.equal(l.runtime.fixedStopTimeoutSeconds, undefined);
  assert.equal(l.runtime.singleFileMounts, true);
  refused('{ name: l, os: linux, containerRuntime: cri-o }',
    'node pool l: containerRuntime must be containerd or docker (Docker EE / Mirantis Container Runtime), not "cri-o"');
});

test('network: flannel overlay by default; the Windows HNS network follows the mode', () => {
  assert.deepEqual(one('{ name: w, os: windows }').network, {
    plugin: 'flannel', mode: 'overlay', podSubnet: '10.244.0.0/16', backend: 'vxlan', hnsNetworkType: 'Overlay', hnsNetworkName: 'flannel.4096', windowsCNI: 'sdnoverlay',
  });
  assert.deepEqual(one('{ name: l, os: linux }', 'network: { plugin: flannel, mode: l2bridge }\n').network,
    { plugin: 'flannel', mode: 'l2bridge', podSubnet: '10.244.0.0/16', backend: 'host-gw' });
  assert.deepEqual(one('{ name: w, os: windows }', 'network: { plugin: calico, mode: l2bridge }\n').network, {
    plugin: 'calico', mode: 'l2bridge', podSubnet: '10.244.0.0/16', backend: 'bgp', hnsNetworkType: 'L2Bridge', hnsNetworkName: 'Calico', windowsCNI: 'sdnbridge',
  });
  refused('{ name: l, os: linux, count: 257 }',
    'the pod subnet 10.244.0.0/16 has room for 256 nodes (a /24 each), not 257: set network.podSubnet (e.g. 10.128.0.0/9)');
  refused('{ name: l, os: linux }', 'cluster file: network.podSubnet must be an IPv4 CIDR from /8 to /24, not "10.0.0.0/25"', 'network: { podSubnet: 10.0.0.0/25 }\n');
  const big = expandPools(parseClusterFile(`${head}network: { podSubnet: 10.128.0.0/9 }\nnodePools:\n  - { name: l, os: linux, count: 5000 }\n`));
  assert.equal(big.length, 5000);
  const last = big[4999];
  assert.ok(last);
  assert.equal(buildNode(last, 4999, machineIdentity('l-5000', 'linux'), '2026-01-01T00:00:00Z').spec.podCIDR, '10.147.135.0/24');
  assert.equal(internalIP(4999), '172.18.19.137');
  assert.equal(internalIP(3), '172.18.0.5');
  refused('{ name: l, os: linux }', 'cluster file: network.mode must be overlay or l2bridge, not "nat"', 'network: { mode: nat }\n');
  refused('{ name: l, os: linux }', 'cluster file: network.plugin must be flannel or calico, not "cilium"', 'network: { plugin: cilium }\n');
});

test('windowsPriorityClass: Windows only, the kubelet\'s names', () => {
  assert.equal(one('{ name: w, os: windows }').windowsPriorityClass, 'NORMAL_PRIORITY_CLASS');
  assert.equal(one('{ name: w, os: windows, windowsPriorityClass: ABOVE_NORMAL_PRIORITY_CLASS }').windowsPriorityClass, 'ABOVE_NORMAL_PRIORITY_CLASS');
  assert.equal(one('{ name: l, os: linux }').windowsPriorityClass, undefined);
  refused('{ name: w, os: windows, windowsPriorityClass: TURBO }',
    'node pool w: windowsPriorityClass: unknown priority class TURBO, valid ones are available at https://docs.microsoft.com/en-us/windows/win32/procthread/scheduling-priorities');
  refused('{ name: l, os: linux, windowsPriorityClass: HIGH_PRIORITY_CLASS }', 'node pool l: windowsPriorityClass is only for Windows pools');
});

test('quantities and kubelet reservations are checked as the kubelet parses them', () => {
  refused('{ name: l, os: linux, memory: lots }',
    "node pool l: memory: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  refused('{ name: l, os: linux, cpu: 0 }', 'node pool l: cpu must be greater than zero, not 0');
  refused('{ name: l, os: linux, kubeReserved: { gpu: 1 } }', 'node pool l: kubeReserved: cannot reserve "gpu" resource');
  refused('{ name: l, os: linux, systemReserved: { memory: -1Gi } }', 'node pool l: systemReserved: resource quantity for "memory" cannot be negative: -1Gi');
  refused('{ name: l, os: linux, systemReserved: { memory: x } }',
    'node pool l: systemReserved: failed to parse quantity "x" for "memory" resource: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  refused('{ name: l, os: linux, evictionHard: { memory.free: 1Gi } }', 'node pool l: evictionHard: unsupported eviction signal memory.free');
  refused('{ name: l, os: linux, evictionHard: { nodefs.available: 120% } }', 'node pool l: evictionHard: eviction percentage threshold nodefs.available must be <= 100%: 120%');
  refused('{ name: l, os: linux, evictionHard: { memory.available: "0" } }', 'node pool l: evictionHard: eviction threshold memory.available must be positive: 0');
  refused('{ name: l, os: linux, count: -1 }', 'node pool l: count must be a non-negative integer');
  refused('{ name: w, os: windows, arch: arm64 }', 'node pool w: Windows nodes are amd64 only');
  const ok = one('{ name: l, os: linux, arch: arm64, maxPods: 250, systemReserved: { cpu: 500m, pid: "1000" }, evictionHard: { memory.available: 200Mi } }');
  assert.ok(ok);
  assert.equal(ok.arch, 'arm64');
  assert.equal(ok.maxPods, 250);
  assert.deepEqual(ok.evictionHard, { 'memory.available': '200Mi' });
});

test('sandboxImage: a pool\'s own sandbox (pause) image, the kubelet\'s default without it', () => {
  const nodes = expandPools(parseClusterFile(`apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
  - { name: cp, os: linux, role: control-plane, exactName: true }
  - { name: win, os: windows, windowsVersion: ltsc2022, sandboxImage: "mypause:1.0" }
`));
  assert.deepEqual(nodes.map((n) => [n.name, n.sandboxImage]), [['cp', undefined], ['win-1', 'mypause:1.0']]);
  assert.throws(() => parseClusterFile(`apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
  - { name: win, os: windows, sandboxImage: 3 }
`), { message: 'node pool win: sandboxImage must be an image reference' });
});

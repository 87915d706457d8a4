import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClusterFile } from '../../src/node/cluster-file.js';
import { expandPools } from '../../src/node/pool.js';
import { nodeAllocatable } from '../../src/node/allocatable.js';

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
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: a\n    os: linux\n    colour: red\n'), /nodePools\[0\]: unknown field "colour"/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: a\n'), /nodePools\[0\]\.os is required/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: w\n    os: windows\n    role: control-plane\n'),
    /node pool w: a Windows pool cannot have the control-plane role: the Kubernetes control plane runs on Linux only/);
  assert.throws(() => parseClusterFile(head + 'nodePools:\n  - name: a\n    os: linux\n    taints: [{ key: x, effect: Sometimes }]\n'), /taints\[0\] needs a key and an effect/);
  assert.throws(() => parseClusterFile(head + 'extra: 1\nnodePools: []\n'), /unknown field "extra"/);
});

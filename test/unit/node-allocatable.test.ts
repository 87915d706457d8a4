import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { evictionThresholdBytes, nodeAllocatable, nodeCapacity } from '../../src/node/allocatable.js';
import { formatBytes, formatMilliCPU, parseBytes, parseMilliCPU } from '../../src/node/quantity.js';

test('quantities: parse and canonical format', () => {
  assert.equal(parseBytes('16Gi'), 16 * 2 ** 30);
  assert.equal(parseBytes('500M'), 500e6);
  assert.equal(parseBytes('1.5Gi'), 1.5 * 2 ** 30);
  assert.equal(formatBytes(16 * 2 ** 30), '16Gi');
  assert.equal(formatBytes(16 * 2 ** 30 - 100 * 2 ** 20), '16284Mi');
  assert.equal(formatBytes(16393384 * 1024), '16393384Ki');
  assert.equal(formatBytes(94580335255), '94580335255');
  assert.equal(parseMilliCPU('4'), 4000);
  assert.equal(parseMilliCPU('250m'), 250);
  assert.equal(formatMilliCPU(3900), '3900m');
  assert.equal(formatMilliCPU(4000), '4');
  assert.throws(() => parseBytes('lots'), /quantities must match the regular expression/);
});

test('a percentage threshold is a float32 times the capacity, truncated', () => {
  // float32(0.1) is 0.100000001490116…: 100Gi × that, truncated.
  assert.equal(evictionThresholdBytes('10%', 107374182400), 10737418400);
  assert.equal(evictionThresholdBytes('100Mi', 1), 100 * 2 ** 20);
});

test('Linux default: capacity with hugepages; allocatable loses evictionHard memory.available and nodefs.available', () => {
  const linux = expandPools(DEFAULT_POOLS).find((n) => n.name === 'linux-1')!;
  const cap = nodeCapacity(linux);
  assert.deepEqual(cap, { cpu: '4', 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '16Gi', pods: '110' });
  assert.deepEqual(nodeAllocatable(linux, cap), {
    cpu: '4', 'ephemeral-storage': String(107374182400 - 10737418400), 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '16284Mi', pods: '110',
  });
});

test('Windows default: no hugepages, 500Mi memory.available', () => {
  const win = expandPools(DEFAULT_POOLS).find((n) => n.name === 'win2022-1')!;
  const cap = nodeCapacity(win);
  assert.deepEqual(Object.keys(cap), ['cpu', 'ephemeral-storage', 'memory', 'pods']);
  assert.equal(nodeAllocatable(win, cap).memory, '15884Mi');
});

test('allocatable = capacity − kubeReserved − systemReserved − evictionHard, floored at zero', () => {
  const [n] = expandPools([{
    name: 'r', count: 1, os: 'linux', cpu: '8', memory: '32Gi', storage: '200Gi', maxPods: 30,
    kubeReserved: { cpu: '100m', memory: '1Gi', 'ephemeral-storage': '1Gi' },
    systemReserved: { cpu: '200m', memory: '512Mi' },
    evictionHard: { 'memory.available': '750Mi', 'nodefs.available': '5Gi' },
  }]);
  assert.ok(n);
  const a = nodeAllocatable(n);
  assert.equal(a.cpu, '7700m');
  assert.equal(a.memory, formatBytes(32 * 2 ** 30 - 2 ** 30 - 512 * 2 ** 20 - 750 * 2 ** 20));
  assert.equal(a.memory, '30482Mi');
  assert.equal(a['ephemeral-storage'], '194Gi');
  assert.equal(a.pods, '30');
  const [tiny] = expandPools([{ name: 't', count: 1, os: 'linux', cpu: '1', memory: '1Gi', kubeReserved: { cpu: '2', memory: '2Gi' } }]);
  assert.ok(tiny);
  assert.equal(nodeAllocatable(tiny).cpu, '0');
  assert.equal(nodeAllocatable(tiny).memory, '0');
});

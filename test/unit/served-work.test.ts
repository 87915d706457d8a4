/**
 * Requests cost their server's container CPU: the work of each second is
 * demand over that second, added to the idle or scripted demand and capped
 * by the OS like the rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServedWork, ServedWorkStore, withServedWork } from '../../src/node/usage/served-work.js';
import { containerUsage } from '../../src/node/usage/usage-model.js';
import { HPA_EXAMPLE_CPU_PER_REQUEST_NS } from '../../src/node/apps/hpa-example.js';

const IDLE = { nanoCores: 1_000_000, workingSetBytes: 8 << 20 };

test('each second\'s work is a step of demand over that second', () => {
  const w = new ServedWork();
  w.record(2_300, 30_000_000);
  w.record(2_900, 30_000_000);
  w.record(4_500, 10_000_000);
  assert.deepEqual(withServedWork([{ t: 0, v: 1 }], w, 0), [
    { t: 0, v: 1 }, { t: 2, v: 1 }, { t: 2, v: 60_000_001 }, { t: 3, v: 60_000_001 }, { t: 3, v: 1 },
    { t: 4, v: 1 }, { t: 4, v: 10_000_001 }, { t: 5, v: 10_000_001 }, { t: 5, v: 1 },
  ]);
  assert.deepEqual(withServedWork([{ t: 0, v: 1 }], undefined, 0), [{ t: 0, v: 1 }]);
  // Work is kept by the clock's second: a container that started at 1 s counts a request at 2.3 s in its second second.
  const late = new ServedWork();
  late.record(2_300, 5);
  assert.deepEqual(withServedWork([{ t: 0, v: 1 }], late, 1_000), [{ t: 0, v: 1 }, { t: 1, v: 1 }, { t: 1, v: 6 }, { t: 2, v: 6 }, { t: 2, v: 1 }]);
});

test('php-apache under 100 requests a second: saturated at its 500m CFS quota on Linux, at CpuMaximum on Windows', () => {
  const w = new ServedWork();
  for (let i = 0; i < 1000; i++) w.record(i * 10, HPA_EXAMPLE_CPU_PER_REQUEST_NS);
  const linux = containerUsage({ os: 'linux', logicalCPUs: 4, nodeMemoryBytes: 8 << 30, idle: IDLE, limits: { cpu: '500m' }, startedAtMs: 0, served: w }, 9_500);
  assert.deepEqual([linux.nanoCores, linux.cpuThrottled], [500_000_000, true]);
  // 9.5 s at the cap.
  assert.equal(Math.round(linux.usageCoreNanoSeconds), 4_750_000_000);
  const windows = containerUsage({ os: 'windows', logicalCPUs: 8, nodeMemoryBytes: 8 << 30, idle: IDLE, limits: { cpu: '500m' }, startedAtMs: 0, served: w }, 9_500);
  // CpuMaximum 625 of 10000 on 8 CPUs: 500m.
  assert.equal(windows.nanoCores, 500_000_000);
  // After the load: idle again, the CPU time kept.
  const later = containerUsage({ os: 'linux', logicalCPUs: 4, nodeMemoryBytes: 8 << 30, idle: IDLE, limits: { cpu: '500m' }, startedAtMs: 0, served: w }, 20_000);
  assert.equal(later.nanoCores, 1_000_000);
  assert.equal(Math.round(later.usageCoreNanoSeconds), 5_000_000_000 + 10_000_000);
});

test('the store keeps one record per container run and forgets a pod', () => {
  const s = new ServedWorkStore();
  const first = s.start('uid', 'app', 0);
  assert.equal(s.get('uid', 'app', 0), first);
  assert.notEqual(s.start('uid', 'app', 1), first);
  s.forget('uid');
  assert.equal(s.get('uid', 'app', 1), undefined);
});

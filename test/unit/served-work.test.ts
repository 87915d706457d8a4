/**
 * Requests cost their server's container CPU: the work of each second is
 * demand over that second, added to the idle or scripted demand and capped
 * by the OS like the rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVED_WORK_DETAIL_SECONDS, ServedWork, ServedWorkStore, withServedWork } from '../../src/node/usage/served-work.js';
import { containerUsage } from '../../src/node/usage/usage-model.js';
import { HPA_EXAMPLE_CPU_PER_REQUEST_NS } from '../../src/node/apps/hpa-example.js';
import { IIS_CPU_PER_REQUEST_NS } from '../../src/node/apps/iis.js';

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

test('the walkthrough\'s wget loop: 25 answers a second of 30 ms each is 750m of work, held at the 500m quota; 10 a second is below it', () => {
  const at = (rate: number) => {
    const w = new ServedWork();
    for (let i = 0; i < 10 * rate; i++) w.record(i * 1000 / rate, HPA_EXAMPLE_CPU_PER_REQUEST_NS);
    return containerUsage({ os: 'linux', logicalCPUs: 2, nodeMemoryBytes: 4 << 30, idle: IDLE, limits: { cpu: '500m' }, startedAtMs: 0, served: w }, 5_000);
  };
  const busy = at(25);
  assert.deepEqual([busy.nanoCores, busy.cpuThrottled, busy.usageCoreNanoSeconds], [500_000_000, true, 2_500_000_000]);
  const light = at(10);
  assert.deepEqual([light.nanoCores, light.cpuThrottled, light.usageCoreNanoSeconds], [301_000_000, false, 1_505_000_000]);
});

test('IIS on Windows: its light requests add up, and CpuMaximum caps them (20m on 4 CPUs: CpuMaximum 50)', () => {
  const w = new ServedWork();
  // 100 requests a second for 10 s: 25m of work on the 5m idle servercore/iis.
  for (let i = 0; i < 1000; i++) w.record(i * 10, IIS_CPU_PER_REQUEST_NS);
  const iisIdle = { nanoCores: 5_000_000, workingSetBytes: 85 << 20 };
  const input = { os: 'windows' as const, logicalCPUs: 4, nodeMemoryBytes: 16 << 30, idle: iisIdle, startedAtMs: 0, served: w };
  assert.deepEqual([containerUsage(input, 4_000).nanoCores, containerUsage(input, 4_000).cpuThrottled], [30_000_000, false]);
  const capped = containerUsage({ ...input, limits: { cpu: '20m' } }, 4_000);
  assert.deepEqual([capped.nanoCores, capped.cpuCapNanoCores, capped.cpuThrottled], [20_000_000, 20_000_000, true]);
  assert.equal(Math.round(capped.usageCoreNanoSeconds), 80_000_000);
});

test('an hour of load: a jump at every second boundary, back to idle after the last', () => {
  const w = new ServedWork();
  for (let s = 0; s < 3600; s++) w.record(s * 1000 + 500, s % 2 ? 30_000_000 : 60_000_000);
  const knots = withServedWork([{ t: 0, v: 1 }], w, 0);
  // Every second boundary is a jump (two knots), then idle after the last second.
  assert.equal(knots.length, 2 * 3600 + 1);
  assert.deepEqual(knots.slice(-3), [{ t: 3599, v: 30_000_001 }, { t: 3600, v: 30_000_001 }, { t: 3600, v: 1 }]);
});

test('a long run under load: seconds older than the detail window are folded, the CPU time the same as counted whole', () => {
  const startedAtMs = 1_000_000;
  const load = (w: ServedWork, untilS: number, fromS = 0) => {
    // 30 ms requests at 10 to 40 a second (a 500m cap is reached some seconds and not others).
    for (let s = fromS; s < untilS; s++) for (let i = 0; i < 10 + (s % 31); i++) w.record(startedAtMs + s * 1000 + i * 20, HPA_EXAMPLE_CPU_PER_REQUEST_NS);
  };
  const input = (served: ServedWork) => ({ os: 'linux' as const, logicalCPUs: 2, nodeMemoryBytes: 4 << 30, idle: IDLE, limits: { cpu: '500m' }, startedAtMs, served });
  const whole = new ServedWork();
  load(whole, 3600);
  // Read every 15 s while the load runs: the record folds as it goes.
  const folding = new ServedWork();
  for (let s = 0; s < 3600; s += 15) {
    load(folding, s + 15, s);
    containerUsage(input(folding), startedAtMs + (s + 15) * 1000);
  }
  assert.equal(folding.seconds().length, SERVED_WORK_DETAIL_SECONDS);
  assert.equal(folding.foldedCPUTime().before, startedAtMs / 1000 + 3600 - SERVED_WORK_DETAIL_SECONDS);
  const at = startedAtMs + 3600_000 + 500;
  const expected = containerUsage(input(whole), at);
  const got = containerUsage(input(folding), at);
  assert.equal(got.nanoCores, expected.nanoCores);
  assert.ok(Math.abs(got.usageCoreNanoSeconds - expected.usageCoreNanoSeconds) < 1, `${got.usageCoreNanoSeconds} vs ${expected.usageCoreNanoSeconds}`);
  // Work reported for a second already folded is not counted again.
  folding.record(startedAtMs, 1e9);
  assert.equal(containerUsage(input(folding), at).usageCoreNanoSeconds, got.usageCoreNanoSeconds);
});

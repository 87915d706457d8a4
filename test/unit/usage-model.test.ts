import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cappedIntegral, demandKnots, firstAbove, valueAt } from '../../src/node/usage/demand.js';
import { containerUsage, cpuCapNanoCores, oomKillAfterMs, type ContainerUsageInput } from '../../src/node/usage/usage-model.js';
import { idleUsage } from '../../src/node/usage/idle-usage.js';
import { podContainerUsage } from '../../src/node/usage/pod-usage.js';
import { containerScript } from '../../src/node/kubelet/script.js';
import type { KObject } from '../../src/apimachinery/object.js';

const Mi = 1024 ** 2;
const m = 1_000_000; // nanocores per millicore
const START = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number) => START + seconds * 1000;

function input(over: Partial<ContainerUsageInput>): ContainerUsageInput {
  return { os: 'linux', logicalCPUs: 4, nodeMemoryBytes: 16 * 1024 * Mi, idle: { nanoCores: 1 * m, workingSetBytes: 8 * Mi }, startedAtMs: START, ...over };
}

test('demand: a step is idle until its second, a ramp joins its points, the last value holds', () => {
  const step = demandKnots({ kind: 'step', atSeconds: 10, value: 100 }, 5);
  assert.deepEqual([valueAt(step, 0), valueAt(step, 9.9), valueAt(step, 10), valueAt(step, 1000)], [5, 5, 100, 100]);
  const ramp = demandKnots({ kind: 'ramp', points: [[10, 0], [20, 100]] }, 5);
  assert.deepEqual([valueAt(ramp, 5), valueAt(ramp, 10), valueAt(ramp, 15), valueAt(ramp, 30)], [5, 0, 50, 100]);
  // ∫ min(f, 60): 5·10 (idle), then the ramp under 60 for 6 s (0→60: 180), capped for 4 s (240), then 60·10.
  assert.equal(cappedIntegral(ramp, 60, 30), 50 + 180 + 240 + 600);
  assert.equal(cappedIntegral(ramp, Infinity, 30), 50 + 500 + 1000);
  assert.equal(firstAbove(ramp, 60), 16);
  assert.equal(firstAbove(step, 100), undefined);
  assert.equal(firstAbove(step, 99), 10);
});

test('CPU caps: the CFS quota on Linux (at least 1 ms a period), CpuMaximum on Windows, the node without a limit', () => {
  assert.equal(cpuCapNanoCores('linux', '500m', 4), 500 * m);
  // MilliCPUToQuota's 1000 µs minimum: a 5m limit gets 10m.
  assert.equal(cpuCapNanoCores('linux', '5m', 4), 10 * m);
  assert.equal(cpuCapNanoCores('linux', '8', 4), 4000 * m);
  assert.equal(cpuCapNanoCores('linux', undefined, 4), 4000 * m);
  assert.equal(cpuCapNanoCores('windows', '500m', 4), 500 * m);
  // CpuMaximum = 10·333/8 = 416 (truncated): 416 × 8 / 10000 cores.
  assert.equal(cpuCapNanoCores('windows', '333m', 8), 332.8 * m);
  // Clamped at 1: a 1m limit on 16 processors still gets 1.6m.
  assert.equal(cpuCapNanoCores('windows', '1m', 16), 1.6 * m);
  assert.equal(cpuCapNanoCores('windows', undefined, 2), 2000 * m);
});

test('Linux: CFS throttles CPU demand at the limit; CPU time is the capped use since start', () => {
  const i = input({ cpu: { kind: 'step', atSeconds: 0, value: 2000 * m }, limits: { cpu: '500m' } });
  const u = containerUsage(i, at(10));
  assert.equal(u.nanoCores, 500 * m);
  assert.equal(u.cpuThrottled, true);
  assert.equal(u.usageCoreNanoSeconds, 500 * m * 10);
  const free = containerUsage({ ...i, limits: undefined }, at(10));
  assert.deepEqual([free.nanoCores, free.cpuThrottled], [2000 * m, false]);
});

test('Linux: memory over limits.memory is OOM-killed when the demand crosses it; within it nothing is', () => {
  const limit = '256Mi';
  assert.equal(oomKillAfterMs('linux', { kind: 'step', atSeconds: 4, value: 512 * Mi }, limit), 4000);
  // A ramp from 0 to 512Mi over 20 s crosses 256Mi after 10 s.
  assert.equal(oomKillAfterMs('linux', { kind: 'ramp', points: [[0, 0], [20, 512 * Mi]] }, limit), 10_000);
  assert.equal(oomKillAfterMs('linux', { kind: 'step', atSeconds: 0, value: 256 * Mi }, limit), undefined);
  assert.equal(oomKillAfterMs('linux', { kind: 'step', atSeconds: 0, value: 512 * Mi }, undefined), undefined);
  // Before the kill the working set is the demand, below the limit.
  const u = containerUsage(input({ memory: { kind: 'ramp', points: [[0, 0], [20, 512 * Mi]] }, limits: { memory: limit } }), at(5));
  assert.equal(u.workingSetBytes, 128 * Mi);
});

test('Windows: memory over the limit is paged, never killed: the working set stays at the limit; CpuMaximum caps CPU', () => {
  const i = input({ os: 'windows', memory: { kind: 'step', atSeconds: 0, value: 512 * Mi }, cpu: { kind: 'step', atSeconds: 0, value: 2000 * m }, limits: { memory: '256Mi', cpu: '500m' } });
  assert.equal(oomKillAfterMs('windows', i.memory, '256Mi'), undefined);
  const u = containerUsage(i, at(60));
  assert.deepEqual([u.workingSetBytes, u.memoryPaged, u.nanoCores, u.cpuThrottled], [256 * Mi, true, 500 * m, true]);
});

test('idle: an unscripted container uses its image\'s idle share; unknown images a default per OS', () => {
  assert.deepEqual(idleUsage('nginx:1.27', 'linux'), { nanoCores: 0.3 * m, workingSetBytes: 3 * Mi });
  assert.deepEqual(idleUsage('mcr.microsoft.com/windows/servercore:ltsc2022', 'windows'), { nanoCores: 4 * m, workingSetBytes: 40 * Mi });
  assert.deepEqual(idleUsage('example.com/team/app:v1', 'linux'), { nanoCores: 1 * m, workingSetBytes: 8 * Mi });
  const u = containerUsage(input({ idle: idleUsage('nginx', 'linux') }), at(100));
  assert.deepEqual([u.nanoCores, u.usageCoreNanoSeconds, u.workingSetBytes], [0.3 * m, 30 * m, 3 * Mi]);
});

test('winkube.io/script: cpu and memory as quantities from a second on, or ramps of [seconds, quantity]', () => {
  const s = containerScript({ 'winkube.io/script': JSON.stringify({ app: { cpu: [[0, '100m'], [60, 1]], memory: '1Gi', memoryAfterSeconds: 3, cpuAfterSeconds: 9 } }) }, 'app')!;
  assert.deepEqual(s.cpu, { kind: 'ramp', points: [[0, 100 * m], [60, 1000 * m]] });
  assert.deepEqual(s.memory, { kind: 'step', atSeconds: 3, value: 1024 * Mi });
  const bad = containerScript({ 'winkube.io/script': JSON.stringify({ app: { cpu: [[0]], memory: 'lots' } }) }, 'app')!;
  assert.deepEqual([bad.cpu, bad.memory], [undefined, undefined]);
});

test('a pod\'s running containers each from their own start; waiting ones have no usage', () => {
  const pod = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', annotations: { 'winkube.io/script': '{"app": {"cpu": "250m"}}' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }, { name: 'side', image: 'nginx' }, { name: 'later', image: 'nginx' }] },
    status: { containerStatuses: [
      { name: 'app', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } },
      { name: 'side', state: { running: { startedAt: '2026-01-01T00:00:10Z' } } },
      { name: 'later', state: { waiting: { reason: 'ContainerCreating' } } },
    ] },
  } as KObject;
  const usage = podContainerUsage(pod, { os: 'linux', logicalCPUs: 2, memoryBytes: 8 * 1024 * Mi }, at(20));
  assert.deepEqual(usage.map((u) => [u.name, u.nanoCores, u.usageCoreNanoSeconds, u.workingSetBytes]), [
    ['app', 250 * m, 250 * m * 20, 400 * 1024],
    ['side', 0.3 * m, 0.3 * m * 10, 3 * Mi],
  ]);
});

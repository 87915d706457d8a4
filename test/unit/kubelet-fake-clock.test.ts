import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeletOnFakeClock, pod, summary } from '../helpers/kubelet-on-fake-clock.js';

test('a crashing container on the fake clock: restarted at once, then after 10s, 20s, 40s of CrashLoopBackOff', async () => {
  const k = await kubeletOnFakeClock();
  await k.create(pod('crash', {}, { exitCode: 1, runSeconds: 1 }));
  const timeline: string[] = [];
  // One step of the clock, then let the writes land.
  const at = async (ms: number) => { k.clock.step(ms); await k.settle(); timeline.push(summary(await k.status('crash'))); };
  await k.settle();
  timeline.push(summary(await k.status('crash')));
  await at(1_000); // exits after 1s: restarted at once
  await at(1_000); // exits again: back-off 10s
  await at(9_000);
  await at(1_000); // 10s after the exit: restarted
  await at(1_000); // exits: back-off 20s
  await at(19_000);
  await at(1_000);
  assert.deepEqual(timeline, [
    'running restarts=0',
    'running restarts=1',
    'waiting CrashLoopBackOff restarts=1',
    'waiting CrashLoopBackOff restarts=1',
    'running restarts=2',
    'waiting CrashLoopBackOff restarts=2',
    'waiting CrashLoopBackOff restarts=2',
    'running restarts=3',
  ]);
  assert.equal((await k.status('crash')).containerStatuses?.[0]?.lastState.terminated?.exitCode, 1);
  await k.stop();
});

test('readiness on the fake clock: not ready until the probe passes, unready after failureThreshold failures', async () => {
  const k = await kubeletOnFakeClock();
  await k.create(pod('ready', { readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 2 } },
    { readiness: { failAfterSeconds: 20 } }));
  const ready = async () => { const s = await k.status('ready'); return `${s.containerStatuses?.[0]?.ready} ${s.conditions?.find((c) => c.type === 'Ready')?.status}`; };
  const seen: string[] = [];
  await k.settle();
  seen.push(await ready());
  for (const ms of [4_999, 1, 10_000, 10_000, 10_000]) { k.clock.step(ms); await k.settle(); seen.push(await ready()); }
  // t=0 running; t=5 first probe passes; t=15 passes; t=25 fails once; t=35 fails twice: unready.
  assert.deepEqual(seen, ['false False', 'false False', 'true True', 'true True', 'true True', 'false False']);
  await k.stop();
});

test('liveness on the fake clock: three failures, Killing, the container restarts', async () => {
  const k = await kubeletOnFakeClock();
  await k.create(pod('live', { livenessProbe: { exec: { command: ['true'] }, periodSeconds: 10 } }, { liveness: 'fail', sigterm: 'exit' }));
  await k.settle();
  const restarts = async () => (await k.status('live')).containerStatuses?.[0]?.restartCount;
  for (const ms of [0, 10_000]) { k.clock.step(ms); await k.settle(); }
  assert.equal(await restarts(), 0, 'two failures: still running');
  k.clock.step(10_000);
  await k.settle();
  const s = (await k.status('live')).containerStatuses?.[0];
  assert.equal(s?.restartCount, 1);
  assert.deepEqual(Object.keys(s?.state ?? {}), ['running']);
  assert.equal(s?.lastState.terminated?.exitCode, 0);
  await k.stop();
});

test('containerStatuses are sorted by name whatever the spec order; init containers keep the spec order', async () => {
  const k = await kubeletOnFakeClock();
  try {
    const c = (name: string) => ({ name, image: 'busybox', command: ['sh', '-c', 'sleep 3600'] });
    await k.create({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'order', namespace: 'default' },
      spec: { nodeName: 'linux-1', automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }],
        initContainers: [{ ...c('zinit'), command: ['true'] }, { ...c('ainit'), command: ['true'] }],
        containers: [c('zeta'), c('alpha'), c('mid')] },
    });
    await k.settle();
    const s = await k.status('order') as { containerStatuses?: { name: string }[]; initContainerStatuses?: { name: string }[] };
    assert.deepEqual(s.containerStatuses?.map((x) => x.name), ['alpha', 'mid', 'zeta']);
    assert.deepEqual(s.initContainerStatuses?.map((x) => x.name), ['zinit', 'ainit']);
  } finally {
    await k.stop();
  }
});

test('a node that stops and starts again: a running container is re-created as its next attempt, the lost one exited 255 Unknown', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('reboot', {}, {}));
    await k.settle();
    k.kubelet.setNodeRunning('linux-1', false);
    k.clock.step(5_000);
    k.kubelet.setNodeRunning('linux-1', true);
    await k.settle();
    const s = (await k.status('reboot')).containerStatuses?.[0] as { restartCount: number; state: Record<string, unknown>; lastState: { terminated?: { exitCode: number; reason?: string } } } | undefined;
    assert.deepEqual([s?.restartCount, Object.keys(s?.state ?? {}), s?.lastState.terminated?.exitCode, s?.lastState.terminated?.reason], [1, ['running'], 255, 'Unknown']);
  } finally {
    await k.stop();
  }
});

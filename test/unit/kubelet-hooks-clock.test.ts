/** Lifecycle hooks on the kubelet's injected clock. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeletOnFakeClock, pod, summary, type Obj } from '../helpers/kubelet-on-fake-clock.js';


const cases: { name: string; postStart: Obj; steps: [number, string][] }[] = [
  { name: 'a postStart that sleeps 5 s holds the container in ContainerCreating for 5 s, then it runs',
    postStart: { exec: { command: ['sh', '-c', 'sleep 5'] } },
    steps: [[0, 'waiting ContainerCreating restarts=0'], [4_000, 'waiting ContainerCreating restarts=0'], [1_000, 'running restarts=0']] },
  { name: 'a failing postStart kills the container; it restarts at once, then backs off',
    postStart: { exec: { command: ['sh', '-c', 'sleep 1; exit 1'] } },
    steps: [[0, 'waiting ContainerCreating restarts=0'], [1_000, 'waiting ContainerCreating restarts=1'], [1_000, 'waiting CrashLoopBackOff restarts=1']] },
];

for (const c of cases) {
  test(`lifecycle hooks on the fake clock: ${c.name}`, async () => {
    const k = await kubeletOnFakeClock();
    try {
      await k.create(pod('hooked', { lifecycle: { postStart: c.postStart } }, {}, { terminationGracePeriodSeconds: 0 }));
      const timeline: string[] = [];
      for (const [ms] of c.steps) {
        if (ms) k.clock.step(ms);
        await k.settle();
        timeline.push(summary(await k.status('hooked')));
      }
      assert.deepEqual(timeline, c.steps.map(([, s]) => s));
    } finally { await k.stop(); }
  });
}

test('lifecycle hooks on the fake clock: a 3 s preStop takes its time from a 4 s grace period, leaving the 2 s minimum for SIGTERM', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('stopping', { lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 3'] } } } }, {}, { terminationGracePeriodSeconds: 4 }));
    await k.settle();
    assert.equal(summary(await k.status('stopping')), 'running restarts=0');
    await k.remove('stopping');
    const timeline: string[] = [];
    for (const ms of [3_000, 1_000, 1_000]) {
      k.clock.step(ms);
      await k.settle();
      timeline.push(await k.exists('stopping') ? summary(await k.status('stopping')) : 'deleted');
    }
    // sh ignores SIGTERM: killed when the 2 s left after the hook run out (t = 5 s), not at 4 s.
    assert.deepEqual(timeline, ['running restarts=0', 'running restarts=0', 'deleted']);
  } finally { await k.stop(); }
});

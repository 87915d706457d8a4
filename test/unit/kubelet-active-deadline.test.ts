/** activeDeadlineSeconds set on a running pod (the one pod spec field besides images that may change) on the kubelet's fake clock. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeletOnFakeClock, pod } from '../helpers/kubelet-on-fake-clock.js';

test('activeDeadlineSeconds set on a running pod: Failed with DeadlineExceeded once it has run that long', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('deadline', {}, {}, { terminationGracePeriodSeconds: 0 }));
    await k.settle();
    k.clock.step(2_000);
    await k.updateSpec('deadline', (spec) => { spec.activeDeadlineSeconds = 5; });
    await k.settle();
    const phase = async () => { const s = (await k.status('deadline')) as { phase?: string; reason?: string }; return `${s.phase} ${s.reason ?? ''}`; };
    // Counted from the pod's start: 2 s have passed, 3 s are left.
    assert.equal(await phase(), 'Running ');
    k.clock.step(2_000);
    await k.settle();
    assert.equal(await phase(), 'Running ');
    k.clock.step(1_000);
    await k.settle();
    assert.equal(await phase(), 'Failed DeadlineExceeded');
  } finally { await k.stop(); }
});

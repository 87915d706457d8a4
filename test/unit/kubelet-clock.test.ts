import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/node/kubelet/clock.js';

test('FakeClock: timers fire in time order as the clock steps, tickers repeat, stopped timers do not fire', () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.afterFunc(300, () => fired.push(`b@${clock.now()}`));
  clock.afterFunc(100, () => { fired.push(`a@${clock.now()}`); clock.afterFunc(50, () => fired.push(`a2@${clock.now()}`)); });
  const stopped = clock.afterFunc(200, () => fired.push('never'));
  const ticker = clock.tick(120, () => fired.push(`t@${clock.now()}`));
  stopped.stop();
  clock.step(99);
  assert.deepEqual(fired, []);
  clock.step(301);
  assert.deepEqual(fired, ['a@100', 't@120', 'a2@150', 't@240', 'b@300', 't@360']);
  assert.equal(clock.now(), 400);
  ticker.stop();
  clock.step(1000);
  assert.equal(fired.length, 6);
  assert.equal(clock.waiting, 0);
});

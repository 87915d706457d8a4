/**
 * The controllers' work queue against client-go's workqueue semantics, on
 * a fake clock (nothing waits for real): the default controller rate
 * limiter's per-key back-off and overall token bucket, AddAfter, and the
 * de-duplication of queued keys and of keys being processed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/apimachinery/clock.js';
import { BucketRateLimiter, defaultControllerRateLimiter, ItemExponentialFailureRateLimiter } from '../../src/client/rate-limiter.js';
import { RateLimitingQueue } from '../../src/client/work-queue.js';

test('per-key back-off: 5 ms doubling per failure, capped at 1000 s, reset by forget', () => {
  const l = new ItemExponentialFailureRateLimiter(5, 1_000_000);
  assert.deepEqual([1, 2, 3, 4, 5].map(() => l.when('a')), [5, 10, 20, 40, 80]);
  assert.equal(l.when('b'), 5, 'keys back off independently');
  assert.equal(l.numRequeues('a'), 5);
  for (let i = 0; i < 30; i++) l.when('a');
  assert.equal(l.when('a'), 1_000_000);
  l.forget('a');
  assert.equal(l.numRequeues('a'), 0);
  assert.equal(l.when('a'), 5);
});

test('token bucket: a burst of 100 free, then one every 100 ms (10 qps), refilled as time passes', () => {
  const clock = new FakeClock(1000);
  const b = new BucketRateLimiter(10, 100, clock);
  for (let i = 0; i < 100; i++) assert.equal(b.when(), 0);
  assert.equal(b.when(), 100);
  assert.equal(b.when(), 200);
  clock.step(200);
  assert.equal(b.when(), 100, 'the debt of two tokens is paid after 200 ms');
  clock.step(60_000);
  for (let i = 0; i < 100; i++) assert.equal(b.when(), 0, 'refilled to the burst, not beyond');
  assert.equal(b.when(), 100);
});

test('default controller rate limiter: the larger of the key back-off and the bucket delay', () => {
  const clock = new FakeClock();
  const l = defaultControllerRateLimiter(clock);
  assert.equal(l.when('a'), 5);
  assert.equal(l.when('a'), 10);
  for (let i = 0; i < 98; i++) l.when(`k${i}`);
  // The bucket is empty now: a new key's 5 ms back-off is overruled by the 100 ms bucket delay.
  assert.equal(l.when('fresh'), 100);
  l.forget('a');
  assert.equal(l.numRequeues('a'), 0);
});

test('a queued key is queued once; a key added while processed is queued again when done, never handed out twice', async () => {
  const q = new RateLimitingQueue({ clock: new FakeClock() });
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  const first = await q.get();
  assert.equal(first, 'a');
  q.add('a');
  q.add('a');
  assert.equal(q.length, 1, 'a being processed is not queued again yet');
  assert.equal(await q.get(), 'b');
  assert.equal(q.length, 0);
  q.done('a');
  assert.equal(q.length, 1, 'done re-queues the add that came while processing, once');
  assert.equal(await q.get(), 'a');
  q.done('a');
  q.done('b');
  assert.equal(q.length, 0);
});

test('addAfter: due on the clock, an earlier time wins over a later one, and repeats coalesce', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue({ clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 300);
  q.addAfter('a', 2000);
  q.addAfter('b', 0);
  assert.equal(q.length, 1, 'a zero delay adds at once');
  assert.equal(await q.get(), 'b');
  clock.step(299);
  assert.equal(q.length, 0);
  clock.step(1);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  clock.step(5000);
  assert.equal(q.length, 0, 'the later times were dropped');
});

test('run: a failing key is retried after the back-off (5, 10, 20 ms) and forgotten once it succeeds', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue({ clock });
  const attempts: number[] = [];
  let failures = 3;
  const errors: string[] = [];
  q.run(2, async (key) => {
    attempts.push(clock.now());
    if (failures-- > 0) throw new Error(`no ${key}`);
  }, (key, e) => errors.push(`${key}: ${(e as Error).message}`));
  const settle = () => new Promise((r) => setImmediate(r));
  q.add('x');
  await settle();
  assert.deepEqual(attempts, [0]);
  for (const ms of [5, 10, 20]) {
    clock.step(ms - 1);
    await settle();
    assert.equal(attempts.length, [5, 10, 20].indexOf(ms) + 1, `not retried before ${ms} ms`);
    clock.step(1);
    await settle();
  }
  assert.deepEqual(attempts, [0, 5, 15, 35]);
  assert.equal(errors.length, 3);
  assert.equal(q.numRequeues('x'), 0, 'forgotten after the success');
  q.shutDown();
});

test('run: one key is never synced by two workers at once', async () => {
  const q = new RateLimitingQueue({ clock: new FakeClock() });
  let inFlight = 0;
  let maxInFlight = 0;
  let syncs = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  q.run(4, async () => {
    syncs++;
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await gate;
    inFlight--;
  }, () => {});
  q.add('k');
  await new Promise((r) => setImmediate(r));
  q.add('k');
  q.add('k');
  await new Promise((r) => setImmediate(r));
  assert.equal(syncs, 1);
  release();
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual({ syncs, maxInFlight }, { syncs: 2, maxInFlight: 1 });
  q.shutDown();
  q.add('k');
  assert.equal(q.length, 0, 'nothing is added after shutdown');
});

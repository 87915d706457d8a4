import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, ERR_FORMAT_WRONG } from '../../src/apimachinery/quantity.js';
import { parseBytes, parseMilliCPU } from '../../src/node/quantity.js';
import { oomKillAfterMs } from '../../src/node/kubelet/termination.js';
import { expandPools, PoolError } from '../../src/node/pool.js';

test('bytes of a quantity are Quantity.Value(): exact binary fractions stay exact, other fractions round up', () => {
  assert.equal(parseBytes('1.5Ki'), 1536);
  assert.equal(parseBytes('0.5'), 1);
  assert.equal(parseBytes('1.0001k'), 1001);
  assert.equal(parseBytes('100m'), 1);
  assert.equal(parseBytes('1e3'), 1000);
});

test('millicores of a cpu quantity are Quantity.MilliValue(), rounded up', () => {
  assert.equal(parseMilliCPU('0.1m'), 1);
  assert.equal(parseMilliCPU('1.5m'), 2);
  assert.equal(parseMilliCPU('0.5'), 500);
  assert.equal(parseMilliCPU('4'), 4000);
});

test('a malformed quantity throws ParseQuantity\'s error', () => {
  assert.throws(() => parseBytes('16 GB'), (e: unknown) => e instanceof DecodeError && e.message === ERR_FORMAT_WRONG);
});

test('an OOM kill compares the script\'s bytes with the limit\'s rounded-up value', () => {
  const c = (memory: string) => ({ resources: { limits: { memory } } });
  assert.equal(oomKillAfterMs('linux', { memory: { kind: 'step', atSeconds: 0, value: 1536 } }, c('1.5Ki')), undefined);
  assert.equal(oomKillAfterMs('linux', { memory: { kind: 'step', atSeconds: 0, value: 1537 } }, c('1.5Ki')), 0);
  assert.equal(oomKillAfterMs('linux', { memory: { kind: 'step', atSeconds: 0, value: 1537 } }, c('not-a-quantity')), undefined);
});

test('a pool with a malformed or non-positive quantity is refused with the kubelet\'s texts', () => {
  const pool = (extra: object) => [{ name: 'p', os: 'linux' as const, count: 1, ...extra }];
  assert.throws(() => expandPools(pool({ cpu: 'four' })),
    (e: unknown) => e instanceof PoolError && e.message === `node pool p: cpu: ${ERR_FORMAT_WRONG}`);
  // MilliValue() rounds 0.0001m up to 1m: positive, so accepted.
  assert.doesNotThrow(() => expandPools(pool({ cpu: '0.0001m' })));
  assert.throws(() => expandPools(pool({ memory: '-1Gi' })),
    (e: unknown) => e instanceof PoolError && e.message === 'node pool p: memory must be greater than zero, not -1Gi');
});

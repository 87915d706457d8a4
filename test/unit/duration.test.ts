/** Go's time.ParseDuration: values in nanoseconds and its error texts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, parseGoDuration } from '../../src/apimachinery/duration.js';

test('durations parse as time.ParseDuration does', () => {
  const cases: [string, bigint][] = [
    ['0', 0n], ['-0', 0n], ['+5s', 5_000_000_000n], ['1h30m', 5_400_000_000_000n], ['1.5h', 5_400_000_000_000n],
    ['500ms', 500_000_000n], ['10us', 10_000n], ['10µs', 10_000n], ['10μs', 10_000n], ['3ns', 3n], ['-1.5s', -1_500_000_000n],
    ['1.s', 1_000_000_000n], ['.5s', 500_000_000n], ['1s1s', 2_000_000_000n], ['2562047h47m16.854775807s', (1n << 63n) - 1n],
    ['0.3333333333333333333h', 1_200_000_000_000n],
  ];
  for (const [s, ns] of cases) assert.equal(parseGoDuration(s), ns, s);
});

test('malformed durations fail with Go\'s messages', () => {
  const cases: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.s', 'time: invalid duration ".s"'],
    ['5', 'time: missing unit in duration "5"'],
    ['1h5', 'time: missing unit in duration "1h5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['3é', 'time: unknown unit "\\xc3\\xa9" in duration "3\\xc3\\xa9"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['2562048h', 'time: invalid duration "2562048h"'],
  ];
  for (const [s, message] of cases) assert.throws(() => parseGoDuration(s), { message }, s);
});

test('parseDuration is time.ParseDuration in milliseconds, undefined when refused', () => {
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('250us'), 0.25);
  assert.equal(parseDuration('-2s'), -2000);
  assert.equal(parseDuration('5x'), undefined);
  assert.equal(parseDuration(''), undefined);
});

/**
 * The cron grammar (robfig/cron/v3 ParseStandard) and its activation times
 * (SpecSchedule.Next, ConstantDelaySchedule.Next), including the daylight
 * saving edges where robfig's walk skips or repeats a wall time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cronScheduleError, parseCronSchedule } from '../../src/apimachinery/cron-schedule.js';

const next = (spec: string, from: string): string => parseCronSchedule(spec).next(new Date(from)).toISOString();

test('descriptors, steps, ranges, names and @every', () => {
  const at = '2026-03-08T00:07:30Z';
  assert.equal(next('*/15 * * * *', at), '2026-03-08T00:15:00.000Z');
  assert.equal(next('@hourly', at), '2026-03-08T01:00:00.000Z');
  assert.equal(next('@daily', at), '2026-03-09T00:00:00.000Z');
  assert.equal(next('@weekly', at), '2026-03-15T00:00:00.000Z');
  assert.equal(next('@monthly', at), '2026-04-01T00:00:00.000Z');
  assert.equal(next('@yearly', at), '2027-01-01T00:00:00.000Z');
  assert.equal(next('5/20 * * * *', at), '2026-03-08T00:25:00.000Z');
  assert.equal(next('0 12 * * 1-5', at), '2026-03-09T12:00:00.000Z');
  assert.equal(next('0 0 1,15 * 3', at), '2026-03-11T00:00:00.000Z', 'day-of-month and day-of-week OR when both are restricted');
  assert.equal(next('0 0 ? * 3', at), '2026-03-11T00:00:00.000Z', 'and AND when one is a star');
  assert.equal(next('15 10 * JAN,feb SUN', at), '2027-01-03T10:15:00.000Z');
  // ConstantDelaySchedule: whole seconds, at least one, counted from the second of t.
  assert.equal(next('@every 90s', at), '2026-03-08T00:09:00.000Z');
  assert.equal(next('@every 1.7s', '2026-03-08T00:07:30.900Z'), '2026-03-08T00:07:31.000Z');
  assert.equal(next('@every 100ms', '2026-03-08T00:07:30.900Z'), '2026-03-08T00:07:31.000Z');
});

test('time zones from TZ= and CRON_TZ=, across daylight saving changes as robfig walks them', () => {
  const at = '2026-03-08T00:07:30Z';
  // 09:00 in New York on the day daylight saving starts is 13:00 UTC.
  assert.equal(next('TZ=America/New_York 0 9 * * *', at), '2026-03-08T13:00:00.000Z');
  assert.equal(next('CRON_TZ=Asia/Tokyo 0 9 * * *', at), '2026-03-09T00:00:00.000Z');
  // 02:00 does not exist on 8 March in New York: that day has no activation.
  assert.equal(next('TZ=America/New_York 0 2 * * *', at), '2026-03-09T06:00:00.000Z');
  // 01:30 happens twice on 1 November: both fire.
  assert.equal(next('TZ=America/New_York 30 1 * * *', '2026-11-01T05:00:00Z'), '2026-11-01T05:30:00.000Z');
  assert.equal(next('TZ=America/New_York 30 1 * * *', '2026-11-01T05:30:00Z'), '2026-11-01T06:30:00.000Z');
  // Lord Howe turns back half an hour at 02:00: the walk lands on :30 past each hour and skips a midnight.
  assert.equal(next('TZ=Australia/Lord_Howe @daily', '2026-04-04T13:00:00Z'), '2026-04-06T13:30:00.000Z');
  assert.equal(next('TZ=UTC 0 0 * * *', at), '2026-03-09T00:00:00.000Z');
  assert.equal(next('TZ=Local 0 0 * * *', at), '2026-03-09T00:00:00.000Z');
});

test('robfig\'s own daylight saving vectors (spec_test.go TestNext), which the CronJob controller now schedules by', () => {
  // Spring forward (02:00 EST -> 03:00 EDT): 02:30 on 11 March 2012 never happens, so the next is a year later.
  assert.equal(next('TZ=America/New_York 30 2 11 Mar ?', '2012-03-11T00:00:00-05:00'), '2013-03-11T06:30:00.000Z');
  assert.equal(next('TZ=America/New_York 0 * * * ?', '2012-03-11T00:00:00-05:00'), '2012-03-11T06:00:00.000Z');
  assert.equal(next('TZ=America/New_York 0 * * * ?', '2012-03-11T01:00:00-05:00'), '2012-03-11T07:00:00.000Z');
  // Fall back (02:00 EDT -> 01:00 EST).
  assert.equal(next('TZ=America/New_York 30 2 04 Nov ?', '2012-11-04T00:00:00-04:00'), '2012-11-04T07:30:00.000Z');
  assert.equal(next('TZ=America/New_York 30 1 04 Nov ?', '2012-11-04T01:45:00-04:00'), '2012-11-04T06:30:00.000Z');
});

test('nothing within five years is Go\'s zero time', () => {
  assert.equal(next('0 0 30 2 *', '2026-01-01T00:00:00Z'), '0001-01-01T00:00:00.000Z');
  assert.equal(next('0 0 29 2 *', '2097-01-01T00:00:00Z'), '0001-01-01T00:00:00.000Z', '2100 is not a leap year; 2104 is too far');
  assert.equal(next('0 0 29 2 *', '2026-01-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
});

test('parse errors are robfig\'s, and validation reports the same text', () => {
  const cases: [string, string][] = [
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['TZ=Mars/Olympus * * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
    ['TZ=UTC', 'runtime error: slice bounds out of range [:-1]'],
    ['@every 5x', 'failed to parse duration @every 5x: time: unknown unit "x" in duration "5x"'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
  ];
  for (const [spec, message] of cases) {
    assert.throws(() => parseCronSchedule(spec), { message }, spec);
    assert.equal(cronScheduleError(spec), message, spec);
  }
});

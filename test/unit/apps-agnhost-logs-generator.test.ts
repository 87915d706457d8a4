/**
 * agnhost logs-generator as logs_generator.go writes: klog's header, the
 * apiserver-like line, one line per D/N tick, exit 0 after the last tick;
 * klog.Fatalf for a count or duration that is not positive.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logLine, logsGenerator, logsGeneratorFlags } from '../../src/node/apps/agnhost-logs-generator.js';
import { klogLine } from '../../src/node/apps/go-klog.js';
import { agnhost } from '../../src/node/apps/agnhost.js';
import { collect } from '../../src/node/shell/index.js';
import type { Step } from '../../src/node/shell/types.js';

const AT = new Date('2026-11-29T05:28:31.514Z');

test('klog header: severity, month and day, microseconds, the pid in 7 columns, file:line', () => {
  assert.equal(klogLine('I', AT, 'logs_generator.go:76', '0 GET /api/v1/namespaces/ns/pods/xk2 404').text, 'I1129 05:28:31.514000       1 logs_generator.go:76] 0 GET /api/v1/namespaces/ns/pods/xk2 404\n');
});

test('log line: method, namespace, a 3-4 letter pod name of rand\'s alphabet, a status in [200, 600)', () => {
  // A source that returns 0: the first of each choice.
  assert.equal(logLine(3, () => 0), '3 GET /api/v1/namespaces/kube-system/pods/bbb 200');
  assert.equal(logLine(9, () => 0.9999), '9 PUT /api/v1/namespaces/ns/pods/9999 599');
});

test('100 lines over 20s: a line, then a 200 ms tick, ... the last tick, exit 0', () => {
  const f = logsGeneratorFlags(new Map([['log-lines-total', '100'], ['run-duration', '20s']]));
  const p = logsGenerator(f, () => AT, () => 0);
  const steps: Step[] = [];
  for (let r = p.next(); !r.done; r = p.next()) steps.push(r.value);
  assert.equal(steps.length, 201);
  assert.deepEqual(steps.slice(0, 2), [{ kind: 'stderr', text: 'I1129 05:28:31.514000       1 logs_generator.go:76] 0 GET /api/v1/namespaces/kube-system/pods/bbb 200\n' }, { kind: 'sleep', ms: 200 }]);
  assert.deepEqual(steps.at(-1), { kind: 'exit', code: 0 });
  assert.equal(steps.filter((s) => s.kind === 'sleep').reduce((a, s) => a + (s.kind === 'sleep' ? s.ms : 0), 0), 20_000);
});

test('through agnhost: short flags; klog.Fatalf without a count or a duration; a count that is not a number', () => {
  const ctx = { now: () => AT, hostname: 'p', cpus: 1, env: {} };
  const run = (...argv: string[]) => collect(agnhost(ctx, ['logs-generator', ...argv])!, 1000);
  const two = run('-t', '2', '-d', '1s');
  assert.deepEqual([two.stdout, two.code, two.slept], ['', 0, 1000]);
  assert.match(two.stderr, /^I1129 05:28:31\.514000       1 logs_generator\.go:76\] 0 (GET|POST|PUT) \/api\/v1\/namespaces\/(kube-system|default|ns)\/pods\/[bcdfghjklmnpqrstvwxz2456789]{3,4} [2-5]\d\d\nI1129 [^\n]* 1 (GET|POST|PUT) [^\n]*\n$/);
  assert.deepEqual(run('--run-duration', '5s'), { stdout: '', stderr: 'F1129 05:28:31.514000       1 logs_generator.go:64] Invalid total number of lines: 0\n', code: 255, slept: 0 });
  assert.deepEqual(run('--log-lines-total', '10'), { stdout: '', stderr: 'F1129 05:28:31.514000       1 logs_generator.go:68] Invalid duration: 0s\n', code: 255, slept: 0 });
  assert.deepEqual(run('-t', 'x', '-d', '1s'), { stdout: '', stderr: 'Error: invalid argument "x" for "-t, --log-lines-total" flag: strconv.ParseInt: parsing "x": invalid syntax\n', code: 1, slept: 0 });
});

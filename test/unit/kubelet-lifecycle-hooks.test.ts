/** The lifecycle hook results and messages of pkg/kubelet/lifecycle/handlers.go, and executePreStopHook's grace arithmetic. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execHookResult, graceAfterPreStop, httpHookResult } from '../../src/node/kubelet/lifecycle-hooks.js';

const POD = 'web_default(0f6f3e0e-1111-2222-3333-444455556666)';

const execCases = [
  { name: 'exit 0 succeeds after the time it slept', cmd: ['sh', '-c', 'sleep 2'], r: { code: 0, stdout: '', stderr: '', slept: 2000 }, want: { ok: true, ms: 2000 } },
  { name: 'a non-zero exit is ExecSync\'s CodeExitError inside the hook message', cmd: ['sh', '-c', 'echo oops >&2; exit 3'],
    r: { code: 3, stdout: '', stderr: 'oops\n', slept: 0 },
    want: { ok: false, ms: 0, message: `Exec lifecycle hook ([sh -c echo oops >&2; exit 3]) for Container "app" in Pod "${POD}" failed - error: command 'sh -c echo oops >&2; exit 3' exited with 3: oops\n, message: "oops\\n"` } },
  { name: 'a hook that never returns', cmd: ['sleep', 'infinity'], r: { code: 'forever' as const, stdout: '', stderr: '', slept: 0 }, want: { ok: false, ms: 0, forever: true } },
];
for (const c of execCases) {
  test(`exec hook: ${c.name}`, () => assert.deepEqual(execHookResult(c.cmd, 'app', POD, c.r), c.want));
}

test('httpGet hook: nothing listening is the Go client\'s connection refused inside the hook message', () => {
  assert.deepEqual(httpHookResult('/start', 'app', POD, { scheme: 'HTTP', host: '10.244.1.7', port: 8080 }, false), {
    ok: false, ms: 0,
    message: `HTTP lifecycle hook (/start) for Container "app" in Pod "${POD}" failed - error: Get "http://10.244.1.7:8080/start": dial tcp 10.244.1.7:8080: connect: connection refused`,
  });
  assert.deepEqual(httpHookResult('/start', 'app', POD, { scheme: 'HTTP', host: '10.244.1.7', port: 8080 }, true), { ok: true, ms: 0 });
});

test('preStop takes its time from the grace period, leaving at least 2 s', () => {
  for (const [grace, hook, want] of [[30, 5, 25], [30, 29, 2], [30, 40, 2], [1, 0, 2]] as const) assert.equal(graceAfterPreStop(grace, hook), want, `${grace}-${hook}`);
});

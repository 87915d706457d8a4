/**
 * The header deadline (ReadHeaderTimeout) applies to reading request headers only: an exec
 * stream, whose headers arrived long ago, runs past it, over WebSocket and over SPDY.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecShellFactory } from '../../src/node/exec/container-streams.js';
import type { Step } from '../../src/node/exec/steps.js';
import { running, startStreamingServer, type StreamingServer } from '../helpers/streaming-server.js';

const DEADLINE_MS = 500;

function* slow(): Generator<Step, void> {
  yield { kind: 'stdout', text: 'start\n' };
  yield { kind: 'sleep', ms: 4 * DEADLINE_MS };
  yield { kind: 'stdout', text: 'still here\n' };
  yield { kind: 'exit', code: 0 };
}

const shell: ExecShellFactory = () => ({ program: () => slow(), session: () => undefined });

let s: StreamingServer;
before(async () => {
  s = await startStreamingServer(shell, { readHeaderTimeoutMs: DEADLINE_MS });
  await s.pod('web', ['app'], { containerStatuses: [running('app')] });
});
after(async () => { await s.stop(); });

for (const [name, version, env] of [['WebSocket', '1.33', {}], ['SPDY', '1.27', {}]] as const) {
  test(`an exec stream over ${name} outlives the header deadline`, async () => {
    const r = await s.kubectl(['exec', 'web', '--', 'slow'], { version, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'start\nstill here\n');
  });
}

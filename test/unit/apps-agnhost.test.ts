/**
 * agnhost's netexec, serve-hostname and pause subcommands as their Go
 * sources answer and log: bodies, net/http's headers, the log lines, the
 * exit behaviour.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agnhost, parseAgnhost } from '../../src/node/apps/agnhost.js';
import { goTimeString } from '../../src/node/apps/go-http.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import { appNetwork, CLIENT_IP, drain, NOW } from '../helpers/app-network.js';
import { livenessHealthz } from '../../src/node/apps/agnhost-liveness.js';

const T = '2026/11/28 17:16:21';

test('netexec: start-up lines, /hostname, /clientip, /echo, / and their log lines', () => {
  const n = appNetwork(8080);
  const p = agnhost(n.server(), ['netexec', '--http-port=8080'])!;
  assert.deepEqual(drain(p), { stdout: '', stderr: `${T} Started HTTP server on port 8080\n${T} Started UDP server on port  8081\n`, code: 'forever', slept: 0 });
  assert.equal(n.curl('-s', 'http://web/hostname').stdout, 'web-1');
  assert.match(n.curl('-s', 'http://web/clientip').stdout, new RegExp(`^${CLIENT_IP.replace(/\./g, '\\.')}:\\d+$`));
  assert.equal(n.curl('-si', 'http://web/echo?msg=hi%20there').stdout,
    'HTTP/1.1 200 OK\r\nDate: Sat, 28 Nov 2026 17:16:21 GMT\r\nContent-Length: 8\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhi there');
  const teapot = n.curl('-si', 'http://web/echo?msg=x&code=418').stdout;
  assert.match(teapot, /^HTTP\/1\.1 418 I'm a teapot\r\n/);
  assert.equal(n.curl('-s', 'http://web/').stdout, 'NOW: 2026-11-28 17:16:21 +0000 UTC m=+0.000000000');
  assert.equal(n.curl('-s', '-o', '/dev/null', '-w', '%{http_code}', 'http://web/healthz').stdout, '200');
  assert.equal(drain(p).stderr, `${T} GET /hostname\n${T} GET /clientip\n${T} GET /echo?msg=hi there&code=\n${T} GET /echo?msg=x&code=418\n${T} GET /\n${T} GET /healthz\n`);
});

test('netexec /exit?code=3: logs, closes the connection unanswered and exits 3', () => {
  const n = appNetwork(8080);
  const p = agnhost(n.server(), ['netexec', '--http-port', '8080', '--udp-port=-1'])!;
  assert.equal(drain(p).stderr, `${T} Started HTTP server on port 8080\n`);
  const r = n.curl('-sS', 'http://web/exit?code=3');
  assert.deepEqual([r.code, r.stdout, r.stderr], [56, '', 'curl: (56) Recv failure: Connection reset by peer\n']);
  assert.deepEqual(drain(p), {
    stdout: '', stderr: `${T} GET /exit?code=3&timeout=&wait=\n${T} Will begin shutdown in 0s, allowing 0s for connections to close, then will exit with 3\n`, code: 3, slept: 0,
  });
});

test('netexec on a taken port: log.Fatal of the listen error, exit 1', () => {
  const n = appNetwork(8080);
  drain(agnhost(n.server(), ['netexec'])!);
  assert.deepEqual(drain(agnhost(n.server(), ['netexec', '--http-port=8080'])!),
    { stdout: '', stderr: `${T} Started HTTP server on port 8080\n${T} listen tcp :8080: bind: address already in use\n`, code: 1, slept: 0 });
});

test('serve-hostname: port 9376, the hostname, its log line; SIGTERM logs and waits a minute', () => {
  const n = appNetwork(9376);
  const p = agnhost(n.server(), ['serve-hostname'])!;
  assert.equal(drain(p).stderr, `${T} Serving on port 9376.\n`);
  assert.equal(n.curl('-s', 'http://web/anything').stdout, 'web-1');
  assert.match(drain(p).stderr, new RegExp(`^${T} HTTP request from ${CLIENT_IP.replace(/\./g, '\\.')}:\\d+\\n$`));
  assert.deepEqual(drain({ next: (() => { const t = p.terminate!()!; return () => t.next(); })() }),
    { stdout: '', stderr: `${T} Shutting down after receiving signal: terminated.\n${T} Awaiting pod deletion.\n`, code: 0, slept: 60_000 });
});

test('pause: prints Paused, listens on nothing, SIGTERM exits 2', () => {
  const n = appNetwork();
  const p = agnhost(n.server(), ['pause'])!;
  assert.deepEqual(drain(p), { stdout: 'Paused\n', stderr: '', code: 'forever', slept: 0 });
  assert.equal(n.net.listening('10.244.1.5', 80), false);
  assert.deepEqual(p.terminate!()!.next().value, { kind: 'exit', code: 2 });
});

test('which agnhost containers are modelled; Go time strings', () => {
  const app = (command: string[], args: string[]) => applicationFor({ image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', command, args }) !== undefined;
  assert.equal(app([], ['netexec', '--http-port=8080']), true);
  assert.equal(app(['/agnhost', 'serve-hostname'], []), true);
  assert.equal(app(['/agnhost'], ['pause']), true);
  assert.equal(app([], ['porter']), false);
  assert.equal(app(['sh', '-c', 'sleep 1'], []), false);
  assert.equal(parseAgnhost(['netexec', 'extra']), undefined);
  assert.equal(goTimeString(new Date('2026-11-28T17:16:21.250Z'), 1500), '2026-11-28 17:16:21.25 +0000 UTC m=+1.500000000');
});

test('liveness: /healthz ok for 10 seconds after start, then 500 with the seconds; /started the uptime', () => {
  let now = NOW.getTime();
  const n = appNetwork(8080);
  const p = applicationFor({ image: 'registry.k8s.io/e2e-test-images/agnhost:2.39', command: [], args: ['liveness'] })!(n.server({ now: () => new Date(now) }));
  assert.deepEqual(drain(p), { stdout: '', stderr: '', code: 'forever', slept: 0 });
  assert.equal(n.curl('-s', '-w', ' %{http_code}', 'http://web/healthz').stdout, 'ok 200');
  now += 10_000;
  assert.equal(n.curl('-s', '-w', ' %{http_code}', 'http://web/healthz').stdout, 'ok 200');
  now += 1_500;
  assert.equal(n.curl('-s', '-w', ' %{http_code}', 'http://web/healthz').stdout, 'error: 11.5 500');
  assert.equal(n.curl('-s', 'http://web/started').stdout, '11.5s');
  assert.deepEqual(livenessHealthz(10_001), { status: 500, body: 'error: 10.001' });
});

test('k8s.gcr.io, the registry\'s former name, runs the same agnhost', () => {
  const n = appNetwork(8080);
  const p = applicationFor({ image: 'k8s.gcr.io/e2e-test-images/agnhost:2.33', command: [], args: ['liveness'] })!(n.server());
  assert.deepEqual(drain(p), { stdout: '', stderr: '', code: 'forever', slept: 0 });
  assert.equal(n.curl('-s', '-w', ' %{http_code}', 'http://web/healthz').stdout, 'ok 200');
});

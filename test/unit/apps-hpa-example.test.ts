/**
 * registry.k8s.io/hpa-example (php-apache): its start-up lines, `OK!` with
 * Apache's and PHP's headers, the combined log line; and what requests cost
 * the servers: php-apache answers once its 30 ms of work is done (so a
 * client waiting for each answer runs at the rate the server allows), the
 * light servers at once, and every request counts its CPU toward the
 * container's usage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apacheErrorTime, hpaExample, HPA_EXAMPLE_CPU_PER_REQUEST_NS } from '../../src/node/apps/hpa-example.js';
import { httpd, HTTPD_CPU_PER_REQUEST_NS } from '../../src/node/apps/httpd.js';
import { iis, IIS_CPU_PER_REQUEST_NS } from '../../src/node/apps/iis.js';
import { nginx, NGINX_CPU_PER_REQUEST_NS } from '../../src/node/apps/nginx.js';
import type { AppContext } from '../../src/node/apps/app-context.js';
import type { Program } from '../../src/node/shell/types.js';
import { appNetwork, CLIENT_IP, drain, SERVER_IP } from '../helpers/app-network.js';

const WARN = `AH00558: apache2: Could not reliably determine the server's fully qualified domain name, using ${SERVER_IP}. Set the 'ServerName' directive globally to suppress this message\n`;

test('php-apache: apache2-foreground\'s start-up lines, OK! with Apache\'s and PHP\'s headers, the combined log line', () => {
  const n = appNetwork();
  const p = hpaExample(n.server());
  assert.deepEqual(drain(p), {
    stdout: '', code: 'forever', slept: 0,
    stderr: WARN + WARN +
      '[Sat Nov 28 17:16:21.000000 2026] [mpm_prefork:notice] [pid 1] AH00163: Apache/2.4.25 (Debian) PHP/5.6.40 configured -- resuming normal operations\n' +
      '[Sat Nov 28 17:16:21.000000 2026] [core:notice] [pid 1] AH00094: Command line: \'apache2 -D FOREGROUND\'\n',
  });
  assert.equal(n.curl('-si', 'http://web/').stdout, 'HTTP/1.1 200 OK\r\nDate: Sat, 28 Nov 2026 17:16:21 GMT\r\nServer: Apache/2.4.25 (Debian)\r\n' +
    'X-Powered-By: PHP/5.6.40\r\nContent-Length: 3\r\nContent-Type: text/html; charset=UTF-8\r\n\r\nOK!');
  assert.equal(n.run('linux', ['wget', '-q', '-O-', 'http://web/anything?x=1']).stdout, 'OK!');
  const log = drain(p).stdout.split('\n');
  // %O: the status line and headers above (173 bytes) and the body.
  assert.deepEqual(log, [`${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "GET / HTTP/1.1" 200 176 "-" "curl/8.11.1"`,
    `${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "GET /anything?x=1 HTTP/1.1" 200 176 "-" "Wget"`, '']);
  assert.equal(apacheErrorTime(new Date('2026-03-05T04:03:02.045Z')), 'Thu Mar 05 04:03:02.045000 2026');
});

/** A server whose request timers the test fires, and the CPU it counted. */
function timedServer(app: (ctx: AppContext) => Program) {
  const n = appNetwork();
  const timers: Array<{ ms: number; fn: () => void }> = [];
  const counted: number[] = [];
  const p = app(n.server({ after: (ms, fn) => { timers.push({ ms, fn }); }, served: (ns) => { counted.push(ns); } }));
  drain(p);
  const conn = n.net.forPod(CLIENT_IP, { os: 'linux', searches: [] }, new Set()).connect(SERVER_IP, 80);
  assert.equal(conn.kind, 'connected');
  const get = () => conn.kind === 'connected' ? conn.exchange({ method: 'GET', target: '/', headers: [['Host', 'web']], body: new Uint8Array() }) : assert.fail();
  return { n, p, timers, counted, get };
}

test('php-apache answers once the request\'s 30 ms of CPU is done; a request in work when the process ends is reset', () => {
  const s = timedServer(hpaExample);
  const reply = s.get();
  assert.equal(reply.settled, false);
  assert.deepEqual(s.timers.map((t) => t.ms), [30]);
  assert.deepEqual(s.counted, [HPA_EXAMPLE_CPU_PER_REQUEST_NS]);
  // Apache logs a request when it has answered it.
  assert.equal(drain(s.p).stdout, '');
  s.timers[0]!.fn();
  assert.ok(reply.settled && reply.value !== 'reset');
  assert.equal(Buffer.from(reply.value.body).toString(), 'OK!');
  assert.match(drain(s.p).stdout, /"GET \/ HTTP\/1\.1" 200 176 "-" "-"\n$/);
  const cut = s.get();
  s.n.exit();
  assert.ok(cut.settled);
  assert.equal(cut.value, 'reset');
  // The timer of the reset request answers nothing.
  s.timers[1]!.fn();
  assert.equal(cut.value, 'reset');
});

test('nginx, httpd and IIS answer at once and count their light per-request CPU', () => {
  const cases: Array<[string, (ctx: AppContext) => Program, number]> = [
    ['nginx', (ctx) => nginx(ctx, { tag: 'latest', entrypoint: true }), NGINX_CPU_PER_REQUEST_NS],
    ['httpd', (ctx) => httpd(ctx, '2.4'), HTTPD_CPU_PER_REQUEST_NS],
    ['IIS', iis, IIS_CPU_PER_REQUEST_NS],
  ];
  assert.deepEqual(cases.map(([, , ns]) => ns), [100_000, 150_000, 250_000]);
  for (const [name, app, ns] of cases) {
    const s = timedServer(app);
    const reply = s.get();
    assert.ok(reply.settled, `${name} answers at once`);
    assert.deepEqual([s.timers.length, s.counted], [0, [ns]], name);
  }
});

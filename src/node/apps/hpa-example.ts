/**
 * registry.k8s.io/hpa-example, the HorizontalPodAutoscaler walkthrough's
 * php-apache image: php:5-apache with one index.php that adds sqrt($x) to
 * $x a million times and echoes `OK!`. It serves every path with that
 * script on port 80 and logs each request on stdout in Apache's combined
 * format, as the php:apache images point access.log at stdout.
 *
 * Each request costs about 30 ms of CPU (the loop: a million PHP 5 opcode
 * rounds with an internal call, tens of ns each on a current core). It is
 * an estimate, not a measurement of the image, chosen to agree with the
 * walkthrough's outcome: a wget loop waiting 10 ms between answers that
 * each take the request's CPU time sends about 1 / (10 ms + 30 ms) = 25
 * requests a second, 0.7 of a core of work, so one pod sits at its 500m
 * limit and the HPA settles near 7 replicas, as the docs show.
 *
 * Start-up: apache2-foreground execs `apache2 -DFOREGROUND`, which warns
 * twice (AH00558) that it has no ServerName, then the prefork MPM's and
 * core's notices on the error log (stderr in the php images).
 *
 * Guessed: the Server and X-Powered-By versions (php:5-apache's last
 * release: Apache 2.4.25 on Debian stretch, PHP 5.6.40) and the bytes of
 * the log line's %O (the response as the model writes it); the error log's
 * microseconds (the model's clock has milliseconds).
 */
import type { HttpResponse } from '../shell/net-types.js';
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { clfTime, httpDate, httpServer, requestLine, type Output } from './http-server.js';

export const HPA_EXAMPLE_CPU_PER_REQUEST_NS = 30_000_000;

export function hpaExampleServe(now: Date, method: string): HttpResponse {
  const body = Buffer.from(method === 'HEAD' ? '' : 'OK!');
  return {
    status: 200, reason: 'OK',
    headers: [['Date', httpDate(now)], ['Server', 'Apache/2.4.25 (Debian)'], ['X-Powered-By', 'PHP/5.6.40'],
      ['Content-Length', '3'], ['Content-Type', 'text/html; charset=UTF-8']],
    body,
  };
}

/** %O: the bytes Apache sent, status line and headers included. */
function bytesSent(r: HttpResponse): number {
  const head = `HTTP/1.1 ${r.status} ${r.reason}\r\n${r.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.byteLength(head) + r.body.length;
}

const APACHE = 'Apache/2.4.25 (Debian) PHP/5.6.40';
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Apache's error log time, `%{u}t`: `Sat Nov 28 22:05:08.123000 2026` (the container's TZ is UTC). */
export function apacheErrorTime(d: Date): string {
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `.${pad(d.getUTCMilliseconds() * 1000, 6)} ${d.getUTCFullYear()}`;
}

export function hpaExample(ctx: AppContext): Program {
  const ah00558: Output = { kind: 'stderr', text: `AH00558: apache2: Could not reliably determine the server's fully qualified domain name, using ${ctx.net?.podIP ?? '127.0.0.1'}. Set the 'ServerName' directive globally to suppress this message\n` };
  const notice = (module: string, text: string): Output => ({ kind: 'stderr', text: `[${apacheErrorTime(ctx.now())}] [${module}:notice] [pid 1] ${text}\n` });
  return httpServer(ctx, {
    ports: [80],
    startup: () => [ah00558, ah00558],
    bound: () => [notice('mpm_prefork', `AH00163: ${APACHE} configured -- resuming normal operations`), notice('core', "AH00094: Command line: 'apache2 -D FOREGROUND'")],
    bindFailed: () => ({ steps: [{ kind: 'stderr', text: '(98)Address already in use: AH00072: make_sock: could not bind to address [::]:80\n' }], code: 1 }),
    cpuPerRequestNs: HPA_EXAMPLE_CPU_PER_REQUEST_NS,
    serve: (req, conn) => {
      const response = hpaExampleServe(ctx.now(), req.method);
      const header = (name: string) => req.headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? '-';
      return {
        response,
        log: [{ kind: 'stdout', text: `${conn.client.ip} - - [${clfTime(ctx.now())}] "${requestLine(req)}" 200 ${bytesSent(response)} "${header('referer')}" "${header('user-agent')}"\n` }],
      };
    },
  });
}

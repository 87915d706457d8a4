/**
 * registry.k8s.io/hpa-example, the HorizontalPodAutoscaler walkthrough's
 * php-apache image: php:5-apache with one index.php that adds sqrt($x) to
 * $x a million times and echoes `OK!`. It serves every path with that
 * script on port 80 and logs each request on stdout in Apache's combined
 * format, as the php:apache images point access.log at stdout.
 *
 * Each request costs about 30 ms of CPU (the loop, on a current core; an
 * estimate, not a measurement of the image), which is what makes the
 * walkthrough's load generator saturate a 500m limit.
 *
 * Guessed: the Server and X-Powered-By versions (php:5-apache's last
 * release: Apache 2.4.25 on Debian stretch, PHP 5.6.40) and the bytes of
 * the log line's %O (the response as the model writes it).
 */
import type { HttpResponse } from '../shell/net-types.js';
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { clfTime, httpDate, httpServer, requestLine } from './http-server.js';

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

export function hpaExample(ctx: AppContext): Program {
  return httpServer(ctx, {
    ports: [80],
    startup: () => [],
    bound: () => [],
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

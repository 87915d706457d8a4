/**
 * agnhost liveness (test/images/agnhost/liveness/server.go): an HTTP server
 * on :8080 whose /healthz answers 200 `ok` for the first 10 seconds after
 * the process started and 500 `error: <seconds>` after, so a liveness probe
 * on it restarts the container again and again; /started answers the time
 * since start (time.Duration's String). It logs nothing but a failed bind.
 */
import { formatDuration } from '../../apimachinery/duration.js';
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { goBindError, goResponse } from './go-http.js';
import { goFloatV } from './go-strconv.js';
import { httpServer, pathOf } from './http-server.js';

const PORT = 8080;
const HEALTHY_FOR_SECONDS = 10;

/** What /healthz answers `sinceStartMs` after the process started. */
export function livenessHealthz(sinceStartMs: number): { status: number; body: string } {
  const seconds = sinceStartMs / 1000;
  return seconds > HEALTHY_FOR_SECONDS ? { status: 500, body: `error: ${goFloatV(seconds)}` } : { status: 200, body: 'ok' };
}

export function agnhostLiveness(ctx: AppContext): Program {
  const started = ctx.now().getTime();
  return httpServer(ctx, {
    ports: [PORT],
    startup: () => [],
    bound: () => [],
    bindFailed: () => ({ steps: [goBindError(ctx.now(), PORT)], code: 1 }),
    serve: (req) => {
      const now = ctx.now();
      const since = now.getTime() - started;
      switch (pathOf(req.target)) {
        case '/started': return { response: goResponse(now, 200, formatDuration(BigInt(since) * 1_000_000n)) };
        case '/healthz': { const h = livenessHealthz(since); return { response: goResponse(now, h.status, h.body) }; }
        default: return { response: goResponse(now, 404, '404 page not found\n', [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']]) };
      }
    },
  });
}

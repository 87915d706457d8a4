/**
 * registry.k8s.io/e2e-test-images/resource-consumer (ENTRYPOINT
 * ["/consumer"], on Windows ["/consumer.exe"]): a Go net/http server on
 * -port (8080) whose API (resource-consumer-api.ts) starts work on demand.
 *
 * /ConsumeCPU runs consume-cpu, which burns CPU until its own average
 * reaches the asked millicores and keeps it there for durationSec: in the
 * model, millicores/1000 of a core for each second of the run, counted
 * second by second into the container's usage as its requests' work is
 * (served-work.ts), so several runs add up and the OS caps the sum (CFS
 * quota on Linux, CpuMaximum on Windows). /BumpMetric raises a gauge for
 * durationSec. /ConsumeMem's memory (stress on Linux, testlimit.exe on
 * Windows) is not modelled: the request answers and logs as the image
 * does, the working set does not move.
 *
 * Each request itself costs Go's net/http a fraction of a millisecond: 100
 * µs is an estimate, not a measurement (the handlers only parse a query and
 * print three lines).
 */
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { goBindError, goLog, goResponse } from './go-http.js';
import { headerOf, httpServer } from './http-server.js';
import { answerConsumer, type ConsumerWork } from './resource-consumer-api.js';

export const RESOURCE_CONSUMER_CPU_PER_REQUEST_NS = 100_000;
export const RESOURCE_CONSUMER_PORT = 8080;

/** The consumer's flags (Go's flag package: `-port=N`, `--port N`); undefined for flags it does not have (it would exit 2). */
export function parseConsumerFlags(argv: readonly string[]): { port: number } | undefined {
  let port = RESOURCE_CONSUMER_PORT;
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?port(?:=(.*))?$/.exec(argv[i]!);
    if (!m) return undefined;
    const v = m[1] ?? argv[++i];
    if (v === undefined || !/^[+-]?\d+$/.test(v)) return undefined;
    port = Number(v);
  }
  return { port };
}

/**
 * Carries out a request's work on the container's clock: CPU as one
 * second's share at a time (a run ends with the container, as its child
 * process does), a metric's bump undone after its duration.
 */
function startWork(ctx: AppContext, work: ConsumerWork, metrics: Map<string, number>): void {
  if (work.kind === 'consumeCPU') {
    if (work.millicores <= 0 || work.durationSec <= 0) return;
    let second = 0;
    const burn = () => {
      ctx.served?.(work.millicores * 1_000_000);
      if (++second < work.durationSec) ctx.after?.(1000, burn);
    };
    burn();
    return;
  }
  if (work.kind === 'bumpMetric') {
    metrics.set(work.metric, (metrics.get(work.metric) ?? 0) + work.delta);
    ctx.after?.(Math.max(0, work.durationSec) * 1000, () => metrics.set(work.metric, (metrics.get(work.metric) ?? 0) - work.delta));
  }
}

export function resourceConsumer(ctx: AppContext, port: number): Program {
  const metrics = new Map<string, number>();
  return httpServer(ctx, {
    ports: [port],
    startup: () => [],
    bound: () => [],
    bindFailed: () => ({ steps: [goBindError(ctx.now(), port)], code: 1 }),
    cpuPerRequestNs: RESOURCE_CONSUMER_CPU_PER_REQUEST_NS,
    serve: (req) => {
      const contentType = headerOf(req, 'content-type');
      const answer = answerConsumer({ method: req.method, target: req.target, body: Buffer.from(req.body).toString('utf8'), ...(contentType !== undefined ? { contentType } : {}) }, metrics);
      if (answer.work) startWork(ctx, answer.work, metrics);
      const headers: [string, string][] = answer.httpError ? [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']] : [];
      return {
        response: goResponse(ctx.now(), answer.status, req.method === 'HEAD' ? '' : answer.body, headers),
        log: answer.log !== undefined ? [goLog(ctx.now(), answer.log)] : [],
      };
    },
  });
}

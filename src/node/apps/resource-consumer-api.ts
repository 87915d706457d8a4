/**
 * The HTTP API of registry.k8s.io/e2e-test-images/resource-consumer, the
 * image upstream's HPA e2e tests scale (kubernetes/kubernetes
 * test/images/resource-consumer, resource_consumer_handler.go and
 * common/common.go): what each request answers, what the consumer logs,
 * and the work it starts. Pure: the program (resource-consumer.ts) carries
 * out the work and keeps the metrics.
 *
 * `/Metrics` (any method) lists the bumped metrics in Prometheus' text
 * format; every other path wants a POST (else 400 `Bad request. Not a POST
 * request`), then ParseForm, then `/ConsumeCPU?millicores=&durationSec=`,
 * `/ConsumeMem?megabytes=&durationSec=`, `/GetCurrentStatus`,
 * `/BumpMetric?metric=&delta=&durationSec=`, else 404 `unknown function:
 * <path>`. Errors are http.Error's (the text and a newline, text/plain,
 * nosniff). The work runs in a goroutine that logs (utils_common.go,
 * utils.go, utils_windows.go: `ConsumeCPU millicores: N, durationSec: S`).
 */
import { goAtoi, goFloatF, goFloatV, goParseFloat } from './go-strconv.js';
import { formGet, parseGoForm } from './go-form.js';
import { pathOf } from './http-server.js';

export const BAD_REQUEST = 'Bad request. Not a POST request';
export const UNKNOWN_FUNCTION = 'unknown function';
export const INCORRECT_FUNCTION_ARGUMENT = 'incorrect function argument';
export const NOT_GIVEN_FUNCTION_ARGUMENT = 'not given function argument';

export interface ConsumerRequest {
  method: string;
  /** Path and query as sent. */
  target: string;
  contentType?: string;
  body: string;
}

/** The work a request starts. Counts are Go ints (int64); the model acts on them as numbers. */
export type ConsumerWork =
  | { kind: 'consumeCPU'; millicores: number; durationSec: number }
  | { kind: 'consumeMem'; megabytes: number; durationSec: number }
  | { kind: 'bumpMetric'; metric: string; delta: number; durationSec: number };

export interface ConsumerAnswer {
  status: number;
  body: string;
  /** Written by http.Error: Content-Type text/plain and X-Content-Type-Options nosniff set by the handler. */
  httpError: boolean;
  /** What the handling goroutine logs (the log package's line without its time). */
  log?: string;
  work?: ConsumerWork;
}

const fail = (status: number, text: string): ConsumerAnswer => ({ status, body: `${text}\n`, httpError: true });
const ok = (body: string, log?: string, work?: ConsumerWork): ConsumerAnswer =>
  ({ status: 200, body, httpError: false, ...(log !== undefined ? { log } : {}), ...(work ? { work } : {}) });

/** handleMetrics: each gauge's HELP, TYPE and `%f` value (Go ranges over a map; the model lists by name). */
export function metricsText(metrics: ReadonlyMap<string, number>): string {
  return [...metrics.keys()].sort().map((k) => `# HELP ${k} info message.\n# TYPE ${k} gauge\n${k} ${goFloatF(metrics.get(k)!)}\n`).join('');
}

export function answerConsumer(req: ConsumerRequest, metrics: ReadonlyMap<string, number>): ConsumerAnswer {
  const path = pathOf(req.target);
  if (path === '/Metrics') return ok(metricsText(metrics));
  if (req.method !== 'POST') return fail(400, BAD_REQUEST);
  const form = parseGoForm(req);
  if (form.error !== undefined) return fail(400, form.error);
  const get = (key: string) => formGet(form, key);
  switch (path) {
    case '/ConsumeCPU': {
      const [durationSec, millicores] = [get('durationSec'), get('millicores')];
      if (durationSec === '' || millicores === '') return fail(400, NOT_GIVEN_FUNCTION_ARGUMENT);
      const [d, m] = [goAtoi(durationSec), goAtoi(millicores)];
      if (d === undefined || m === undefined) return fail(400, INCORRECT_FUNCTION_ARGUMENT);
      return ok(`ConsumeCPU\n${m} millicores\n${d} durationSec\n`, `ConsumeCPU millicores: ${m}, durationSec: ${d}`,
        { kind: 'consumeCPU', millicores: Number(m), durationSec: Number(d) });
    }
    case '/ConsumeMem': {
      const [durationSec, megabytes] = [get('durationSec'), get('megabytes')];
      if (durationSec === '' || megabytes === '') return fail(400, NOT_GIVEN_FUNCTION_ARGUMENT);
      const [d, mb] = [goAtoi(durationSec), goAtoi(megabytes)];
      if (d === undefined || mb === undefined) return fail(400, INCORRECT_FUNCTION_ARGUMENT);
      return ok(`ConsumeMem\n${mb} megabytes\n${d} durationSec\n`, `ConsumeMem megabytes: ${mb}, durationSec: ${d}`,
        { kind: 'consumeMem', megabytes: Number(mb), durationSec: Number(d) });
    }
    case '/GetCurrentStatus':
      return ok('Warning: not implemented!\nGetCurrentStatus', 'GetCurrentStatus');
    case '/BumpMetric': {
      const [metric, delta, durationSec] = [get('metric'), get('delta'), get('durationSec')];
      if (durationSec === '' || metric === '' || delta === '') return fail(400, NOT_GIVEN_FUNCTION_ARGUMENT);
      const [d, x] = [goAtoi(durationSec), goParseFloat(delta)];
      if (d === undefined || x === undefined) return fail(400, INCORRECT_FUNCTION_ARGUMENT);
      // bumpMetric logs nothing.
      return { ...ok(`BumpMetric\n${metric} metric\n${goFloatV(x)} delta\n${d} durationSec\n`), work: { kind: 'bumpMetric', metric, delta: x, durationSec: Number(d) } };
    }
    default:
      return fail(404, `${UNKNOWN_FUNCTION}: ${path}`);
  }
}

/**
 * The `winkube.io/script` pod annotation: scripted behaviour for what the
 * shell model cannot know (an application's exit code and timing, its
 * memory use, its probe answers). JSON, keyed by container name (`*` for
 * every container):
 *
 *   {"app": {"exitCode": 1, "runSeconds": 5,
 *            "memory": "600Mi", "memoryAfterSeconds": 2,
 *            "cpu": [[0, "100m"], [60, "900m"]],
 *            "readiness": "fail", "liveness": {"failAfterSeconds": 30}, "startup": "pass",
 *            "listen": [8080], "sigterm": "ignore", "stdout": ["started"],
 *            "http": {"port": 8080, "status": 200, "body": "hello\n"}}}
 *
 * - exitCode / runSeconds: the container writes `stdout` lines, runs
 *   runSeconds (0 = exits at once) and exits with exitCode; a list of exit
 *   codes is indexed by restart count (the last one repeats). Without
 *   exitCode the command runs as the shell model interprets it.
 * - cpu / memory: what the container demands (src/node/usage): a quantity
 *   from cpuAfterSeconds / memoryAfterSeconds on (idle before), or a ramp,
 *   a list of [seconds, quantity] points joined by straight lines (idle
 *   before the first point, the last value held). CPU is capped at the
 *   limit (Linux CFS quota, Windows CpuMaximum); memory above
 *   limits.memory OOM-kills a Linux container (137) and is paged on
 *   Windows (the working set stays at the limit, nothing is killed).
 * - readiness / liveness / startup: "pass", "fail", or
 *   {"failAfterSeconds": n} / {"passAfterSeconds": n} counted from start;
 *   overrides what the probe would find.
 * - listen: ports the container accepts connections on (httpGet,
 *   tcpSocket, grpc probes).
 * - sigterm: "ignore" (runs until the grace period ends) or "exit" (exits
 *   0 at once).
 * - http: the container's process answers HTTP on `port` (80) with
 *   `status` (200), `body` and `contentType` (text/plain; charset=utf-8)
 *   while it runs (apps/scripted-http.ts); an image server the model knows
 *   (nginx, agnhost...) is then not started.
 */
import { parseQuantity } from '../../apimachinery/quantity.js';
import { milliValue, value } from '../../meta/resource-lists.js';
import { parseHttpScript, type HttpScript } from '../apps/scripted-http.js';
import type { Demand } from '../usage/demand.js';

export const SCRIPT_ANNOTATION = 'winkube.io/script';

export type ProbeScript = 'pass' | 'fail' | { failAfterSeconds: number } | { passAfterSeconds: number };

export interface ContainerScript {
  exitCode?: number | number[];
  runSeconds?: number;
  /** CPU demand in nanocores. */
  cpu?: Demand;
  /** Memory demand in bytes. */
  memory?: Demand;
  readiness?: ProbeScript;
  liveness?: ProbeScript;
  startup?: ProbeScript;
  listen?: number[];
  sigterm?: 'ignore' | 'exit';
  stdout?: string[];
  http?: HttpScript;
}

/** The script for one container, or undefined (bad JSON is ignored, as an unknown annotation would be). */
export function containerScript(annotations: Record<string, string> | undefined, container: string): ContainerScript | undefined {
  const raw = annotations?.[SCRIPT_ANNOTATION];
  if (!raw) return undefined;
  let all: Record<string, any>;
  try { all = JSON.parse(raw); } catch { return undefined; }
  if (!all || typeof all !== 'object') return undefined;
  const s = all[container] ?? all['*'];
  if (!s || typeof s !== 'object') return undefined;
  const out: ContainerScript = {};
  if (typeof s.exitCode === 'number' || (Array.isArray(s.exitCode) && s.exitCode.every((x: unknown) => typeof x === 'number'))) out.exitCode = s.exitCode;
  if (typeof s.runSeconds === 'number') out.runSeconds = s.runSeconds;
  const cpu = demand(s.cpu, s.cpuAfterSeconds, (q) => Number(milliValue(parseQuantity(q))) * 1e6);
  if (cpu) out.cpu = cpu;
  const memory = demand(s.memory, s.memoryAfterSeconds, (q) => Number(value(parseQuantity(q))));
  if (memory) out.memory = memory;
  for (const p of ['readiness', 'liveness', 'startup'] as const) {
    const v = s[p];
    if (v === 'pass' || v === 'fail' || (v && typeof v === 'object' && (typeof v.failAfterSeconds === 'number' || typeof v.passAfterSeconds === 'number'))) out[p] = v;
  }
  if (Array.isArray(s.listen)) out.listen = s.listen.filter((x: unknown) => typeof x === 'number');
  if (s.sigterm === 'ignore' || s.sigterm === 'exit') out.sigterm = s.sigterm;
  if (Array.isArray(s.stdout)) out.stdout = s.stdout.map(String);
  const http = parseHttpScript(s.http);
  if (http) out.http = http;
  return out;
}

/** A `cpu` or `memory` entry: a quantity (from afterSeconds on) or a ramp of [seconds, quantity] points; undefined when malformed. */
function demand(raw: unknown, afterSeconds: unknown, amount: (q: string | number) => number): Demand | undefined {
  const isQuantity = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';
  try {
    if (isQuantity(raw)) return { kind: 'step', atSeconds: typeof afterSeconds === 'number' ? afterSeconds : 0, value: amount(raw) };
    if (!Array.isArray(raw) || !raw.length) return undefined;
    const points: Array<[number, number]> = [];
    for (const p of raw as unknown[]) {
      if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'number' || !isQuantity(p[1])) return undefined;
      points.push([p[0], amount(p[1])]);
    }
    return { kind: 'ramp', points };
  } catch {
    return undefined;
  }
}

/** The scripted exit code of an attempt (restartCount), undefined when not scripted. */
export function scriptedExitCode(s: ContainerScript | undefined, restartCount: number): number | undefined {
  if (!s || s.exitCode === undefined) return undefined;
  if (typeof s.exitCode === 'number') return s.exitCode;
  return s.exitCode.length ? s.exitCode[Math.min(restartCount, s.exitCode.length - 1)] : undefined;
}

/** A scripted probe outcome at `sinceStartMs`, undefined when not scripted. */
export function scriptedProbe(p: ProbeScript | undefined, sinceStartMs: number): boolean | undefined {
  if (p === undefined) return undefined;
  if (p === 'pass') return true;
  if (p === 'fail') return false;
  if ('failAfterSeconds' in p) return sinceStartMs < p.failAfterSeconds * 1000;
  return sinceStartMs >= p.passAfterSeconds * 1000;
}

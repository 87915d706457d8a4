/**
 * The `winkube.io/script` pod annotation: scripted behaviour for what the
 * shell model cannot know (an application's exit code and timing, its
 * memory use, its probe answers). JSON, keyed by container name (`*` for
 * every container):
 *
 *   {"app": {"exitCode": 1, "runSeconds": 5,
 *            "memory": "600Mi", "memoryAfterSeconds": 2,
 *            "readiness": "fail", "liveness": {"failAfterSeconds": 30}, "startup": "pass",
 *            "listen": [8080], "sigterm": "ignore", "stdout": ["started"],
 *            "http": {"port": 8080, "status": 200, "body": "hello\n"}}}
 *
 * - exitCode / runSeconds: the container writes `stdout` lines, runs
 *   runSeconds (0 = exits at once) and exits with exitCode; a list of exit
 *   codes is indexed by restart count (the last one repeats). Without
 *   exitCode the command runs as the shell model interprets it.
 * - memory: working set reached after memoryAfterSeconds; above
 *   limits.memory a Linux container is OOMKilled (137); Windows does not
 *   kill (job objects fail allocations instead).
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
import { value } from '../../meta/resource-lists.js';
import { parseHttpScript, type HttpScript } from '../apps/scripted-http.js';

export const SCRIPT_ANNOTATION = 'winkube.io/script';

export type ProbeScript = 'pass' | 'fail' | { failAfterSeconds: number } | { passAfterSeconds: number };

export interface ContainerScript {
  exitCode?: number | number[];
  runSeconds?: number;
  memoryBytes?: number;
  memoryAfterSeconds?: number;
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
  if (typeof s.memory === 'string' || typeof s.memory === 'number') {
    try { out.memoryBytes = Number(value(parseQuantity(s.memory))); } catch { /* ignored */ }
  }
  if (typeof s.memoryAfterSeconds === 'number') out.memoryAfterSeconds = s.memoryAfterSeconds;
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

/**
 * agnhost logs-generator (test/images/agnhost/logs-generator/logs_generator.go):
 * `--log-lines-total N --run-duration D` (or -t, -d) writes N apiserver-like
 * lines through klog.Info, one at start and then one per tick of a
 * D/N ticker, waits the last tick and exits 0. klog writes to stderr:
 * `I1129 05:28:31.514123       1 logs_generator.go:76] 7 GET /api/v1/namespaces/ns/pods/xk2 404`
 * (severity and date, time to the microsecond, the pid (agnhost is the
 * container's pid 1) right-aligned in 7 columns, the source line).
 * A missing or non-positive count or duration is klog.Fatalf (exit 255);
 * the goroutine dump klog.Fatalf appends is not written.
 */
import { formatDuration, parseGoDuration } from '../../apimachinery/duration.js';
import type { Program, Step } from '../shell/types.js';
import { klogLine } from './go-klog.js';

const METHODS = ['GET', 'POST', 'PUT'];
const NAMESPACES = ['kube-system', 'default', 'ns'];
/** k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no confusable digits. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** A random integer in [0, n) from a source of [0, 1). */
const intn = (random: () => number, n: number) => Math.floor(random() * n);

/** generateLogLine: `<id> <method> /api/v1/namespaces/<ns>/pods/<3-4 chars> <status 200-599>`. */
export function logLine(id: number, random: () => number): string {
  const method = METHODS[intn(random, METHODS.length)]!;
  const namespace = NAMESPACES[intn(random, NAMESPACES.length)]!;
  const len = 3 + intn(random, 2);
  let pod = '';
  for (let i = 0; i < len; i++) pod += ALPHANUMS[intn(random, ALPHANUMS.length)];
  const status = 200 + intn(random, 400);
  return `${id} ${method} /api/v1/namespaces/${namespace}/pods/${pod} ${status}`;
}

export interface LogsGeneratorFlags { linesTotal: number; durationNs: bigint }

/**
 * The flags as cobra sets them (unset: 0), or pflag's error for a value
 * that does not parse (cobra then prints the usage, not written here).
 */
export function logsGeneratorFlags(flags: ReadonlyMap<string, string>): LogsGeneratorFlags | { error: string } {
  const total = flags.get('log-lines-total') ?? flags.get('t') ?? '0';
  const duration = flags.get('run-duration') ?? flags.get('d') ?? '0';
  if (!/^[+-]?\d+$/.test(total)) return { error: `Error: invalid argument ${JSON.stringify(total)} for "-t, --log-lines-total" flag: strconv.ParseInt: parsing ${JSON.stringify(total)}: invalid syntax\n` };
  try {
    return { linesTotal: Number(total), durationNs: parseGoDuration(duration) };
  } catch (e) {
    return { error: `Error: invalid argument ${JSON.stringify(duration)} for "-d, --run-duration" flag: ${(e as Error).message}\n` };
  }
}

export function logsGenerator(f: LogsGeneratorFlags | { error: string }, now: () => Date, random: () => number = Math.random): Program {
  function* run(): Generator<Step, void> {
    if ('error' in f) {
      yield { kind: 'stderr', text: f.error };
      yield { kind: 'exit', code: 1 };
      return;
    }
    if (f.linesTotal <= 0) {
      yield klogLine('F', now(), 'logs_generator.go:64', `Invalid total number of lines: ${f.linesTotal}`);
      yield { kind: 'exit', code: 255 };
      return;
    }
    if (f.durationNs <= 0n) {
      yield klogLine('F', now(), 'logs_generator.go:68', `Invalid duration: ${formatDuration(f.durationNs)}`);
      yield { kind: 'exit', code: 255 };
      return;
    }
    // time.Duration division truncates to the nanosecond; the model's clock counts milliseconds.
    const delayMs = Number(f.durationNs / BigInt(f.linesTotal)) / 1e6;
    for (let id = 0; id < f.linesTotal; id++) {
      yield klogLine('I', now(), 'logs_generator.go:76', logLine(id, random));
      yield { kind: 'sleep', ms: delayMs };
    }
    yield { kind: 'exit', code: 0 };
  }
  return run();
}

/**
 * How a Go program that logs with k8s.io/klog writes a line to stderr (agnhost's webhooks, the
 * sample API server): `Lmmdd hh:mm:ss.uuuuuu threadid file:line] message`, the severity letter
 * first, the thread id field the process id padded to seven columns. A container's main process
 * is pid 1.
 */
import type { Output } from './http-server.js';

export type KlogSeverity = 'I' | 'W' | 'E' | 'F';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** klog's header for a line logged at `now` from `source` (`file.go:123`). */
export function klogHeader(severity: KlogSeverity, now: Date, source: string, pid = 1): string {
  // The model's clock has milliseconds; the microseconds' last three digits are zero.
  const time = `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds(), 3)}000`;
  return `${severity}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ${time} ${String(pid).padStart(7)} ${source}] `;
}

/** One klog line; a message without a final newline gets one, as klog adds it. */
export function klogLine(severity: KlogSeverity, now: Date, source: string, message: string): Output {
  const text = klogHeader(severity, now, source) + message;
  return { kind: 'stderr', text: text.endsWith('\n') ? text : `${text}\n` };
}

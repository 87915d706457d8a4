/**
 * A terminated container's message (kuberuntime_container.go:
 * getTerminationMessage, readLastStringFromContainerLogs): the file at
 * terminationMessagePath, at most 4096 bytes; with FallbackToLogsOnError and
 * a non-zero exit, when the file is missing or empty, the last 80 lines of
 * the container's log, at most its last 2048 bytes, exactly as written.
 */
const MAX_FILE_BYTES = 4 * 1024;
const MAX_LOG_LINES = 80;
const MAX_LOG_BYTES = 2048;

export interface TerminationInput {
  policy: string | undefined;
  exitCode: number;
  reason: string;
  /** The file at terminationMessagePath, undefined when the container did not write it. */
  file: string | undefined;
  /** Everything the container wrote to stdout and stderr, interleaved as written (its last part suffices). */
  output: string;
}

/** tail.ReadAtMost: the last `max` bytes. */
function lastBytes(text: string, max: number): string {
  const b = Buffer.from(text, 'utf8');
  return b.length <= max ? text : b.subarray(b.length - max).toString('utf8');
}

/** The last `n` lines of a log (a final line without a newline counts as one). */
export function tailLines(text: string, n: number): string {
  let end = text.length;
  if (text.endsWith('\n')) end--;
  let start = end;
  for (let seen = 0; start > 0; start--) {
    if (text[start - 1] === '\n' && ++seen === n) break;
  }
  return text.slice(start);
}

export function terminationMessage(t: TerminationInput): string {
  // A container that could not even start has no logs to fall back to.
  const fallback = t.policy === 'FallbackToLogsOnError' && t.exitCode !== 0 && t.reason !== 'ContainerCannotRun';
  const file = t.file === undefined ? '' : lastBytes(t.file, MAX_FILE_BYTES);
  if (file.length || !fallback) return file;
  return lastBytes(tailLines(t.output, MAX_LOG_LINES), MAX_LOG_BYTES);
}

/** The tail of a container's output the fallback may need, kept as it is written. */
export function keepOutputTail(tail: string, text: string): string {
  const joined = tail + text;
  return joined.length > 4 * MAX_LOG_BYTES ? joined.slice(joined.length - 4 * MAX_LOG_BYTES) : joined;
}

/**
 * A followed log as lines: the stream's chunks end anywhere (mid-line, mid-character is handled by the
 * decoder), so the unfinished tail waits for the next chunk; the page keeps the newest lines only.
 */
export interface LogState { lines: string[]; partial: string }

export const EMPTY_LOG: LogState = { lines: [], partial: '' };

export function appendLog(state: LogState, chunk: string, keep = 2000): LogState {
  const parts = (state.partial + chunk).split('\n');
  const partial = parts.pop() ?? '';
  const lines = parts.length ? [...state.lines, ...parts.map((l) => l.replace(/\r$/, ''))] : state.lines;
  return { lines: lines.length > keep ? lines.slice(lines.length - keep) : lines, partial };
}

/** What the page shows: every complete line, then the tail when the stream ended without a newline. */
export function shownLines(state: LogState): string[] {
  return state.partial ? [...state.lines, state.partial] : state.lines;
}

/** The kubelet's log path for one container, following (kubectl logs -f -c NAME). */
export function logPath(namespace: string, pod: string, container: string, follow: boolean): string {
  const q = new URLSearchParams({ container, ...(follow ? { follow: 'true' } : {}) });
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log?${q.toString()}`;
}

import { parseBool } from '../query.js';
import type { StreamOptions } from '../../streaming/remotecommand.js';

/**
 * Parses exec/attach options from the query. The API server reads them as
 * PodExecOptions booleans; the kubelet then drops stderr under a TTY and
 * refuses a request with no stream at all.
 */
export function parseStreamOptions(q: URLSearchParams): StreamOptions | { error: string } {
  const tty = parseBool(q.get('tty'), 'tty') === true;
  const stdin = parseBool(q.get('stdin'), 'stdin') === true;
  const stdout = parseBool(q.get('stdout'), 'stdout') === true;
  let stderr = parseBool(q.get('stderr'), 'stderr') === true;
  if (tty && stderr) stderr = false;
  if (!stdin && !stdout && !stderr) return { error: 'you must specify at least 1 of stdin, stdout, stderr' };
  return { stdin, stdout, stderr, tty };
}

/**
 * `winkube net check FROM TO[:PORT]`: asks the running server for the trace
 * of one TCP connection through its network model and prints the hops, one
 * a line, then how it ended (connected, refused, timeout, outside). The exit
 * code is 0 only when it connects, so scripts can assert a path.
 */
import { callControl, describeFailure, kubeconfigPath, targetFromKubeconfig } from '../control/client.js';
import type { NetTrace } from './route-trace.js';

export const NET_CHECK_PATH = '/winkube/v1/net/check';

/** TO[:PORT]: the port after the last colon (80 when none). */
export function splitTarget(to: string): { to: string; port: number } | undefined {
  const m = /^(.*?)(?::(\d+))?$/.exec(to);
  if (!m?.[1]) return undefined;
  const port = m[2] === undefined ? 80 : Number(m[2]);
  return port >= 1 && port <= 65535 ? { to: m[1], port } : undefined;
}

export function formatTrace(t: NetTrace): string {
  return [...t.hops, t.result].join('\n') + '\n';
}

export async function netCheck(from: string, target: string, opts: { namespace?: string; dataDir?: string; kubeconfig?: string }):
  Promise<{ out: string; err: string; code: number }> {
  const t = splitTarget(target);
  if (!t) return { out: '', err: `error: invalid target ${JSON.stringify(target)}: want ADDRESS[:PORT]\n`, code: 1 };
  const q = new URLSearchParams({ from, to: t.to, port: String(t.port), ...(opts.namespace ? { namespace: opts.namespace } : {}) });
  const r = await callControl(targetFromKubeconfig(kubeconfigPath(opts)), 'GET', `${NET_CHECK_PATH}?${q}`);
  if (r.status !== 200) return { out: '', err: `${describeFailure(r)}\n`, code: 1 };
  const trace = r.body as NetTrace;
  return { out: formatTrace(trace), err: '', code: trace.result === 'connected' ? 0 : 1 };
}

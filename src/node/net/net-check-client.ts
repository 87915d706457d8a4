/**
 * `winkube net check FROM TO[:PORT]`: asks the running server for the trace
 * of one TCP connection through its network model and prints the hops, one
 * a line, then how it ended (connected, refused, timeout, outside). With
 * `--protocol icmp`, the trace of one echo (reply or timeout). The exit code
 * is 0 only when it connects or is answered, so scripts can assert a path.
 */
import { callControl, describeFailure, kubeconfigPath, targetFromKubeconfig } from '../control/client.js';
import type { EchoTrace, NetTrace } from './route-trace.js';
import { invalidTargetMessage, parseNetTarget } from './net-target.js';

export const NET_CHECK_PATH = '/winkube/v1/net/check';

export function formatTrace(t: NetTrace | EchoTrace): string {
  return [...t.hops, t.result].join('\n') + '\n';
}

export async function netCheck(from: string, target: string, opts: { namespace?: string; dataDir?: string; kubeconfig?: string; protocol?: string }):
  Promise<{ out: string; err: string; code: number }> {
  const protocol = opts.protocol ?? 'tcp';
  if (protocol !== 'tcp' && protocol !== 'icmp') return { out: '', err: `error: unsupported protocol ${JSON.stringify(protocol)}: want tcp or icmp\n`, code: 1 };
  const t = parseNetTarget(target, protocol);
  if (!t) return { out: '', err: `${invalidTargetMessage(target, protocol)}\n`, code: 1 };
  const q = new URLSearchParams({
    from, to: t.to, ...('port' in t ? { port: String(t.port) } : { protocol }), ...(opts.namespace ? { namespace: opts.namespace } : {}),
  });
  const r = await callControl(targetFromKubeconfig(kubeconfigPath(opts)), 'GET', `${NET_CHECK_PATH}?${q}`);
  if (r.status !== 200) return { out: '', err: `${describeFailure(r)}\n`, code: 1 };
  const trace = r.body as NetTrace | EchoTrace;
  return { out: formatTrace(trace), err: '', code: trace.result === 'connected' || trace.result === 'reply' ? 0 : 1 };
}

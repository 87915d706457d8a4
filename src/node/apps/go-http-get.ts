/**
 * A Go program's http.Client GET through the pod's network (what agnhost's
 * subcommands dial each other with): the name resolved by the pod's
 * resolver, the connection routed by the cluster network, the body or the
 * *url.Error's text (`Get "<url>": <cause>`) as Go prints it.
 */
import { CLUSTER_DNS_IP } from '../network.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import type { HttpReply, PodNetAccess } from '../shell/net-types.js';
import { Pending } from '../shell/pending.js';

export type GoGetResult = { ok: true; status: number; body: string } | { ok: false; error: string };

/** net.Dial's lookup failure for a name the cluster DNS does not know. */
export function goLookupError(network: 'tcp' | 'udp', host: string): string {
  return `dial ${network}: lookup ${host} on ${CLUSTER_DNS_IP}:53: no such host`;
}

/**
 * GET http://host:port/request (`target` is the path and query, without
 * the leading slash as the callers format it); `timeoutMs` is the client's
 * Timeout, run on `after` (the node's clock).
 */
export function goHttpGet(net: PodNetAccess | undefined, host: string, port: number, target: string, timeoutMs: number,
  after: ((ms: number, fn: () => void) => void) | undefined): Pending<GoGetResult> {
  const url = `http://${host}:${port}/${target}`;
  const fail = (cause: string) => Pending.of<GoGetResult>({ ok: false, error: `Get ${goQuote(url)}: ${cause}` });
  const ip = net?.resolve(host)?.[0];
  if (!net || ip === undefined) return fail(goLookupError('tcp', host));
  const conn = net.connect(ip, port);
  const timedOut = `context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  if (conn.kind === 'refused') return fail(`dial tcp ${ip}:${port}: connect: connection refused`);
  const result = new Pending<GoGetResult>();
  after?.(timeoutMs, () => result.settle({ ok: false, error: `Get ${goQuote(url)}: ${timedOut}` }));
  if (conn.kind === 'timeout') return result;
  const reply = conn.exchange({
    method: 'GET', target: `/${target}`,
    headers: [['Host', `${host}:${port}`], ['User-Agent', 'Go-http-client/1.1'], ['Accept-Encoding', 'gzip']],
    body: new Uint8Array(),
  });
  reply.onSettle(() => {
    const r: HttpReply = reply.value;
    result.settle(r === 'reset' ? { ok: false, error: `Get ${goQuote(url)}: EOF` } : { ok: true, status: r.status, body: Buffer.from(r.body).toString('utf8') });
  });
  return result;
}

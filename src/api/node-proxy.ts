/**
 * The nodes/proxy subresource (pkg/registry/core/node/rest/proxy.go
 * ProxyREST.Connect): the API server finds the node's kubelet endpoint
 * (node.ResourceLocation: the preferred address, kubeadm's
 * InternalIP,ExternalIP,Hostname order, and status.daemonEndpoints'
 * kubelet port, 10250 when unset) and passes the request to that kubelet,
 * answering with what the kubelet answers. A kubelet that does not answer
 * makes the proxy transport's 503 (apimachinery util/proxy transport.go:
 * `error trying to reach service: <dial error>`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../registry/store.js';
import { errors, StatusError } from '../apimachinery/errors.js';
import { splitSchemeNamePort } from '../registry/core/proxy-location.js';

/** A kubelet's answer to one request on its port. */
export interface KubeletResponse { status: number; headers: Record<string, string>; body: string }

/** A running kubelet's server: answers a request for a path below its root. */
export type KubeletServer = (path: string, query: URLSearchParams, now: Date, method: string) => Promise<KubeletResponse>;

/** The kubelets this process runs: a node's server while its kubelet runs, undefined otherwise. */
export type KubeletServers = (nodeName: string) => KubeletServer | undefined;

const DEFAULT_KUBELET_PORT = 10250;
const PREFERRED_ADDRESS_TYPES = ['InternalIP', 'ExternalIP', 'Hostname'];
const NODE_PROXY = /^\/api\/v1\/nodes\/([^/]*)\/proxy(\/.*)?$/;

/** The node and proxied path a `/api/v1/nodes/NAME/proxy[/path]` URL names, or undefined for any other path. */
export function matchNodeProxy(decodedPath: string): { id: string; path: string } | undefined {
  const m = NODE_PROXY.exec(decodedPath);
  if (!m || !m[1]) return undefined;
  return { id: m[1], path: m[2] ?? '' };
}

interface NodeLike { status?: { addresses?: Array<{ type: string; address: string }>; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } }

export async function serveNodeProxy(req: IncomingMessage, res: ServerResponse, store: Store, kubelets: KubeletServers,
  id: string, path: string, query: URLSearchParams): Promise<void> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid node request ${JSON.stringify(id)}`);
  const node = (await store.get('', 'nodes', '', parsed.name)) as NodeLike | undefined;
  if (!node) throw errors.notFound({ group: '', resource: 'nodes' }, parsed.name);
  const addresses = node.status?.addresses ?? [];
  const host = PREFERRED_ADDRESS_TYPES.map((t) => addresses.find((a) => a.type === t)?.address).find((a) => a);
  if (!host) {
    // nodeutil.NoMatchError, an error that is no Status: a 500 with its text.
    throw errors.unknown(`no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
  }
  const kubeletPort = String(node.status?.daemonEndpoints?.kubeletEndpoint?.Port || DEFAULT_KUBELET_PORT);
  const port = parsed.port || kubeletPort;
  const kubelet = port === kubeletPort ? kubelets(parsed.name) : undefined;
  if (!kubelet) {
    // Nothing listens there: the kubelet is stopped (or the node has none this cluster runs).
    throw new StatusError({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `error trying to reach service: dial tcp ${host}:${port}: connect: connection refused`,
      reason: 'ServiceUnavailable', code: 503,
    });
  }
  // net.JoinPreservingTrailingSlash("", path): the kubelet sees the path below .../proxy, rooted.
  const kubeletPath = path.startsWith('/') ? path : `/${path}`;
  const answer = await kubelet(kubeletPath, query, new Date(), req.method ?? 'GET');
  res.writeHead(answer.status, { ...answer.headers, 'Content-Length': Buffer.byteLength(answer.body) });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

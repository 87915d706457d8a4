/**
 * `winkube net check`'s server side: the trace of one TCP connection (or,
 * with protocol=icmp, one echo) through the running kubelets' network model,
 * admin-only like node control.
 *
 *   GET /winkube/v1/net/check?from=FROM&to=TO&port=N&namespace=NS[&protocol=tcp|icmp]
 *
 * FROM and TO name an address: an IPv4 literal, `node/NAME` (its
 * InternalIP), `svc/NAME` (its ClusterIP; TO only), `NS/NAME` or `NAME` (a
 * pod's IP; a bare NAME that is no pod in NS may be a node).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { User } from '../api/auth.js';
import { writeJSON } from '../api/respond.js';
import { StatusError, errors } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { ClusterNetwork } from '../node/net/cluster-network.js';
import { NET_CHECK_PATH } from '../node/net/net-check-client.js';

export { NET_CHECK_PATH };

type Get = (resource: 'pods' | 'nodes' | 'services', namespace: string, name: string) => Promise<KObject | undefined>;

const notFound = (resource: string, name: string) => errors.notFound({ group: '', resource }, name);

const forbidden = (user: User) => new StatusError({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden',
  message: `User "${user.name}" cannot check winkube network paths: only members of system:masters can`,
  details: { group: 'winkube.io', kind: 'net' },
});

type Obj = { status?: { podIP?: string; addresses?: { type: string; address: string }[] }; spec?: { clusterIP?: string } };

async function address(get: Get, spec: string, namespace: string, allowService: boolean): Promise<string> {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(spec)) return spec;
  const nodeIP = (o: KObject | undefined) => (o as Obj | undefined)?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  const slash = spec.indexOf('/');
  const [kind, name] = slash < 0 ? ['', spec] : [spec.slice(0, slash), spec.slice(slash + 1)];
  if (kind === 'node') {
    const ip = nodeIP(await get('nodes', '', name));
    if (!ip) throw notFound('nodes', name);
    return ip;
  }
  if (kind === 'svc' && allowService) {
    const ip = (await get('services', namespace, name) as Obj | undefined)?.spec?.clusterIP;
    if (!ip || ip === 'None') throw notFound('services', name);
    return ip;
  }
  const ns = kind || namespace;
  const pod = await get('pods', ns, name) as Obj | undefined;
  if (pod?.status?.podIP) return pod.status.podIP;
  if (!pod && !kind) { const ip = nodeIP(await get('nodes', '', name)); if (ip) return ip; }
  if (pod) throw errors.badRequest(`pod ${ns}/${name} has no IP yet`);
  throw notFound('pods', name);
}

export function netCheckHandler(network: () => ClusterNetwork | undefined, get: Get) {
  return async (req: IncomingMessage, res: ServerResponse, _path: string, user: User): Promise<void> => {
    if (!user.groups.includes('system:masters')) throw forbidden(user);
    if ((req.method ?? 'GET') !== 'GET') throw errors.methodNotAllowed();
    const q = new URL(req.url ?? '/', 'https://winkube').searchParams;
    const from = q.get('from');
    const to = q.get('to');
    const protocol = q.get('protocol') ?? 'tcp';
    const port = Number(q.get('port') ?? '80');
    if (!from || !to) throw errors.badRequest('from and to are required');
    if (protocol !== 'tcp' && protocol !== 'icmp') throw errors.badRequest(`unsupported protocol ${JSON.stringify(protocol)}: tcp or icmp`);
    if (protocol === 'icmp' && q.has('port')) throw errors.badRequest('an ICMP echo has no port');
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw errors.badRequest(`invalid port ${q.get('port')}`);
    const net = network();
    if (!net) throw errors.badRequest('this server runs no nodes (--api-only)');
    const namespace = q.get('namespace') || 'default';
    const [fromIP, toIP] = [await address(get, from, namespace, false), await address(get, to, namespace, true)];
    if (protocol === 'icmp') return writeJSON(res, 200, { from: fromIP, to: toIP, ...net.traceEcho(fromIP, toIP) });
    writeJSON(res, 200, { from: fromIP, to: `${toIP}:${port}`, ...net.trace(fromIP, toIP, port) });
  };
}

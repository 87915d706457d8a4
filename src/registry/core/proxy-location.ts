/**
 * Where pods/proxy and services/proxy send a request: the REST storages'
 * ResourceLocation (pkg/registry/core/pod/strategy.go and
 * pkg/registry/core/service/storage/storage.go). The id in the URL is
 * `name`, `name:port` or `scheme:name:port`; a pod's port defaults to its
 * first declared container port; a Service's port is a port name (a number
 * is mapped to the name of the Service port that has it) and the request
 * goes to one of its ready endpoint addresses that is a pod that has the
 * address.
 */
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { errors, StatusError } from '../../apimachinery/errors.js';
import type { KObject } from '../../apimachinery/object.js';
import { goQuote } from '../../apimachinery/go-quote.js';

/** Reads one object of the core group (the store's get). */
export type CoreGetter = (resource: string, namespace: string, name: string) => Promise<KObject | undefined>;

/**
 * The backend a proxied request is sent to: url.URL's host as ip and port
 * (a pod's port as the URL gave it, which need not be a number); `hostIP`
 * is the node of the pod that has `ip`.
 */
export interface ProxyLocation { scheme: string; ip: string; port: string; hostIP: string }

const VALID_SCHEMES = new Set(['http', 'https', '']);

/** utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port`; undefined when invalid. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = ''; let name: string; let port = '';
  if (parts.length === 1) [name = ''] = parts;
  else if (parts.length === 2) [name = '', port = ''] = parts;
  else if (parts.length === 3) [scheme = '', name = '', port = ''] = parts;
  else return undefined;
  if (!name || !VALID_SCHEMES.has(scheme)) return undefined;
  return { scheme, name, port };
}

/** errors.NewServiceUnavailable: a 503 with no details. */
export function serviceUnavailable(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'ServiceUnavailable', code: 503 });
}

/** The port an http or https URL without one reaches. */
function defaultPort(scheme: string): string { return scheme === 'https' ? '443' : '80'; }

/** Whether a dotted IPv4 address is global unicast (net.IP.IsGlobalUnicast): not unspecified, loopback, link-local, multicast or broadcast. */
export function isGlobalUnicastIPv4(ip: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return false;
  const o = m.slice(1).map(Number);
  if (o.some((x) => x > 255)) return false;
  const [a = 0, b = 0] = o;
  if (ip === '255.255.255.255' || a === 0 || a === 127 || a >= 224 || (a === 169 && b === 254)) return false;
  return true;
}

/** pod.ResourceLocation. */
export async function podProxyLocation(get: CoreGetter, namespace: string, id: string): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid pod request ${goQuote(id)}`);
  const pod = await get('pods', namespace, parsed.name) as Pod | undefined;
  if (!pod) throw errors.notFound({ group: '', resource: 'pods' }, parsed.name);
  let port = parsed.port;
  if (port === '') {
    const first = (pod.spec?.containers ?? []).find((c) => (c.ports ?? []).length > 0);
    if (first) port = String(first.ports![0]!.containerPort);
  }
  const podIP = pod.status?.podIP ?? '';
  if (!isGlobalUnicastIPv4(podIP)) throw errors.badRequest('address not allowed');
  return { scheme: parsed.scheme, ip: podIP, port: port === '' ? defaultPort(parsed.scheme) : port, hostIP: pod.status?.hostIP ?? '' };
}

/** service REST's ResourceLocation; `random(n)` is rand.Intn. */
export async function serviceProxyLocation(get: CoreGetter, namespace: string, id: string,
  random: (n: number) => number = (n) => Math.floor(Math.random() * n)): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid service request ${goQuote(id)}`);
  const { scheme, name } = parsed;
  let portName = parsed.port;
  // strconv.ParseInt(portStr, 10, 64): an optional sign, then decimal digits.
  if (/^[+-]?\d+$/.test(portName)) {
    const portNum = Number(portName);
    const svc = await get('services', namespace, name) as Service | undefined;
    if (!svc) throw errors.notFound({ group: '', resource: 'services' }, name);
    const found = (svc.spec?.ports ?? []).find((p) => p.port === portNum);
    if (!found) throw serviceUnavailable(`no service port ${portNum} found for service ${goQuote(name)}`);
    portName = found.name ?? '';
  }
  const eps = await get('endpoints', namespace, name) as Endpoints | undefined;
  if (!eps) throw errors.notFound({ group: '', resource: 'endpoints' }, name);
  const subsets = eps.subsets ?? [];
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${goQuote(name)}`);
  const ssSeed = random(subsets.length);
  for (let ssi = 0; ssi < subsets.length; ssi++) {
    const ss = subsets[(ssSeed + ssi) % subsets.length]!;
    const addresses = ss.addresses ?? [];
    if (addresses.length === 0) continue;
    for (const p of ss.ports ?? []) {
      if ((p.name ?? '') !== portName) continue;
      const addrSeed = random(addresses.length);
      for (let t = 0; t < addresses.length; t++) {
        const addr = addresses[(addrSeed + t) % addresses.length]!;
        // Only addresses that are pods (isValidAddress): the target is a Pod that has the address.
        if (addr.targetRef?.kind !== 'Pod' || !addr.targetRef.name) continue;
        const pod = await get('pods', addr.targetRef.namespace ?? namespace, addr.targetRef.name) as Pod | undefined;
        if (!pod || !(pod.status?.podIPs ?? (pod.status?.podIP ? [{ ip: pod.status.podIP }] : [])).some((x) => x.ip === addr.ip)) continue;
        return { scheme, ip: addr.ip, port: String(p.port), hostIP: pod.status?.hostIP ?? '' };
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${goQuote(id)}`);
}

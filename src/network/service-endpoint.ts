/**
 * A Service's address as the API server dials it (apiserver pkg/util/proxy ResolveEndpoint, v1.32):
 * the Service must be ClusterIP, NodePort or LoadBalancer; its port with the given number names the
 * Endpoints subset port to use; one address of a subset that has that port is chosen at random.
 * So a selector-less Service with hand-written Endpoints reaches a server on this machine.
 * Used for webhooks given as a service reference (and for API aggregation).
 */
import { errors, StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';

/** How the resolver reads a Service or an Endpoints object (the registry's admission lookup does). */
export type ObjectGetter = (resource: 'services' | 'endpoints', namespace: string, name: string) => Promise<KObject | undefined>;

interface ServicePort { name?: string; port?: number }
interface Subset { addresses?: { ip?: string }[]; ports?: { name?: string; port?: number }[] }

/** apierrors.NewServiceUnavailable */
function serviceUnavailable(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'ServiceUnavailable', code: 503 });
}

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** ResolveEndpoint: host and port to dial for the Service's port `port`. */
export async function resolveServiceEndpoint(get: ObjectGetter, namespace: string, name: string, port: number): Promise<{ host: string; port: number }> {
  const svc = await get('services', namespace, name) as (KObject & { spec?: { type?: string; ports?: ServicePort[] } }) | undefined;
  // The lister's NotFound names the resource in the singular.
  if (!svc) throw errors.notFound({ group: '', resource: 'service' }, name);
  const type = svc.spec?.type ?? 'ClusterIP';
  if (!['ClusterIP', 'LoadBalancer', 'NodePort'].includes(type)) throw new Error(`unsupported service type "${type}"`);
  const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
  if (!svcPort) throw serviceUnavailable(`no service port ${port} found for service "${name}"`);
  const eps = await get('endpoints', namespace, name) as (KObject & { subsets?: Subset[] }) | undefined;
  if (!eps) throw errors.notFound({ group: '', resource: 'endpoints' }, name);
  const subsets = eps.subsets ?? [];
  if (!subsets.length) throw serviceUnavailable(`no endpoints available for service "${name}"`);
  const start = Math.floor(Math.random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(start + i) % subsets.length]!;
    if (!ss.addresses?.length) continue;
    const p = (ss.ports ?? []).find((x) => (x.name ?? '') === (svcPort.name ?? ''));
    if (p) return { host: pick(ss.addresses).ip ?? '', port: p.port ?? 0 };
  }
  throw serviceUnavailable(`no endpoints available for service "${name}"`);
}

/**
 * Where kube-apiserver's aggregator sends a request for a service-backed APIService
 * (apiserver pkg/util/proxy ResolveCluster, v1.32; kube-aggregator's default resolver, as
 * --enable-aggregator-routing=false leaves it): the Service's cluster IP and port, or an
 * ExternalName's name and the given port. It is what upstream dials and therefore what its
 * messages, URLs and Host header show. This host cannot reach cluster IPs, so the connection
 * itself goes to one of the Service's endpoints (dialTarget), where kube-proxy would send it.
 */
import { errors, StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { resolveServiceEndpoint, type ObjectGetter } from './service-endpoint.js';

interface ServiceShape { spec?: { type?: string; clusterIP?: string; externalName?: string; ports?: { port?: number }[] } }

/** net.JoinHostPort */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A Service address as ResolveCluster gives it, and how this machine reaches it. */
export interface ClusterAddress {
  /** host:port of the URL upstream builds (`https://<hostPort>`). */
  hostPort: string;
  /** The Service's ClusterIP, LoadBalancer and NodePort types reach endpoints; ExternalName its name. */
  externalName?: { host: string; port: number };
}

/** ResolveCluster: the address, or upstream's error for a Service it cannot route to. */
export async function resolveClusterAddress(get: ObjectGetter, namespace: string, name: string, port: number): Promise<ClusterAddress> {
  const svc = await get('services', namespace, name) as (KObject & ServiceShape) | undefined;
  // The lister's NotFound names the resource in the singular.
  if (!svc) throw errors.notFound({ group: '', resource: 'service' }, name);
  const type = svc.spec?.type ?? 'ClusterIP';
  if (type === 'ClusterIP' && svc.spec?.clusterIP === 'None') throw new Error('cannot route to service with ClusterIP "None"');
  if (type === 'ClusterIP' || type === 'LoadBalancer' || type === 'NodePort') {
    // findServicePort
    if (!(svc.spec?.ports ?? []).some((p) => p.port === port)) {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `no service port ${port} found for service "${name}"`, reason: 'ServiceUnavailable', code: 503 });
    }
    return { hostPort: joinHostPort(svc.spec?.clusterIP ?? '', port) };
  }
  if (type === 'ExternalName') {
    const host = svc.spec?.externalName ?? '';
    return { hostPort: joinHostPort(host, port), externalName: { host, port } };
  }
  throw new Error(`unsupported service type "${type}"`);
}

/**
 * The address to connect to for a resolved Service: an ExternalName's own, else an endpoint
 * (undefined when there is none: kube-proxy rejects connections to a Service without one).
 */
export async function dialTarget(get: ObjectGetter, address: ClusterAddress, namespace: string, name: string, port: number): Promise<{ host: string; port: number } | undefined> {
  if (address.externalName) return address.externalName;
  try {
    return await resolveServiceEndpoint(get, namespace, name, port);
  } catch {
    return undefined;
  }
}

/** The error text of an error a resolver throws: a Status's message, else the error's. */
export function resolverErrorText(e: unknown): string {
  return e instanceof StatusError ? e.status.message ?? '' : (e as Error).message;
}

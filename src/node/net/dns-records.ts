/**
 * The cluster DNS zone as CoreDNS's kubernetes plugin answers it (the
 * Kubernetes DNS-Based Service Discovery specification, A records):
 *
 *   <service>.<ns>.svc.<domain>    a ClusterIP Service: its ClusterIP;
 *                                  a headless one: its ready endpoints
 *   <a-b-c-d>.<ns>.pod.<domain>    the address a.b.c.d (`pods insecure`,
 *                                  kubeadm's Corefile)
 *
 * Anything else in the zone does not exist (NXDOMAIN). ExternalName
 * Services (a CNAME to a name outside the cluster) and names outside the
 * zone need the outside world, which the model does not have yet.
 */
import type { ServiceSpec } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { DNS_DOMAIN } from '../network.js';

export interface RecordSources {
  service(namespace: string, name: string): KObject | undefined;
  /** The addresses of a Service's ready endpoints. */
  readyAddresses(namespace: string, name: string): string[];
}

const IPV4_DASHED = /^(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})$/;

/** The A records of a fully qualified name (trailing dot optional); undefined when the name does not exist. */
export function clusterRecords(fqdn: string, src: RecordSources, domain = DNS_DOMAIN): string[] | undefined {
  const name = fqdn.toLowerCase().replace(/\.$/, '');
  const suffix = `.${domain}`;
  if (!name.endsWith(suffix)) return undefined;
  const labels = name.slice(0, -suffix.length).split('.');
  if (labels.length === 3 && labels[2] === 'svc') {
    const [service = '', ns = ''] = labels;
    const svc = src.service(ns, service);
    if (!svc) return undefined;
    const spec = (svc.spec ?? {}) as ServiceSpec;
    if (spec.type === 'ExternalName') return undefined;
    if (spec.clusterIP === 'None') {
      const ips = src.readyAddresses(ns, service);
      return ips.length ? ips : undefined;
    }
    const ips = (Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP]).filter((ip): ip is string => typeof ip === 'string' && ip.includes('.'));
    return ips.length ? ips.slice(0, 1) : undefined;
  }
  if (labels.length === 3 && labels[2] === 'pod') {
    const m = IPV4_DASHED.exec(labels[0] ?? '');
    if (m && m.slice(1).every((o) => Number(o) <= 255)) return [m.slice(1).map(Number).join('.')];
  }
  return undefined;
}

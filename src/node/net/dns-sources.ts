/**
 * What the cluster DNS reads of the cluster, from Services and their
 * EndpointSlices (CoreDNS's kubernetes plugin watches the same two): a
 * Service's ready IPv4 endpoints, with their hostnames and ports. The
 * in-process lookups of the pods' tools and the DNS server both answer from
 * these, through dns-records.ts.
 */
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { DNSEndpoint, RecordSources } from './dns-records.js';
import type { NetworkLookups } from './cluster-network.js';

/** The label that ties an EndpointSlice to its Service (discovery.k8s.io/v1 LabelServiceName). */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** What a DNS server sees besides Services and EndpointSlices: see RecordSources. */
export interface ServerViews { serial(): number; generation(): number; namespaceExists(namespace: string): boolean }

export function dnsRecordSources(lookups: NetworkLookups, server?: ServerViews): RecordSources {
  return {
    service: (ns, name) => lookups.service(ns, name),
    services: () => lookups.services(),
    readyEndpoints: (ns, name) => readyEndpoints(lookups, ns, name),
    ...(server ? { serial: () => server.serial(), generation: () => server.generation(), namespaceExists: (ns: string) => server.namespaceExists(ns) } : {}),
  };
}

/**
 * A Service's ready endpoints, once per address (CoreDNS's
 * EndpointSliceToEndpoints keeps an address whose ready condition is unset
 * or true; publishNotReadyAddresses is the EndpointSlice controller's
 * business, which then marks them ready).
 */
function readyEndpoints(lookups: NetworkLookups, ns: string, service: string): DNSEndpoint[] {
  const slices = lookups.endpointSlices(ns).filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === service && s.addressType === 'IPv4') as unknown as EndpointSlice[];
  const out = new Map<string, DNSEndpoint>();
  for (const s of slices) {
    const ports = (s.ports ?? []).filter((p) => typeof p.port === 'number').map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.port as number }));
    for (const e of s.endpoints ?? []) {
      const ip = e.addresses?.[0];
      if (!ip || e.conditions?.ready === false) continue;
      const known = out.get(ip);
      if (known) { known.ports.push(...ports.filter((p) => !known.ports.some((k) => k.name === p.name && k.protocol === p.protocol))); continue; }
      out.set(ip, { ip, ...(e.hostname ? { hostname: e.hostname } : {}), ports: [...ports] });
    }
  }
  return [...out.values()];
}

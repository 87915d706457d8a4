/**
 * The cluster DNS zone as CoreDNS's kubernetes plugin answers it with
 * kubeadm's Corefile (`kubernetes cluster.local in-addr.arpa ip6.arpa {
 * pods insecure ... } ttl 30`), per the Kubernetes DNS-Based Service
 * Discovery specification (kubernetes/dns docs/specification.md):
 *
 *   <svc>.<ns>.svc.<zone>                A: a ClusterIP Service's ClusterIP;
 *                                        a headless one's ready endpoints
 *   <host>.<svc>.<ns>.svc.<zone>         A: the headless endpoint with that
 *                                        hostname (else its dashed address)
 *   _<port>._<proto>.<svc>.<ns>.svc.<zone>  SRV per named port (per endpoint
 *                                        when headless); `<svc>...` asked for
 *                                        SRV: every port
 *   <svc>.<ns>.svc.<zone> (ExternalName) CNAME to spec.externalName
 *   <a-b-c-d>.<ns>.pod.<zone>            A: the address a.b.c.d
 *   dns-version.<zone>                   TXT "1.1.0" (DNSSchemaVersion)
 *   <zone>                               SOA, NS ns.dns.<zone>
 *   d.c.b.a.in-addr.arpa                 PTR of a ClusterIP or a headless
 *                                        endpoint
 *
 * A name that exists with no record of the type asked is NODATA (NOERROR,
 * no answer); one that does not exist is NXDOMAIN; both carry the zone's SOA
 * in the authority section (plugin/backend_lookup.go SOA: `ns.dns.<zone>`,
 * `hostmaster.<zone>`, refresh 7200, retry 1800, expire 86400, minimum the
 * TTL; its own TTL min(TTL, 300)). Names outside the zones go to kubeadm's
 * `forward . /etc/resolv.conf`, which has no outside world to reach here:
 * SERVFAIL, as the forward plugin gives when no upstream answers.
 */
import type { ServiceSpec } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { DNS_DOMAIN } from '../network.js';
import type { Rcode, RecordData, ResourceRecord } from './dns-wire.js';

/** A ready endpoint of a Service, as the DNS sees it. */
export interface DNSEndpoint {
  ip: string;
  /** Endpoint.hostname (set for a StatefulSet's pods with a subdomain). */
  hostname?: string;
  ports: { name: string; protocol: string; port: number }[];
}

export interface RecordSources {
  service(namespace: string, name: string): KObject | undefined;
  /** Every Service (for reverse lookups). */
  services(): KObject[];
  /** Whether the namespace exists (CoreDNS's namespaceExposed); every namespace does without it (the pods' in-process lookups, which only want addresses). */
  namespaceExists?(namespace: string): boolean;
  /** A Service's ready endpoints (IPv4). */
  readyEndpoints(namespace: string, name: string): DNSEndpoint[];
  /** The zone's serial: CoreDNS's is the Unix time the cluster's objects last changed. */
  serial?(): number;
  /** A number that changes whenever any answer may have: lets a server keep encoded answers until then. */
  generation?(): number;
}

/** kubeadm's Corefile: `ttl 30` (the plugin's own default is 5). */
export const RECORD_TTL = 30;
/** The kubernetes plugin's DNSSchemaVersion, the TXT of dns-version.<zone>. */
export const DNS_SCHEMA_VERSION = '1.1.0';

export type QType = 'A' | 'AAAA' | 'SRV' | 'CNAME' | 'TXT' | 'SOA' | 'NS' | 'PTR' | 'ANY' | 'OTHER';

/** The TTL of dns-version.<zone>'s TXT (the kubernetes plugin's Services). */
const DNS_VERSION_TTL = 28800;

export interface ZoneAnswer {
  rcode: Rcode;
  /** Whether this server is the authority for the name (the AA flag). */
  authoritative: boolean;
  /** The RA flag: answers that came through a recursive resolver have it. */
  recursionAvailable?: boolean;
  answer: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
}

/** An IPv4 address with dashes, each octet as Go's net.ParseIP takes it (no leading zeros). */
const IPV4_DASHED = /^(0|[1-9]\d{0,2})-(0|[1-9]\d{0,2})-(0|[1-9]\d{0,2})-(0|[1-9]\d{0,2})$/;
const REVERSE_V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.in-addr\.arpa$/;

/** The answer of the cluster DNS to (name, type). */
export function answerQuery(fqdn: string, qtype: QType, src: RecordSources, domain = DNS_DOMAIN, dnsIP?: string): ZoneAnswer {
  const name = fqdn.toLowerCase().replace(/\.$/, '');
  const soa = (zone: string): ResourceRecord => ({
    name: `${zone}.`, ttl: Math.min(RECORD_TTL, 300), type: 'SOA', mname: `ns.dns.${zone}.`, rname: `hostmaster.${zone}.`,
    serial: (src.serial?.() ?? 0) >>> 0, refresh: 7200, retry: 1800, expire: 86400, minimum: RECORD_TTL,
  });
  // Types the plugin has no records of (ANY among them) are NODATA where the name exists (handler.go's fake A lookup).
  const found = (zone: string, records: ResourceRecord[], additional: ResourceRecord[] = []): ZoneAnswer => {
    const answer = records.filter((r) => r.type === qtype || (r.type === 'CNAME' && (qtype === 'A' || qtype === 'AAAA')));
    return { rcode: 'NOERROR', authoritative: true, answer, authority: answer.length ? [] : [soa(zone)], additional: answer.length ? additional : [] };
  };
  // A SOA question below the apex is never asked of the records: NODATA whether or not the name exists.
  const nxdomain = (zone: string): ZoneAnswer => qtype === 'SOA' ? found(zone, [])
    : { rcode: 'NXDOMAIN', authoritative: true, answer: [], authority: [soa(zone)], additional: [] };
  // kubeadm's Corefile: `fallthrough in-addr.arpa ip6.arpa`, then `forward . /etc/resolv.conf`, with nowhere to forward to.
  const servfail: ZoneAnswer = { rcode: 'SERVFAIL', authoritative: false, answer: [], authority: [], additional: [] };

  if (name === 'in-addr.arpa' || name.endsWith('.in-addr.arpa')) {
    const m = qtype === 'PTR' ? REVERSE_V4.exec(name) : null;
    const targets = m ? reverseNames(m.slice(1).reverse().join('.'), src, domain) : [];
    return targets.length ? found('in-addr.arpa', targets.map((target) => ({ name: `${name}.`, ttl: RECORD_TTL, type: 'PTR', target }))) : servfail;
  }
  if (name !== domain && !name.endsWith(`.${domain}`)) return servfail;
  const namespaceExists = (ns: string) => src.namespaceExists?.(ns) ?? true;

  const rr = (owner: string, data: RecordData): ResourceRecord => ({ name: `${owner}.`, ttl: RECORD_TTL, ...data });
  if (name === domain) {
    const nsA = dnsIP ? [rr(`ns.dns.${domain}`, { type: 'A', address: dnsIP })] : [];
    return found(domain, [soa(domain), rr(domain, { type: 'NS', target: `ns.dns.${domain}.` })], qtype === 'NS' ? nsA : []);
  }
  const labels = name.slice(0, -(domain.length + 1)).split('.');
  // The one TXT the plugin has; asked for another type it is a name the schema does not know.
  if (name === `dns-version.${domain}`) return qtype === 'TXT' ? found(domain, [{ name: `${name}.`, ttl: DNS_VERSION_TTL, type: 'TXT', text: DNS_SCHEMA_VERSION }]) : nxdomain(domain);
  if (name === `ns.dns.${domain}`) return found(domain, dnsIP ? [rr(name, { type: 'A', address: dnsIP })] : []);

  const kind = labels[labels.length - 1];
  if (kind === 'pod') {
    if (labels.length === 1) return found(domain, []);
    if (!namespaceExists(labels[labels.length - 2] ?? '')) return nxdomain(domain);
    if (labels.length === 2) return found(domain, []);
    const m = labels.length === 3 ? IPV4_DASHED.exec(labels[0] ?? '') : null;
    if (m && m.slice(1).every((o) => Number(o) <= 255)) return found(domain, [rr(name, { type: 'A', address: m.slice(1).join('.') })]);
    return nxdomain(domain);
  }
  if (kind !== 'svc') return nxdomain(domain);
  if (labels.length === 1) return found(domain, []);
  const ns = labels[labels.length - 2] ?? '';
  if (labels.length === 2) return namespaceExists(ns) ? found(domain, []) : nxdomain(domain);

  const svcName = labels[labels.length - 3] ?? '';
  const svc = src.service(ns, svcName);
  if (!svc) return nxdomain(domain);
  const spec = (svc.spec ?? {}) as ServiceSpec;
  const svcFqdn = `${svcName}.${ns}.svc.${domain}`;
  const headless = spec.clusterIP === 'None';
  const endpoints = headless ? src.readyEndpoints(ns, svcName) : [];
  const wantsSRV = qtype === 'SRV';
  const endpointHost = (e: DNSEndpoint) => e.hostname || e.ip.replace(/\./g, '-');

  if (labels.length === 3) {
    if (spec.type === 'ExternalName') return found(domain, [rr(name, { type: 'CNAME', target: `${(spec.externalName ?? '').replace(/\.$/, '')}.` })]);
    if (headless) {
      // A headless Service without ready endpoints has no records at all (CoreDNS: NXDOMAIN).
      if (!endpoints.length) return nxdomain(domain);
      const addrs = endpoints.map((e) => rr(name, { type: 'A', address: e.ip }));
      if (!wantsSRV) return found(domain, addrs);
      const srvs = endpoints.flatMap((e) => e.ports.map((p) => ({ p, target: `${endpointHost(e)}.${svcFqdn}` })));
      return found(domain, [...addrs, ...srvRecords(name, srvs)], endpoints.map((e) => rr(`${endpointHost(e)}.${svcFqdn}`, { type: 'A', address: e.ip })));
    }
    const ip = clusterIPv4(spec);
    if (!ip) return nxdomain(domain);
    if (!wantsSRV) return found(domain, [rr(name, { type: 'A', address: ip })]);
    const ports = (spec.ports ?? []).map((p) => ({ p: { name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.port }, target: svcFqdn }));
    return found(domain, [rr(name, { type: 'A', address: ip }), ...srvRecords(name, ports)], [rr(svcFqdn, { type: 'A', address: ip })]);
  }
  if (labels.length === 4 && headless) {
    const e = endpoints.find((x) => endpointHost(x) === labels[0]);
    return e ? found(domain, [rr(name, { type: 'A', address: e.ip })]) : nxdomain(domain);
  }
  if (labels.length === 5 && labels[0]?.startsWith('_') && labels[1]?.startsWith('_')) {
    const port = labels[0].slice(1);
    const proto = labels[1].slice(1);
    const matches = (p: { name: string; protocol: string }) => p.name.toLowerCase() === port && p.protocol.toLowerCase() === proto;
    if (spec.type === 'ExternalName') return nxdomain(domain);
    if (headless) {
      const srvs = endpoints.flatMap((e) => e.ports.filter(matches).map((p) => ({ p, target: `${endpointHost(e)}.${svcFqdn}`, ip: e.ip })));
      if (!srvs.length) return nxdomain(domain);
      return found(domain, srvRecords(name, srvs), srvs.map((s) => rr(s.target, { type: 'A', address: s.ip })));
    }
    const ip = clusterIPv4(spec);
    const ports = (spec.ports ?? []).map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.port })).filter(matches);
    if (!ip || !ports.length) return nxdomain(domain);
    return found(domain, srvRecords(name, ports.map((p) => ({ p, target: svcFqdn }))), [rr(svcFqdn, { type: 'A', address: ip })]);
  }
  return nxdomain(domain);
}

/**
 * SRV records, priority 0 and the weight CoreDNS's backend SRV gives a set
 * of equal-priority records: floor(100 / how many).
 */
function srvRecords(owner: string, targets: { p: { port: number }; target: string }[]): ResourceRecord[] {
  const weight = targets.length ? Math.floor(100 / targets.length) : 0;
  return targets.map(({ p, target }) => ({ name: `${owner}.`, ttl: RECORD_TTL, type: 'SRV', priority: 0, weight, port: p.port, target: `${target}.` }));
}

function clusterIPv4(spec: ServiceSpec): string | undefined {
  const ips: readonly (string | undefined)[] = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
  return ips.find((ip): ip is string => typeof ip === 'string' && ip.includes('.'));
}

/**
 * The names a reverse lookup of an address gives (serviceRecordForIP): the
 * Service whose ClusterIP it is, else every endpoint with that address.
 */
function reverseNames(ip: string, src: RecordSources, domain: string): string[] {
  const all = src.services();
  for (const s of all) {
    const spec = (s.spec ?? {}) as ServiceSpec;
    if ((Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP]).includes(ip)) return [`${s.metadata.name ?? ''}.${s.metadata.namespace ?? 'default'}.svc.${domain}.`];
  }
  return all.flatMap((s) => {
    const ns = s.metadata.namespace ?? 'default';
    const name = s.metadata.name ?? '';
    return src.readyEndpoints(ns, name).filter((e) => e.ip === ip).map((e) => `${e.hostname || ip.replace(/\./g, '-')}.${name}.${ns}.svc.${domain}.`);
  });
}

/** The A records of a fully qualified name (trailing dot optional), CNAMEs not followed; undefined when it has none. */
export function clusterRecords(fqdn: string, src: RecordSources, domain = DNS_DOMAIN): string[] | undefined {
  const a = answerQuery(fqdn, 'A', src, domain);
  const ips = a.answer.flatMap((r) => (r.type === 'A' ? [r.address] : []));
  return ips.length ? ips : undefined;
}

/**
 * The cluster's pod network, one per node farm: which pod owns which
 * address, what listens on which (pod IP, port, protocol), and how a
 * connection from a pod reaches its destination:
 *
 * - a pod IP (on any node): the listener on that port, else a RST
 *   (connection refused); an address no running pod has goes unanswered.
 * - a Service ClusterIP and port: kube-proxy's rule for it picks one
 *   endpoint of the Service's EndpointSlices (ready ones; serving and
 *   terminating ones when none is ready, as ProxyTerminatingEndpoints
 *   does) at random, as the iptables proxier's `statistic --mode random`
 *   rules do, on the slice's port (the targetPort the EndpointSlice
 *   controller resolved for that pod, named ports included); a Service
 *   port without endpoints is REJECTed (connection refused); a port the
 *   Service does not define has no rule and its packets are dropped.
 * - names: the cluster DNS records (Service A records, headless Services'
 *   endpoints, `a-b-c-d.<ns>.pod`), reached through each pod's resolver
 *   rules (dns-resolver.ts).
 *
 * - NetworkPolicy, where the nodes' plugin enforces it (policy-enforcement.ts):
 *   a connection or echo request it denies is dropped (a timeout), judged
 *   against the backend after the DNAT.
 *
 * - the `kubernetes` Service of `default`: its endpoints are the API
 *   server's own address, outside the pod network; a connection to it
 *   reaches the real API server over TLS (its certificate issued by the
 *   cluster CA), so a pod can use its service account token.
 *
 * - anything else no running pod has: the outside world (outside-world.ts),
 *   reached with the source address the pod's node's SNAT rules leave
 *   (outbound-nat.ts); names outside the cluster zone go where CoreDNS's
 *   Corefile sends them (coredns.ts).
 *
 * Services and EndpointSlices are read through the kubelets' informer
 * caches (the lookups), never the store. The Windows data plane's own
 * rules (VIPs unreachable from nodes, DSR, session affinity) are later
 * slices of the network model and not applied here.
 */
import type { ServicePort, ServiceSpec } from 'kubernetes-types/core/v1.js';
import type { EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import type { Acceptor, ConnectResult, DNSReply, Endpoint, HttpReply, HttpRequest, Listening, NameAnswer, PingResult, PodNetAccess, QueryType } from '../shell/net-types.js';
import type { Pending } from '../shell/pending.js';
import { answerName, resolveName, type ResolverConfig } from './dns-resolver.js';
import { answerQuery, clusterRecords } from './dns-records.js';
import { presentReply } from './dns-presentation.js';
import { dnsRecordSources } from './dns-sources.js';
import type { OutsideAccess } from './outside-access.js';
import { destinationKind, outboundSource } from './outbound-nat.js';
import { policyVerdict, type PolicyLookups } from './policy-enforcement.js';

/** What the model reads of the cluster: the kubelets' informer caches. */
export interface NetworkLookups {
  /** Every Service (all namespaces). */
  services(): KObject[];
  service(namespace: string, name: string): KObject | undefined;
  /** The EndpointSlices of a namespace. */
  endpointSlices(namespace: string): KObject[];
  /** NetworkPolicy enforcement's reads; without them no policy is applied. */
  policy?: PolicyLookups;
}

/** A pod's address as the network knows it. */
export interface PodHost { namespace: string; name: string; node: string }

/** The label that ties an EndpointSlice to its Service (discovery.k8s.io/v1 LabelServiceName). */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Linux's ephemeral port range (net.ipv4.ip_local_port_range). */
const EPHEMERAL = { first: 32768, last: 60999 };

/** The API server as pods reach it through the kubernetes Service: its handler, and the CA of its serving certificate. */
export interface APIServerEndpoint { accept: Acceptor; ca: string }

export type Route =
  | { kind: 'pod'; ip: string; port: number; service?: { namespace: string; name: string } }
  | { kind: 'refused' }
  | { kind: 'timeout' };

export class ClusterNetwork {
  private readonly hosts = new Map<string, PodHost>();
  private readonly listeners = new Map<string, Acceptor>();
  private nextPort = EPHEMERAL.first;

  constructor(private readonly lookups: NetworkLookups, private readonly random: () => number = Math.random,
    private readonly apiServer?: APIServerEndpoint, private readonly outside?: OutsideAccess) {}

  /** The pod's sandbox has this address; returns its removal (the sandbox is torn down). */
  attach(ip: string, host: PodHost): () => void {
    this.hosts.set(ip, host);
    return () => { if (this.hosts.get(ip) === host) this.hosts.delete(ip); };
  }

  /** Binds (ip, port, protocol); undefined when it is taken. */
  listen(ip: string, port: number, protocol: 'TCP' | 'UDP', accept: Acceptor): Listening | undefined {
    const key = listenerKey(ip, port, protocol);
    if (this.listeners.has(key)) return undefined;
    this.listeners.set(key, accept);
    return { close: () => { if (this.listeners.get(key) === accept) this.listeners.delete(key); } };
  }

  /** Whether something listens on (ip, port, protocol). */
  listening(ip: string, port: number, protocol: 'TCP' | 'UDP' = 'TCP'): boolean {
    return this.listeners.has(listenerKey(ip, port, protocol));
  }

  /** Where a TCP connection to ip:port goes: an address and port (after kube-proxy's rules), or how it fails there. */
  route(ip: string, port: number): Route {
    const svc = this.serviceByClusterIP(ip);
    if (svc) return this.serviceRoute(svc, port);
    return { kind: 'pod', ip, port };
  }

  /**
   * A TCP connection from `from` (a pod's address) to ip:port: the listener
   * there, else a RST from a running pod's stack, else silence.
   */
  connect(from: string, ip: string, port: number): ConnectResult {
    const r = this.route(ip, port);
    if (r.kind !== 'pod') return r;
    // A dropped SYN: the client's retries time out. A pod reaching its own address never leaves its loopback.
    if (ip !== from && !this.policyAdmits(from, r.ip, 'TCP', r.port)) return { kind: 'timeout' };
    const apiServer = r.service?.namespace === 'default' && r.service.name === 'kubernetes' ? this.apiServer : undefined;
    const accept = apiServer?.accept ?? this.listeners.get(listenerKey(r.ip, r.port, 'TCP'));
    if (!accept) return this.hosts.has(r.ip) ? { kind: 'refused' } : r.service ? { kind: 'timeout' } : this.connectOutside(from, ip, port);
    const local: Endpoint = { ip: from, port: this.ephemeralPort() };
    const server: Endpoint = { ip: r.ip, port: r.port };
    return {
      kind: 'connected', local, remote: { ip, port }, ...(apiServer ? { tlsCA: apiServer.ca } : {}),
      exchange: (req: HttpRequest): Pending<HttpReply> => accept(req, { client: local, local: server }),
    };
  }

  /** The cluster DNS answer (A records) for a fully qualified name; undefined for NXDOMAIN. */
  lookup(fqdn: string): string[] | undefined {
    const sources = dnsRecordSources(this.lookups);
    return this.outside ? this.outside.coreDNS.addresses(fqdn, sources) : clusterRecords(fqdn, sources);
  }

  /** The cluster DNS's whole reply to one query. */
  query(fqdn: string, type: QueryType): DNSReply {
    const sources = dnsRecordSources(this.lookups);
    return presentReply(fqdn, type, this.outside ? this.outside.coreDNS.answer(fqdn, type, sources) : answerQuery(fqdn, type, sources));
  }

  /** A name by a pod's resolver rules. */
  resolve(name: string, resolver: ResolverConfig): string[] | undefined {
    return resolveName(name, resolver, (fqdn) => this.lookup(fqdn));
  }

  /** The cluster DNS's PTR answer for an address (the name the query tools print for their server). */
  reverse(ip: string): string | undefined {
    const ptr = answerQuery(`${ip.split('.').reverse().join('.')}.in-addr.arpa`, 'PTR', dnsRecordSources(this.lookups)).answer[0];
    return ptr?.type === 'PTR' ? ptr.target.replace(/\.$/, '') : undefined;
  }

  /** The resolver's answer with the name that gave it. */
  answer(name: string, resolver: ResolverConfig): NameAnswer | undefined {
    return answerName(name, resolver, (fqdn) => this.lookup(fqdn));
  }

  /**
   * An ICMP echo from `from`: a running pod's stack answers for its
   * address; a Service ClusterIP is only a DNAT rule for TCP/UDP ports and
   * nothing answers it; an address no pod has goes unanswered.
   */
  ping(from: string, ip: string): PingResult {
    const target = isLoopback(ip) ? from : ip;
    if (target === from) return { kind: 'reply', from: target };
    if (!this.policyAdmits(from, target, 'ICMP', 0)) return { kind: 'timeout' };
    if (this.hosts.has(target)) return { kind: 'reply', from: target };
    const host = this.hosts.get(from);
    const egress = host && this.outside?.egress(host);
    if (egress && !outboundSource(from, target, egress).replies) return { kind: 'timeout' };
    // win-overlay and win-bridge do not transpose outbound ICMP: nothing outside the cluster's networks answers a Windows pod.
    if (egress?.os === 'windows' && destinationKind(target, egress) === 'external') return { kind: 'timeout' };
    return this.outside?.world.ping(target) ?? { kind: 'timeout' };
  }

  /** A connection leaving the cluster: the outside host sees the source the node's SNAT gives it. */
  private connectOutside(from: string, ip: string, port: number): ConnectResult {
    if (!this.outside) return { kind: 'timeout' };
    const host = this.hosts.get(from);
    const egress = host && this.outside.egress(host);
    const nat = egress ? outboundSource(from, ip, egress) : { source: from, replies: true };
    if (!nat.replies) return { kind: 'timeout' };
    const local: Endpoint = { ip: from, port: this.ephemeralPort() };
    return this.outside.world.connect(local, { ip: nat.source, port: local.port }, ip, port);
  }

  /** The network as a container of a pod reaches it; `owned` collects what its processes listen on. */
  forPod(podIP: string, resolver: ResolverConfig, owned: Set<Listening>): PodNetAccess {
    return {
      podIP,
      resolve: (name) => this.resolve(name, resolver),
      lookup: (name) => this.answer(name, resolver),
      ping: (ip) => this.ping(podIP, ip),
      reverse: (ip) => this.reverse(ip),
      query: (fqdn, type) => this.query(fqdn, type),
      connect: (ip, port) => this.connect(podIP, isLoopback(ip) ? podIP : ip, port),
      listen: (port, accept, closed) => {
        const l = this.listen(podIP, port, 'TCP', accept);
        if (!l) return undefined;
        let open = true;
        const handle: Listening = {
          close: () => {
            if (!open) return;
            open = false;
            l.close();
            owned.delete(handle);
            closed?.();
          },
        };
        owned.add(handle);
        return handle;
      },
    };
  }

  private policyAdmits(from: string, to: string, protocol: 'TCP' | 'ICMP', port: number): boolean {
    const policy = this.lookups.policy;
    return !policy || policyVerdict(policy, (ip) => this.hosts.get(ip), from, to, protocol, port) === 'allowed';
  }

  private serviceByClusterIP(ip: string): KObject | undefined {
    return this.lookups.services().find((s) => clusterIPsOf(s).includes(ip));
  }

  private serviceRoute(svc: KObject, port: number): Route {
    const spec = (svc.spec ?? {}) as ServiceSpec;
    const svcPort = (spec.ports ?? []).find((p) => p.port === port && (p.protocol ?? 'TCP') === 'TCP');
    if (!svcPort) return { kind: 'timeout' };
    const ns = svc.metadata.namespace ?? 'default';
    const name = svc.metadata.name ?? '';
    const endpoints = this.endpointsOf(ns, name, svcPort.name ?? '');
    if (!endpoints.length) return { kind: 'refused' };
    const pick = endpoints[Math.min(endpoints.length - 1, Math.floor(this.random() * endpoints.length))]!;
    return { kind: 'pod', ip: pick.ip, port: pick.port ?? targetPortNumber(svcPort), service: { namespace: ns, name } };
  }

  /**
   * The endpoints kube-proxy programs for a Service port: ready ones, else
   * serving-and-terminating ones (CategorizeEndpoints). `portName`
   * undefined: any port.
   */
  private endpointsOf(ns: string, service: string, portName?: string): { ip: string; port?: number }[] {
    const slices = this.lookups.endpointSlices(ns).filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === service && s.addressType === 'IPv4') as unknown as EndpointSlice[];
    const ready: { ip: string; port?: number }[] = [];
    const terminating: { ip: string; port?: number }[] = [];
    const seen = new Set<string>();
    for (const s of slices) {
      const p: EndpointPort | undefined = portName === undefined ? undefined : (s.ports ?? []).find((x) => (x.name ?? '') === portName && (x.protocol ?? 'TCP') === 'TCP');
      if (portName !== undefined && !p) continue;
      for (const e of s.endpoints ?? []) {
        const ip: string | undefined = e.addresses?.[0];
        if (!ip || seen.has(ip)) continue;
        seen.add(ip);
        const c = e.conditions ?? {};
        // A nil ready condition means ready (discovery/v1 EndpointConditions).
        const entry = { ip, ...(typeof p?.port === 'number' ? { port: p.port } : {}) };
        if (c.ready !== false) ready.push(entry);
        else if (c.serving === true && c.terminating === true) terminating.push(entry);
      }
    }
    return ready.length ? ready : terminating;
  }

  private ephemeralPort(): number {
    const p = this.nextPort;
    this.nextPort = p >= EPHEMERAL.last ? EPHEMERAL.first : p + 1;
    return p;
  }
}

const listenerKey = (ip: string, port: number, protocol: string) => `${ip}|${port}|${protocol}`;

const isLoopback = (ip: string) => /^127\./.test(ip) || ip === '::1' || ip === 'localhost';

function clusterIPsOf(svc: KObject): string[] {
  const spec = (svc.spec ?? {}) as ServiceSpec;
  const ips: readonly string[] = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
  return ips.filter((ip) => ip && ip !== 'None');
}

/** A Service port's numeric targetPort (its port when unset); a name only the endpoints can resolve. */
function targetPortNumber(p: ServicePort): number {
  return typeof p.targetPort === 'number' ? p.targetPort : typeof p.targetPort === 'string' && /^\d+$/.test(p.targetPort) ? Number(p.targetPort) : p.port;
}

/**
 * The cluster's pod network, one per node farm: which pod owns which
 * address, what listens on which (address, port, protocol), and how a
 * connection from a pod, a node or the outside reaches its destination
 * through the rules of the node it meets:
 *
 * - a pod IP (on any node): the listener on that port, else a RST
 *   (connection refused); an address no running pod has goes unanswered.
 *   A Windows node on flannel's VXLAN reaches only its own pods.
 * - a Service's addresses (ClusterIP, nodePort on any node's address,
 *   externalIPs, LoadBalancer ingress IPs): kube-proxy's rules on the node
 *   the packet meets them (the client's own node for the ClusterIP,
 *   externalIPs and ingress IPs; the addressed node for a nodePort; the
 *   node an outside client's packets enter by), per OS: iptables-rules.ts
 *   and winkernel-rules.ts decide the endpoints or the failure, the
 *   backend sees the client's address or the node's (source-address.ts),
 *   sessionAffinity ClientIP pins a client (session-affinity.ts). Windows
 *   nodes themselves (hostNetwork, HostProcess) reach no Service VIP and not
 *   their own nodePorts (windows-networking.md's limitations).
 * - names: the cluster DNS records (Service A records, headless Services'
 *   endpoints, `a-b-c-d.<ns>.pod`), reached through each pod's resolver
 *   rules (dns-resolver.ts).
 * - the `kubernetes` Service of `default`: its endpoints are the API
 *   server's own address, outside the pod network; a connection to it
 *   reaches the real API server over TLS (its certificate issued by the
 *   cluster CA), so a pod can use its service account token.
 * - NetworkPolicy, where the nodes' plugin enforces it (policy-enforcement.ts):
 *   a connection or echo request it denies is dropped (a timeout), judged
 *   against the backend after the DNAT and SNAT.
 * - anything else is not a cluster address: the outside world
 *   (outside-world.ts), reached with the source address the pod's node's
 *   SNAT rules leave (outbound-nat.ts); names outside the cluster zone go
 *   where CoreDNS's Corefile sends them (coredns.ts).
 *
 * Services, EndpointSlices and Nodes are read through the kubelets'
 * informer caches (the lookups), never the store, and indexed until they
 * change (service-index.ts).
 */
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { DEFAULT_NETWORK, DEFAULT_POD_SUBNET, KUBE_PROXY_GATE_DEFAULTS, SERVICE_SUBNET, type ClusterNetwork as PodNetworkSettings } from '../network.js';
import type { Acceptor, ConnectResult, ServerTLS, DatagramHandler, DatagramResult, DNSReply, Endpoint, HttpReply, HttpRequest, Listening, NameAnswer, PingResult, PodNetAccess, QueryType } from '../shell/net-types.js';
import type { Pending } from '../shell/pending.js';
import { answerName, resolveName, type ResolverConfig } from './dns-resolver.js';
import { answerQuery, clusterRecords } from './dns-records.js';
import { presentReply } from './dns-presentation.js';
import { dnsRecordSources } from './dns-sources.js';
import { iptablesDecision } from './iptables-rules.js';
import { windowsDSR } from './kube-proxy-command.js';
import type { NetNode } from './net-node.js';
import type { OutsideAccess } from './outside-access.js';
import { destinationKind, outboundSource } from './outbound-nat.js';
import { ipv4InCIDR } from './ipv4-cidr.js';
import { policyVerdict, type PolicyLookups } from './policy-enforcement.js';
import { servicePortName, type Frontend, type ProxyDecision, type SourceKind } from './proxy-decision.js';
import { endpointHop, hostSourceHop, outsideSourceHop, podSourceHop, fixHop, ruleHop, stopHop, type EchoTrace, type NetTrace } from './route-trace.js';
import { AffinityTable } from './session-affinity.js';
import { ServiceIndex } from './service-index.js';
import { linuxNodeAddress, windowsSourceVip } from './source-address.js';
import { winkernelDecision } from './winkernel-rules.js';

/** What the model reads of the cluster: the kubelets' informer caches. */
export interface NetworkLookups {
  /** Every Service (all namespaces). */
  services(): KObject[];
  service(namespace: string, name: string): KObject | undefined;
  /** The EndpointSlices of a namespace. */
  endpointSlices(namespace: string): KObject[];
  /** The Node objects (addresses, OS and build, pod CIDRs); without them every pod is on an unnamed Linux node. */
  nodes?(): KObject[];
  /** The cluster file's network (CNI plugin, mode, kube-proxy settings); flannel overlay when absent. */
  podNetwork?(): PodNetworkSettings;
  /** Calls back whenever Services, EndpointSlices or Nodes change; without it the model re-reads them for every connection. */
  onChange?(listener: () => void): void;
  /** NetworkPolicy enforcement's reads; without them no policy is applied. */
  policy?: PolicyLookups;
}

export interface DataPlaneOptions {
  /** Milliseconds; iptables' session affinity expires by it. */
  now?: () => number;
}

/** A pod's address as the network knows it. */
export interface PodHost { namespace: string; name: string; node: string }

/** Linux's ephemeral port range (net.ipv4.ip_local_port_range). */
const EPHEMERAL = { first: 32768, last: 60999 };

/** The API server as pods reach it through the kubernetes Service: its handler, and the CA of its serving certificate. */
export interface APIServerEndpoint { accept: Acceptor; ca: string }

/** Where a connection goes: an address and port with the client address the backend sees, how it fails, or beyond the cluster. */
export type Route =
  | { kind: 'pod'; ip: string; port: number; client: string; service?: { namespace: string; name: string } }
  | { kind: 'refused' }
  | { kind: 'timeout' }
  | { kind: 'outside' };

/** Where a connection comes from. */
type Source =
  | { kind: 'pod'; ip: string; node: NetNode }
  | { kind: 'host'; ip: string; node: NetNode }
  | { kind: 'outside'; ip: string; entry?: NetNode };

/** A node the lookups do not know (no Node objects): Linux, with no addresses of its own. */
const UNKNOWN_NODE: NetNode = { name: '', os: 'linux', internalIP: '' };

/** windows-networking.md: on flannel VXLAN a Windows node reaches only its own pods. */
const FLANNEL_VXLAN_HOST = {
  why: 'a Windows node on flannel VXLAN reaches only its own pods',
  fix: 'reach the pod from a pod or through its Service, or run flannel host-gw (l2bridge)',
};

export class ClusterNetwork {
  private readonly hosts = new Map<string, PodHost>();
  private readonly listeners = new Map<string, Acceptor>();
  private readonly tlsListeners = new Map<Acceptor, ServerTLS>();
  private readonly datagramListeners = new Map<string, DatagramHandler>();
  private nextPort = EPHEMERAL.first;
  private indexed?: ServiceIndex;
  private readonly affinity = new AffinityTable();
  private readonly proxyLogs = new Map<string, Set<string>>();
  private readonly now: () => number;

  constructor(private readonly lookups: NetworkLookups, private readonly random: () => number = Math.random,
    private readonly apiServer?: APIServerEndpoint, private readonly outside?: OutsideAccess, opts: DataPlaneOptions = {}) {
    this.now = opts.now ?? Date.now;
    lookups.onChange?.(() => { this.indexed = undefined; });
  }

  /** The pod's sandbox has this address; returns its removal (the sandbox is torn down). */
  attach(ip: string, host: PodHost): () => void {
    this.hosts.set(ip, host);
    return () => { if (this.hosts.get(ip) === host) this.hosts.delete(ip); };
  }

  /** Binds (ip, port, protocol); undefined when it is taken. */
  listen(ip: string, port: number, protocol: 'TCP' | 'UDP', accept: Acceptor, tls?: ServerTLS): Listening | undefined {
    const key = listenerKey(ip, port, protocol);
    if (this.listeners.has(key)) return undefined;
    this.listeners.set(key, accept);
    if (tls) this.tlsListeners.set(accept, tls);
    return {
      close: () => {
        if (this.listeners.get(key) !== accept) return;
        this.listeners.delete(key);
        this.tlsListeners.delete(accept);
      },
    };
  }

  /** Whether the address is in the pod network (a pod's, running or not), so that only the model reaches it. */
  inPodNetwork(ip: string): boolean {
    return this.hosts.has(ip) || ipv4InCIDR(ip, this.settings().podSubnet ?? DEFAULT_POD_SUBNET);
  }

  /** Binds a UDP port on ip; undefined when it is taken. */
  listenDatagram(ip: string, port: number, handler: DatagramHandler): Listening | undefined {
    const key = listenerKey(ip, port, 'UDP');
    if (this.datagramListeners.has(key)) return undefined;
    this.datagramListeners.set(key, handler);
    return { close: () => { if (this.datagramListeners.get(key) === handler) this.datagramListeners.delete(key); } };
  }

  /**
   * One datagram from `from` (a pod's address, or a node's own for
   * hostNetwork pods) to a pod's or a node's address: the socket bound
   * there answers, a host without one sends ICMP port unreachable, an
   * address no host has swallows it. Services' UDP ports are not routed
   * here: a datagram to a Service address goes unanswered.
   */
  sendDatagram(from: string, ip: string, port: number, payload: string): DatagramResult {
    const src = this.sourceOf(from);
    const local: Endpoint = { ip: src.ip, port: this.ephemeralPort() };
    const idx = this.index();
    const known = this.hosts.has(ip) || !!idx.nodeByIP(ip);
    if (!known || !this.hostReachesPod(src, ip)) return { kind: 'unanswered', local };
    const client = ip === src.ip ? src.ip : src.kind === 'host' ? this.hostAddress(src.node, ip) : src.ip;
    if (ip !== src.ip && !this.policyAdmits(client, ip, 'UDP', port)) return { kind: 'unanswered', local };
    const handler = this.datagramListeners.get(listenerKey(ip, port, 'UDP'));
    if (!handler) return { kind: 'refused', local };
    return { kind: 'reply', local, payloads: handler(payload, { ip: client, port: local.port }) };
  }

  /** Whether something listens on (ip, port, protocol). */
  listening(ip: string, port: number, protocol: 'TCP' | 'UDP' = 'TCP'): boolean {
    return (protocol === 'UDP' ? this.datagramListeners : this.listeners).has(listenerKey(ip, port, protocol));
  }

  /** kube-proxy's log lines on a node about the Services it could not program as asked (each once). */
  kubeProxyLog(node: string): string[] { return [...this.proxyLogs.get(node) ?? []]; }

  /**
   * Where a TCP connection from `from` (a pod's or a node's address; a pod
   * on an unknown node when omitted) to ip:port goes after the rules it meets.
   */
  route(ip: string, port: number, from?: string): Route {
    return this.routeFrom(from === undefined ? { kind: 'pod', ip: '', node: UNKNOWN_NODE } : this.sourceOf(from), ip, port);
  }

  /**
   * A TCP connection from `from` (a pod's address, or a node's own for
   * hostNetwork pods) to ip:port: the listener there, else a RST from a
   * running pod's stack, else silence.
   */
  connect(from: string, ip: string, port: number): ConnectResult {
    return this.open(this.sourceOf(from), ip, port);
  }

  /** A connection from `client` outside the cluster whose packets enter by the node with address `entryNodeIP`. */
  connectFromOutside(entryNodeIP: string, client: string, ip: string, port: number): ConnectResult {
    const entry = this.index().nodeByIP(entryNodeIP);
    return this.open({ kind: 'outside', ip: client, ...(entry ? { entry } : {}) }, ip, port);
  }

  /**
   * The hops a connection from `from` to ip:port takes and where it ends,
   * without opening it (nothing is remembered: no session affinity entry,
   * no kube-proxy log line).
   */
  trace(from: string, ip: string, port: number): NetTrace {
    const src = this.sourceOf(from);
    const hops = [this.sourceHop(src)];
    const r = this.routeFrom(src, ip, port, hops);
    if (r.kind === 'outside') {
      hops.push(`${ip} is outside the cluster`);
      return { hops, result: 'outside' };
    }
    if (r.kind !== 'pod') return { hops, result: r.kind };
    const pod = this.hosts.get(r.ip);
    const node = this.index().nodeByIP(r.ip);
    const owner = pod ? `pod ${pod.namespace}/${pod.name}` : node ? `node ${node.name}` : undefined;
    if (!this.listeners.has(listenerKey(r.ip, r.port, 'TCP')) && !(r.service?.namespace === 'default' && r.service.name === 'kubernetes' && this.apiServer)) {
      hops.push(owner ? `${owner} ${r.ip}: nothing listens on ${r.port}/tcp: RST` : stopHop(`no host has ${r.ip}`));
      return { hops, result: owner ? 'refused' : 'timeout' };
    }
    hops.push(`${owner ?? r.ip} listens on ${r.ip}:${r.port}, sees the client as ${r.client}`);
    return { hops, result: 'connected' };
  }

  /** The hops of an ICMP echo from `from` to `ip` and whether it is answered, nothing sent. */
  traceEcho(from: string, ip: string): EchoTrace {
    const hops = [this.sourceHop(this.sourceOf(from))];
    const e = this.echo(from, ip);
    if (e.result.kind === 'reply') hops.push(`${e.result.from} answers the echo`);
    else hops.push(stopHop(e.why), ...(e.fix ? [fixHop(e.fix)] : []));
    return { hops, result: e.result.kind };
  }

  private sourceHop(src: Source): string {
    return src.kind === 'pod' ? podSourceHop(this.hosts.get(src.ip), src.ip, src.node, this.settings())
      : src.kind === 'host' ? hostSourceHop(src.node) : outsideSourceHop(src.ip, src.entry);
  }

  /** Whether a node has this address (the lookups hold its Node object). */
  knowsNode(ip: string): boolean { return !!this.index().nodeByIP(ip); }

  /** A node's InternalIP, when the lookups hold its Node object. */
  nodeAddress(name: string): string | undefined { return this.index().nodeByName(name)?.internalIP || undefined; }

  private open(src: Source, ip: string, port: number): ConnectResult {
    const r = this.routeFrom(src, ip, port);
    const local: Endpoint = { ip: src.ip, port: this.ephemeralPort() };
    if (r.kind === 'outside') return this.connectOutside(src, local, ip, port);
    if (r.kind !== 'pod') return r;
    // A dropped SYN: the client's retries time out. A pod reaching its own address never leaves its loopback.
    if (ip !== src.ip && !this.policyAdmits(r.client, r.ip, 'TCP', r.port)) return { kind: 'timeout' };
    const apiServer = r.service?.namespace === 'default' && r.service.name === 'kubernetes' ? this.apiServer : undefined;
    const accept = apiServer?.accept ?? this.listeners.get(listenerKey(r.ip, r.port, 'TCP'));
    if (!accept) return { kind: this.hosts.has(r.ip) || this.index().nodeByIP(r.ip) ? 'refused' : 'timeout' };
    const client: Endpoint = { ip: r.client, port: local.port };
    const server: Endpoint = { ip: r.ip, port: r.port };
    const tls = apiServer ? undefined : this.tlsListeners.get(accept);
    return {
      kind: 'connected', local, remote: { ip, port }, ...(apiServer ? { tlsCA: apiServer.ca } : {}),
      ...(tls ? { serverCertificate: tls.certificate } : {}),
      exchange: (req: HttpRequest): Pending<HttpReply> => accept(req, { client, local: server }),
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
   * An ICMP echo from `from`: a running pod's stack and a node answer for
   * their addresses; a Service VIP is only DNAT rules for TCP/UDP ports and
   * nothing answers it, except under IPVS, which binds every Service
   * address to kube-ipvs0; an address no pod has goes unanswered. A
   * Windows pod's echo to a remote network never comes back (VFP does not
   * translate ICMP on win-overlay and win-bridge).
   */
  ping(from: string, ip: string): PingResult {
    return this.echo(from, ip).result;
  }

  /** An echo's fate, and for a lost one why (and what to do instead, where the docs say). */
  private echo(from: string, ip: string): { result: PingResult; why: string; fix?: string } {
    const reply = (who: string) => ({ result: { kind: 'reply', from: who } as PingResult, why: '' });
    const lost = (why: string, fix?: string) => ({ result: { kind: 'timeout' } as PingResult, why, ...(fix ? { fix } : {}) });
    if (isLoopback(ip) || ip === from) return reply(isLoopback(ip) ? from : ip);
    const src = this.sourceOf(from);
    const idx = this.index();
    if (idx.byClusterIP(ip) || idx.byExternalAddress(ip)) {
      const node = src.kind === 'outside' ? undefined : src.node;
      if (node?.os === 'linux' && this.settings().kubeProxy?.mode === 'ipvs') return reply(ip);
      return lost(`${ip} is a Service address: kube-proxy's rules forward its ports, and nothing answers an echo to it`,
        `check the Service with a connection to one of its ports (winkube net check ${from} ${ip}:PORT)`);
    }
    if (!this.policyAdmits(from, ip, 'ICMP', 0)) return lost(`a NetworkPolicy does not allow ICMP from ${from} to ${ip}: dropped`);
    if (idx.nodeByIP(ip)) return reply(ip);
    if (this.hosts.has(ip)) return this.hostReachesPod(src, ip) ? reply(ip) : lost(FLANNEL_VXLAN_HOST.why, FLANNEL_VXLAN_HOST.fix);
    if (this.isClusterAddress(ip)) return lost(`no host has ${ip}`);
    const host = this.hosts.get(from);
    const egress = host && this.outside?.egress(host);
    const nat = egress && outboundSource(from, ip, egress);
    if (nat && !nat.replies) {
      return lost(nat.natted ? `NATed to the node's own address ${nat.source} on l2bridge, the reply stays on the node`
        : `the ExceptionList leaves ${ip} un-NATed, and ${from} is routable only inside the cluster's networks: the reply is lost`);
    }
    // win-overlay and win-bridge do not transpose outbound ICMP: nothing outside the cluster's networks answers a Windows pod.
    const windowsPod = egress ? egress.os === 'windows' : src.kind === 'pod' && src.node.os === 'windows';
    if (windowsPod && (!egress || destinationKind(ip, egress) === 'external')) {
      return lost('win-overlay and win-bridge do not translate outbound ICMP: nothing outside the cluster\'s networks answers a Windows pod',
        'check outbound connectivity with TCP (curl.exe) instead of ping');
    }
    const answer = this.outside?.world.ping(ip);
    return answer?.kind === 'reply' ? { result: answer, why: '' } : lost(`nothing answers ${ip}`);
  }

  /** A connection leaving the cluster: the outside host sees the source the node's SNAT gives it (a node's own address as it is). */
  private connectOutside(src: Source, local: Endpoint, ip: string, port: number): ConnectResult {
    if (!this.outside || src.kind === 'outside') return { kind: 'timeout' };
    const host = this.hosts.get(src.ip);
    const egress = host && this.outside.egress(host);
    const nat = egress ? outboundSource(src.ip, ip, egress) : { source: src.ip, replies: true };
    if (!nat.replies) return { kind: 'timeout' };
    return this.outside.world.connect(local, { ip: nat.source, port: local.port }, ip, port);
  }

  private policyAdmits(from: string, to: string, protocol: 'TCP' | 'UDP' | 'ICMP', port: number): boolean {
    const policy = this.lookups.policy;
    return !policy || policyVerdict(policy, (ip) => this.hosts.get(ip), from, to, protocol, port) === 'allowed';
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
      listen: (port, accept, closed, tls) => owning(this.listen(podIP, port, 'TCP', accept, tls), owned, closed),
      sendDatagram: (ip, port, payload) => this.sendDatagram(podIP, isLoopback(ip) ? podIP : ip, port, payload),
      listenDatagram: (port, handler, closed) => owning(this.listenDatagram(podIP, port, handler), owned, closed),
    };
  }

  private index(): ServiceIndex {
    if (this.indexed) return this.indexed;
    const idx = new ServiceIndex(this.lookups);
    // Without change notifications nothing says when to drop it: keep none.
    if (this.lookups.onChange) this.indexed = idx;
    return idx;
  }

  private settings(): PodNetworkSettings { return this.lookups.podNetwork?.() ?? DEFAULT_NETWORK; }

  /** Windows kube-proxy's DSR: --enable-dsr as its start script passes it, with the WinDSR gate on. */
  private windowsDSR(): boolean {
    const net = this.settings();
    const dsr = windowsDSR(net.plugin, net.kubeProxy);
    const gates = { ...KUBE_PROXY_GATE_DEFAULTS, ...(dsr ? { WinDSR: true } : {}), ...net.kubeProxy?.featureGates };
    return dsr && gates.WinDSR === true;
  }

  private sourceOf(ip: string): Source {
    const idx = this.index();
    const node = idx.nodeByIP(ip);
    if (node) return { kind: 'host', ip, node };
    const host = this.hosts.get(ip);
    if (host) return { kind: 'pod', ip, node: idx.nodeByName(host.node) ?? idx.nodeOfPodIP(ip) ?? UNKNOWN_NODE };
    const owner = idx.nodeOfPodIP(ip);
    if (owner) return { kind: 'pod', ip, node: owner };
    return idx.hasNodes ? { kind: 'outside', ip } : { kind: 'pod', ip, node: UNKNOWN_NODE };
  }

  /** Pod CIDR, Service CIDR and the nodes' own addresses: what the cluster answers for, rather than the outside. */
  private isClusterAddress(ip: string): boolean {
    const net = this.settings();
    return ipv4InCIDR(ip, net.podSubnet ?? DEFAULT_POD_SUBNET) || ipv4InCIDR(ip, SERVICE_SUBNET) || !!this.index().nodeByIP(ip);
  }

  /** flannel on Windows (VXLAN): a node reaches only its own pods (windows-networking.md). */
  private hostReachesPod(src: Source, podIP: string): boolean {
    if (src.kind !== 'host' || src.node.os !== 'windows') return true;
    const net = this.settings();
    if (net.plugin !== 'flannel' || net.mode !== 'overlay') return true;
    const owner = this.hosts.get(podIP)?.node ?? this.index().nodeOfPodIP(podIP)?.name;
    return owner === src.node.name;
  }

  private routeFrom(src: Source, ip: string, port: number, hops?: string[]): Route {
    const idx = this.index();
    const stop = (why: string, fix?: string): Route => {
      hops?.push(stopHop(why), ...(fix ? [fixHop(fix)] : []));
      return { kind: 'timeout' };
    };
    const svc = idx.byClusterIP(ip);
    if (svc) {
      // The Service CIDR is routed nowhere outside the nodes; Windows nodes do not reach Service VIPs themselves.
      if (src.kind === 'outside') return stop('the Service CIDR is not routed outside the nodes');
      if (src.kind === 'host' && src.node.os === 'windows') return stop('Service VIPs are not reachable from Windows nodes',
        'connect from a pod (pod → Service works), or from the node to an endpoint\'s pod IP');
      return this.throughProxy(src.node, src, svc, tcpPort(svc, (p) => p.port === port), 'clusterIP', src.kind === 'pod' ? 'pod' : 'local', ip, port, hops);
    }
    const ext = idx.byExternalAddress(ip);
    if (ext) {
      // Inside the cluster the client's own node intercepts the address; from outside, the node the packets enter by.
      const node = src.kind === 'outside' ? src.entry : src.node;
      if (!node) return stop(`no node routes ${ip}`);
      return this.throughProxy(node, src, ext.service, tcpPort(ext.service, (p) => p.port === port), ext.frontend, sourceKind(src, node), ip, port, hops);
    }
    const target = idx.nodeByIP(ip);
    const np = target ? idx.byNodePort(port) : undefined;
    if (target && np) {
      if (src.kind === 'host' && src.node.name === target.name && target.os === 'windows') return stop('a Windows node does not reach its own nodePorts',
        'use another node\'s address for the nodePort, or the Service from a pod (local NodePort access from the node itself is not supported on Windows)');
      return this.throughProxy(target, src, np.service, np.port, 'nodePort', sourceKind(src, target), ip, port, hops);
    }
    if (target || this.hosts.has(ip) || this.isClusterAddress(ip)) {
      if (!this.hostReachesPod(src, ip)) return stop(FLANNEL_VXLAN_HOST.why, FLANNEL_VXLAN_HOST.fix);
      return { kind: 'pod', ip, port, client: src.kind === 'host' ? this.hostAddress(src.node, ip) : src.ip };
    }
    return { kind: 'outside' };
  }

  /** The address a node's own connection to `to` leaves with. */
  private hostAddress(node: NetNode, to: string): string {
    if (node.os === 'windows' || !node.internalIP) return node.internalIP;
    return linuxNodeAddress(node, to, this.settings(), this.isPodAddress(to));
  }

  private isPodAddress(ip: string): boolean { return this.hosts.has(ip) || !!this.index().nodeOfPodIP(ip); }

  private throughProxy(node: NetNode, src: Source, service: Service, svcPort: ServicePort | undefined, frontend: Frontend, source: SourceKind,
    vip: string, vport: number, hops?: string[]): Route {
    if (!svcPort) {
      hops?.push(stopHop(`${vip} has no rule for port ${vport}/tcp: dropped`));
      return { kind: 'timeout' };
    }
    const idx = this.index();
    const endpoints = idx.endpoints(service, svcPort.name ?? '');
    const settings = this.settings();
    const input = { node, mode: settings.mode, dsr: this.windowsDSR(), service, port: svcPort, frontend, source, endpoints };
    const d: ProxyDecision = node.os === 'windows' ? winkernelDecision(input) : iptablesDecision(input);
    const spn = servicePortName(service, svcPort);
    const spec = service.spec ?? {};
    const localOnly = frontend === 'clusterIP' ? spec.internalTrafficPolicy === 'Local' : spec.externalTrafficPolicy === 'Local' && source === 'external';
    hops?.push(ruleHop(node, frontend, spn, vip, vport, d, localOnly));
    if (!hops && d.kind !== 'refused' && d.log) this.recordLog(node.name, d.log);
    if (d.kind !== 'balance') return d.kind === 'refused' ? { kind: 'refused' } : { kind: 'timeout' };
    const ns = service.metadata?.namespace ?? 'default';
    const name = service.metadata?.name ?? '';
    const pick = this.pick(node, `${ns}/${name}`, svcPort.port, src.ip, d, !hops);
    const port = d.backendPort ?? pick.port ?? targetPortNumber(svcPort);
    const client = this.clientSeen(node, src, d, pick.ip);
    hops?.push(endpointHop(node, spn, pick.ip, port, client, client !== src.ip));
    return { kind: 'pod', ip: pick.ip, port, client, service: { namespace: ns, name } };
  }

  /** One endpoint: the client's pinned one under session affinity, else one at random (`statistic --mode random`, HNS's hash). */
  private pick(node: NetNode, service: string, port: number, client: string, d: Extract<ProxyDecision, { kind: 'balance' }>,
    remember: boolean): { ip: string; port?: number } {
    const eps = d.endpoints;
    const key = { node: node.name, service, port, client };
    const now = this.now();
    const pinned = d.affinity ? this.affinity.lookup(key, eps, now, d.affinity.timeoutSeconds) : undefined;
    const pick = (pinned !== undefined ? eps.find((e) => e.ip === pinned) : undefined)
      ?? eps[Math.min(eps.length - 1, Math.floor(this.random() * eps.length))]!;
    if (d.affinity && remember) this.affinity.pin(key, pick.ip, now);
    return pick;
  }

  /** The source address the backend sees after the node's rules. */
  private clientSeen(node: NetNode, src: Source, d: Extract<ProxyDecision, { kind: 'balance' }>, backend: string): string {
    if (node.os === 'windows') {
      if (d.snat) return windowsSourceVip(node, this.settings().mode, d.endpoints.some((e) => !this.isPodAddress(e.ip)));
      return src.kind === 'host' ? src.node.internalIP : src.ip;
    }
    // A pod reaching itself through a Service is masqueraded too (KUBE-SEP's hairpin rule).
    if (d.snat || backend === src.ip) return node.internalIP ? linuxNodeAddress(node, backend, this.settings(), this.isPodAddress(backend)) : src.ip;
    return src.kind === 'host' ? this.hostAddress(src.node, backend) : src.ip;
  }

  private recordLog(node: string, lines: string[]): void {
    let set = this.proxyLogs.get(node);
    if (!set) this.proxyLogs.set(node, set = new Set());
    for (const l of lines) set.add(l);
  }

  private ephemeralPort(): number {
    const p = this.nextPort;
    this.nextPort = p >= EPHEMERAL.last ? EPHEMERAL.first : p + 1;
    return p;
  }
}

const listenerKey = (ip: string, port: number, protocol: string) => `${ip}|${port}|${protocol}`;

/** A pod's socket, closed with its process (`owned`) or by the program, once. */
function owning(l: Listening | undefined, owned: Set<Listening>, closed?: () => void): Listening | undefined {
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
}

const isLoopback = (ip: string) => /^127\./.test(ip) || ip === '::1' || ip === 'localhost';

function tcpPort(svc: Service, match: (p: ServicePort) => boolean): ServicePort | undefined {
  return (svc.spec?.ports ?? []).find((p) => match(p) && (p.protocol ?? 'TCP') === 'TCP');
}

/** How the node whose rules apply sees the source: a pod, itself, or anything else. */
function sourceKind(src: Source, node: NetNode): SourceKind {
  if (src.kind === 'pod') return 'pod';
  return src.kind === 'host' && src.node.name === node.name ? 'local' : 'external';
}

/** A Service port's numeric targetPort (its port when unset); a name only the endpoints can resolve. */
function targetPortNumber(p: ServicePort): number {
  return typeof p.targetPort === 'number' ? p.targetPort : typeof p.targetPort === 'string' && /^\d+$/.test(p.targetPort) ? Number(p.targetPort) : p.port;
}

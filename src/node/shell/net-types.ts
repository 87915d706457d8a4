/**
 * What a container's programs see of the cluster network: name resolution
 * by the pod's resolver rules, TCP connections routed as the node's data
 * plane routes them, and listening sockets. The shells depend on these
 * shapes only; the cluster network model (src/node/net) implements them.
 *
 * A connection carries HTTP/1.1 exchanges: the model's applications and
 * clients speak HTTP, so a request and its response are whole messages.
 */
import type { HttpReply, HttpRequest } from '../../apimachinery/http-exchange.js';
import type { Pending } from './pending.js';

export type { HttpReply, HttpRequest, HttpResponse } from '../../apimachinery/http-exchange.js';

export interface Endpoint { ip: string; port: number }

/** The outcome of a TCP connect. */
export type ConnectResult =
  | {
    kind: 'connected'; local: Endpoint; remote: Endpoint; exchange(req: HttpRequest): Pending<HttpReply>;
    /** A server that speaks TLS (the API server): the PEM of the CA that issued its certificate. */
    tlsCA?: string;
    /** A pod's server that speaks TLS: the PEM chain it serves (leaf first), for clients that verify it. */
    serverCertificate?: string;
  }
  /** A RST (nothing listens on a pod's port) or kube-proxy's REJECT (a Service without endpoints). */
  | { kind: 'refused' }
  /** The SYNs go unanswered: no host has the address, or no rule routes the port. */
  | { kind: 'timeout' };

/** Whether the server at the other end speaks TLS (the API server's port or a pod's TLS listener). */
export function speaksTLS(conn: Extract<ConnectResult, { kind: 'connected' }>): boolean {
  return conn.tlsCA !== undefined || conn.serverCertificate !== undefined;
}

/** A listener that speaks TLS: the certificate chain (PEM, leaf first) it presents. */
export interface ServerTLS { certificate: string }

/** A listening socket's handler: one HTTP exchange of a client connection. */
export type Acceptor = (req: HttpRequest, conn: { client: Endpoint; local: Endpoint }) => Pending<HttpReply>;

export interface Listening { close(): void }

/**
 * A UDP socket's handler: one datagram in (its payload as text, the
 * address it came from), the datagrams the program sends back to it.
 */
export type DatagramHandler = (payload: string, client: Endpoint) => string[];

/**
 * What a client that sent one datagram and reads its socket sees: the
 * answers (from the address they came from, after the data plane's
 * rewrites), an ICMP port unreachable (nothing bound the port on a host
 * that has the address: the next read fails with ECONNREFUSED), or nothing.
 */
export type DatagramResult =
  | { kind: 'reply'; local: Endpoint; payloads: string[] }
  | { kind: 'refused'; local: Endpoint }
  | { kind: 'unanswered'; local: Endpoint };

/** The outcome of one ICMP echo request: a reply (from the address that answered), or nothing back. */
export type PingResult = { kind: 'reply'; from: string } | { kind: 'timeout' };

/** A name as a query tool shows it: the fully qualified name that answered and its addresses. */
export interface NameAnswer { name: string; addresses: string[] }

/** A resource record in presentation form: `data` as a zone file writes it (`0 100 80 target.` for SRV). */
export interface PresentedRecord { name: string; ttl: number; type: string; data: string }

/** The query types the query tools can ask the model's DNS for. */
export type QueryType = 'A' | 'AAAA' | 'SRV' | 'CNAME' | 'TXT' | 'SOA' | 'NS' | 'PTR' | 'ANY';

/** A DNS server's reply to one query, as dig prints it. */
export interface DNSReply {
  status: 'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'NOTIMP' | 'REFUSED';
  /** The AA and RA flags (QR is always set; RD echoes the query's). */
  aa: boolean;
  ra: boolean;
  answer: PresentedRecord[];
  authority: PresentedRecord[];
  additional: PresentedRecord[];
  /** The message's size on the wire, with the EDNS0 OPT record the query carried echoed back. */
  size: number;
  /** How long the server took to answer (a forward to an upstream that does not answer). */
  delayMs: number;
}

/** The cluster network as one container's processes reach it. */
export interface PodNetAccess {
  /** The pod's own address (what a wildcard listener binds). */
  readonly podIP: string;
  /**
   * Addresses of a name by the pod's resolver (cluster DNS, search list,
   * ndots / the Windows single-suffix rule); undefined when it does not
   * resolve. IP literals are returned as they are.
   */
  resolve(name: string): string[] | undefined;
  /** The same lookup as resolve, naming the candidate that answered (what nslookup and Resolve-DnsName print). */
  lookup(name: string): NameAnswer | undefined;
  /**
   * The name a PTR query of the cluster DNS gives for an address (a
   * Service's ClusterIP: `kube-dns.kube-system.svc.cluster.local`), without
   * the trailing dot; undefined when there is none. Optional: a network
   * without reverse records leaves the query tools naming their server
   * `UnKnown`, as Windows nslookup does when the PTR query fails.
   */
  reverse?(ip: string): string | undefined;
  /**
   * One query to the pod's DNS server for a fully qualified name, without
   * a search list (dig's). Optional: without it the tools can only resolve.
   */
  query?(fqdn: string, type: QueryType): DNSReply;
  /** One ICMP echo request to an address. */
  ping(ip: string): PingResult;
  connect(ip: string, port: number): ConnectResult;
  /**
   * Binds the port on the pod's addresses; undefined when something in the
   * pod already listens there. `closed` runs when the socket is closed,
   * by the program or because its process ended.
   */
  listen(port: number, accept: Acceptor, closed?: () => void, tls?: ServerTLS): Listening | undefined;
  /** One datagram from an ephemeral UDP port of the pod to ip:port. Optional: a network without UDP answers nothing. */
  sendDatagram?(ip: string, port: number, payload: string): DatagramResult;
  /** Binds the UDP port on the pod's addresses, as listen binds a TCP one. */
  listenDatagram?(port: number, handler: DatagramHandler, closed?: () => void): Listening | undefined;
}

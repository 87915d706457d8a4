/**
 * How the API server reaches an endpoint that is an emulated pod (a webhook's, a CRD conversion
 * webhook's, an aggregated API server's): not with a socket of this host, which cannot reach the
 * cluster network model, but through the model, as the kubelet's port-forward does. The wiring
 * (cluster/) gives the server a PodEndpointDialer over the node farm's network; callers dial with
 * it first and fall back to a real socket when it answers undefined (the address is not an
 * emulated pod's: a server on this host behind hand-written Endpoints).
 *
 * On a connection, `httpsExchange` plays the client's half of TLS as Go's crypto/tls does: the
 * server must speak TLS, and its certificate must be valid now, be for the name the caller
 * verifies (`<service>.<namespace>.svc`) and chain to one of the trusted CAs; failures read as
 * Go's net/http, crypto/tls and crypto/x509 word them, without the `Post "<url>": ` prefix the
 * caller adds.
 */
import type { HttpReply, HttpRequest, HttpResponse } from '../apimachinery/http-exchange.js';
import { verifyServerCertificate } from './tls-verify.js';

/** A connection to a pod's listener through the cluster network model. */
export type PodEndpointConnection =
  | {
    kind: 'connected';
    /** The PEM chain the listener serves (leaf first) when it speaks TLS; absent: plain HTTP. */
    serverCertificate?: string;
    exchange(req: HttpRequest): Promise<HttpReply>;
  }
  /** A RST: the pod runs but nothing listens on the port. */
  | { kind: 'refused' }
  /** Nothing answers: no running pod has the address, or a rule drops the SYN. */
  | { kind: 'timeout' };

export interface PodEndpointDialer {
  /** A TCP connection to ip:port in the cluster network; undefined when the address is not one the model holds. */
  dial(ip: string, port: number): PodEndpointConnection | undefined;
  /**
   * A TCP connection to any address of the model, from `from` (pods/proxy and services/proxy dial
   * from the node of the pod that has ip: the control plane reaches every pod as its node does).
   */
  dialFrom(from: string, ip: string, port: number): PodEndpointConnection;
}

/**
 * What the client trusts and checks: the CA bundle (PEM; empty trusts nothing, as the system roots
 * hold no cluster CA) and the name the certificate must carry; `insecure` is InsecureSkipVerify (an
 * APIService's insecureSkipTLSVerify), which still needs the server to speak TLS.
 */
export interface TLSClientConfig { caBundle: string; serverName: string; insecure?: boolean }

/** The outcome of one HTTPS exchange: the response, or the Go error text of what failed. */
export type HttpsOutcome = { kind: 'response'; response: HttpResponse } | { kind: 'failed'; reason: string } | { kind: 'unanswered' };

/** net.JoinHostPort */
const hostPort = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/**
 * One request over a fresh connection from `dial`: the TCP outcome, the TLS handshake, the
 * exchange. `unanswered` means the client waits until its own deadline (a dropped SYN).
 */
export async function httpsExchange(conn: PodEndpointConnection, ip: string, port: number, tls: TLSClientConfig,
  req: HttpRequest, now: Date): Promise<HttpsOutcome> {
  if (conn.kind === 'refused') return { kind: 'failed', reason: `dial tcp ${hostPort(ip, port)}: connect: connection refused` };
  if (conn.kind === 'timeout') return { kind: 'unanswered' };
  // Go's client reads the plain server's answer to its ClientHello as an HTTP response.
  if (conn.serverCertificate === undefined) return { kind: 'failed', reason: 'http: server gave HTTP response to HTTPS client' };
  const bad = !tls.insecure && verifyServerCertificate(conn.serverCertificate, tls.caBundle, tls.serverName, now);
  if (bad) return { kind: 'failed', reason: `tls: failed to verify certificate: ${bad}` };
  const reply = await conn.exchange(req);
  // The server went away before it answered (net/http's readLoop sees the connection close).
  if (reply === 'reset') return { kind: 'failed', reason: 'EOF' };
  return { kind: 'response', response: reply };
}

/**
 * httpsExchange raced against the caller's deadline (ms; none: no limit). A dropped SYN is ended
 * only by that deadline, as a Go client waits out its dial timeout or its context.
 */
export async function httpsExchangeBefore(deadlineMs: number | undefined, ...call: Parameters<typeof httpsExchange>):
  Promise<Exclude<HttpsOutcome, { kind: 'unanswered' }> | 'deadline'> {
  const exchange = httpsExchange(...call)
    .then((o): Exclude<HttpsOutcome, { kind: 'unanswered' }> | Promise<never> => (o.kind === 'unanswered' ? new Promise<never>(() => { /* only the deadline ends it */ }) : o));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    if (deadlineMs !== undefined) timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  return Promise.race([exchange, deadline]).finally(() => clearTimeout(timer));
}

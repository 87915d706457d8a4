/**
 * One HTTPS exchange with an emulated pod's endpoint for the aggregator (its proxy and its
 * availability check): pod-endpoint-dial.ts's httpsExchange, plus the client that does not
 * verify the server at all (an APIService's insecureSkipTLSVerify, the availability check's
 * InsecureSkipVerify), which still needs the server to speak TLS. Dial failures are the
 * caller's to word, since upstream names the Service's cluster address, not the pod's.
 */
import type { HttpRequest } from '../apimachinery/http-exchange.js';
import { httpsExchange, type HttpsOutcome, type PodEndpointConnection } from './pod-endpoint-dial.js';

export interface PodTLSClient {
  /** PEM; empty trusts nothing (the system roots hold no cluster CA). */
  caBundle: string;
  serverName: string;
  /** InsecureSkipVerify: any certificate is accepted. */
  insecure: boolean;
}

export async function podHttpsExchange(conn: Extract<PodEndpointConnection, { kind: 'connected' }>, ip: string, port: number,
  tls: PodTLSClient, req: HttpRequest, now: Date): Promise<HttpsOutcome> {
  if (!tls.insecure) return httpsExchange(conn, ip, port, { caBundle: tls.caBundle, serverName: tls.serverName }, req, now);
  if (conn.serverCertificate === undefined) return { kind: 'failed', reason: 'http: server gave HTTP response to HTTPS client' };
  const reply = await conn.exchange(req);
  if (reply === 'reset') return { kind: 'failed', reason: 'EOF' };
  return { kind: 'response', response: reply };
}

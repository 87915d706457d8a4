/**
 * An httpGet probe's request over a connection of the pod network, as pkg/probe/http does it
 * (v1.32): `kube-probe/<major>.<minor>`, the connection closed after it, and for `scheme: HTTPS`
 * a TLS handshake with InsecureSkipVerify (the certificate is never checked, but the server
 * must speak TLS). 2xx and 3xx pass, other statuses fail with `HTTP probe failed with
 * statuscode: N`; a transport error fails with client.Do's error, a url.Error (`Get "<url>": `
 * and net/http's text).
 */
import { speaksTLS, type ConnectResult } from '../shell/net-types.js';
import { GO_TLS_LISTENER_PLAIN_HTTP_ANSWER } from '../../apimachinery/http-exchange.js';
import type { ProbeResult } from './prober.js';

export interface HttpProbeRequest { scheme: 'http' | 'https'; host: string; port: number; target: string }

/** The probe's URL as Go's url.URL prints it. */
export function probeURL(r: HttpProbeRequest): string {
  const host = r.host.includes(':') ? `[${r.host}]` : r.host;
  return `${r.scheme}://${host}:${r.port}${r.target}`;
}

/**
 * One probe over `conn`. A server that has not answered yet (a script still busy) or whose
 * process went away mid-request counts as passing, as the model has always had it.
 */
export function httpProbeOver(conn: Extract<ConnectResult, { kind: 'connected' }>, r: HttpProbeRequest): ProbeResult {
  const tlsListener = speaksTLS(conn);
  // The plain server's answer to the ClientHello reads as an HTTP response (net/http transport.go).
  if (r.scheme === 'https' && !tlsListener) return { ok: false, output: `Get "${probeURL(r)}": http: server gave HTTP response to HTTPS client` };
  // A Go TLS server's answer to a plain request (net/http server.go).
  if (r.scheme === 'http' && tlsListener) return { ok: false, output: `HTTP probe failed with statuscode: ${GO_TLS_LISTENER_PLAIN_HTTP_ANSWER.status}` };
  const reply = conn.exchange({ method: 'GET', target: r.target, body: new Uint8Array(),
    headers: [['Host', `${r.host}:${r.port}`], ['User-Agent', 'kube-probe/1.32'], ['Accept', '*/*'], ['Connection', 'close']] });
  if (!reply.settled || reply.value === 'reset') return { ok: true, output: '' };
  const status = reply.value.status;
  return status >= 200 && status < 400 ? { ok: true, output: '' } : { ok: false, output: `HTTP probe failed with statuscode: ${status}` };
}

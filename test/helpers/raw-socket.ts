import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { credentials, type TestCluster } from './cluster.js';

/** An answer read off the wire: the status line, headers as sent, the body, all bytes. */
export interface WireResponse { statusLine: string; status: number; headers: Record<string, string>; body: string; raw: string }

/** A TLS connection to the cluster as the admin user (or with other credentials). */
export function openTls(cluster: TestCluster, opts: Partial<ConnectionOptions> = {}): Promise<TLSSocket> {
  const c = credentials(cluster);
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: cluster.port, ca: c.ca, cert: c.cert, key: c.key, servername: 'localhost', ...opts }, () => resolve(s));
    s.once('error', reject);
  });
}

export function parseWire(raw: string): WireResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  let body = end < 0 ? '' : raw.slice(end + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  if (headers['transfer-encoding'] === 'chunked') {
    let out = '';
    let rest = body;
    for (;;) {
      const nl = rest.indexOf('\r\n');
      if (nl < 0) break;
      const size = parseInt(rest.slice(0, nl), 16);
      if (!size) break;
      out += rest.slice(nl + 2, nl + 2 + size);
      rest = rest.slice(nl + 2 + size + 2);
    }
    body = out;
  }
  return { statusLine, status: Number(statusLine.split(' ')[1]), headers, body, raw };
}

/**
 * Sends bytes as they are (no client-side checks or path clean-up) and reads until the server
 * closes the connection or `timeoutMs` passes; `closed` says whether the server hung up.
 */
export async function sendRaw(cluster: TestCluster, request: string | Buffer, opts: { timeoutMs?: number; tls?: Partial<ConnectionOptions> } = {}): Promise<WireResponse & { closed: boolean }> {
  const s = await openTls(cluster, opts.tls);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ ...parseWire(Buffer.concat(chunks).toString('utf8')), closed });
    };
    const timer = setTimeout(() => finish(false), opts.timeoutMs ?? 10_000);
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('end', () => finish(true));
    s.on('close', () => finish(true));
    s.on('error', () => finish(true));
    s.write(request);
  });
}

/** A request head with the admin's credentials implied by the TLS client certificate. */
export function requestHead(method: string, target: string, headers: Record<string, string> = {}): string {
  const all = { Host: 'localhost', Accept: 'application/json', Connection: 'close', ...headers };
  return `${method} ${target} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

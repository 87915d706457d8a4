import { connect, type TLSSocket } from 'node:tls';

/**
 * A small HTTP/1.1 load generator over TLS keep-alive connections. Node's
 * https client costs more CPU per request than the server under test, which
 * on a 2-core machine would make the client the bottleneck.
 */
export interface LoadTarget { port: number; ca: Buffer; cert: Buffer; key: Buffer }

const LAST_CHUNK = Buffer.from('0\r\n\r\n');

/** A chunked body starting at `start`, and where it ends; undefined while incomplete. */
export function dechunk(buf: Buffer, start: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return buf.length >= eol + 4 ? { body: Buffer.concat(parts), end: eol + 4 } : undefined;
    if (buf.length < eol + 2 + size + 2) return undefined;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

export class Connection {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes the response in progress needs in all (header and body), once its header is read. */
  private need = 0;
  /** The response in progress is chunked and not complete yet. */
  private chunked = false;
  private waiting?: { resolve: (r: { status: number; body: string }) => void; reject: (e: Error) => void };

  private constructor(private readonly socket: TLSSocket) {
    socket.on('data', (d: Buffer) => { this.chunks.push(d); this.size += d.length; this.parse(); });
    socket.on('error', (e) => this.waiting?.reject(e));
  }

  static open(t: LoadTarget): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: t.port, ca: t.ca, cert: t.cert, key: t.key }, () => resolve(new Connection(s)));
      s.once('error', reject);
    });
  }

  /** Joins what arrived only when the response can be complete, so large bodies are not copied per chunk. */
  private parse(): void {
    if (!this.waiting || (this.need && this.size < this.need)) return;
    // A chunked body can only be complete once its terminating empty chunk arrived.
    if (this.chunked && !this.chunks.at(-1)?.subarray(-5).equals(LAST_CHUNK)) return;
    let buf = Buffer.concat(this.chunks, this.size);
    this.chunks = [buf];
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = buf.subarray(0, end).toString('latin1');
    let body: string;
    if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      // A streamed (chunked) body: complete once its last, empty chunk is in.
      const decoded = dechunk(buf, end + 4);
      this.chunked = !decoded;
      if (!decoded) return;
      this.need = decoded.end;
      body = decoded.body.toString('utf8');
    } else {
      this.need = end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.size < this.need) return;
      body = buf.subarray(end + 4, this.need).toString('utf8');
    }
    buf = buf.subarray(this.need);
    this.chunks = buf.length ? [buf] : [];
    this.size = buf.length;
    this.need = 0;
    const w = this.waiting;
    this.waiting = undefined;
    w.resolve({ status: Number(head.slice(9, 12)), body });
  }

  request(method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      const len = body === undefined ? 0 : Buffer.byteLength(body);
      this.socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${len}\r\n\r\n${body ?? ''}`);
    });
  }

  close(): void { this.socket.end(); }
}

/**
 * Runs n requests over `concurrency` connections; returns seconds taken, sorted latencies in ms and,
 * in the order they completed, when each request finished (ms from the start) and its latency.
 */
export async function runLoad(t: LoadTarget, concurrency: number, n: number,
  req: (i: number) => { method: string; path: string; body?: string; contentType?: string; expect: number }):
  Promise<{ seconds: number; lat: number[]; series: { at: number; ms: number }[] }> {
  const conns = await Promise.all(Array.from({ length: concurrency }, () => Connection.open(t)));
  const lat: number[] = [];
  const series: { at: number; ms: number }[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(conns.map(async (c) => {
    while (next < n) {
      const r = req(next++);
      const s = performance.now();
      const res = await c.request(r.method, r.path, r.body, r.contentType);
      const end = performance.now();
      lat.push(end - s);
      series.push({ at: end - start, ms: end - s });
      if (res.status !== r.expect) throw new Error(`${r.method} ${r.path}: ${res.status} ${res.body.slice(0, 300)}`);
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  for (const c of conns) c.close();
  return { seconds, lat: lat.sort((a, b) => a - b), series };
}

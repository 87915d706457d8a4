import { connect, type TLSSocket } from 'node:tls';

/**
 * A small HTTP/1.1 load generator over TLS keep-alive connections. Node's
 * https client costs more CPU per request than the server under test, which
 * on a 2-core machine would make the client the bottleneck.
 */
export interface LoadTarget { port: number; ca: Buffer; cert: Buffer; key: Buffer }

export class Connection {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes the response in progress needs in all (header and body), once its header is read. */
  private need = 0;
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
    let buf = Buffer.concat(this.chunks, this.size);
    this.chunks = [buf];
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = buf.subarray(0, end).toString('latin1');
    this.need = end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.size < this.need) return;
    const body = buf.subarray(end + 4, this.need).toString('utf8');
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

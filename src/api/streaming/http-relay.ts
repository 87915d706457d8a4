/**
 * A forwarded TCP connection's bytes as HTTP/1.1 messages: requests are
 * parsed from what the local client sends, each goes through `exchange`, and
 * its response is serialized back, in order (HTTP/1.1 pipelining keeps
 * responses in request order). Bodies are framed by Content-Length or
 * chunked transfer coding, as net/http's client sends them.
 */
import type { HttpReply, HttpRequest, HttpResponse } from '../../apimachinery/http-exchange.js';

export class HttpRequestParser {
  private buf = Buffer.alloc(0);

  /** Adds bytes; returns the requests now complete. Throws on a malformed message. */
  push(chunk: Buffer): HttpRequest[] {
    this.buf = Buffer.concat([this.buf, chunk]);
    const out: HttpRequest[] = [];
    for (;;) {
      const r = this.next();
      if (!r) return out;
      out.push(r);
    }
  }

  /** Whether bytes of an unfinished request are buffered. */
  get partial(): boolean { return this.buf.length > 0; }

  private next(): HttpRequest | undefined {
    // Stray CRLFs between requests are ignored (RFC 9112 §2.2).
    while (this.buf.length >= 2 && this.buf[0] === 0x0d && this.buf[1] === 0x0a) this.buf = this.buf.subarray(2);
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = this.buf.subarray(0, end).toString('latin1').split('\r\n');
    const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? '');
    if (!m) throw new Error(`malformed request line ${JSON.stringify(lines[0])}`);
    const headers: [string, string][] = [];
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      if (i <= 0) throw new Error(`malformed header line ${JSON.stringify(l)}`);
      headers.push([l.slice(0, i), l.slice(i + 1).trim()]);
    }
    const get = (n: string) => headers.find(([k]) => k.toLowerCase() === n)?.[1];
    let rest = this.buf.subarray(end + 4);
    let body: Buffer;
    if ((get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
      const decoded = decodeChunked(rest);
      if (!decoded) return undefined;
      body = decoded.body;
      rest = rest.subarray(decoded.consumed);
    } else {
      const len = Number(get('content-length') ?? '0');
      if (!Number.isInteger(len) || len < 0) throw new Error('malformed Content-Length');
      if (rest.length < len) return undefined;
      body = Buffer.from(rest.subarray(0, len));
      rest = rest.subarray(len);
    }
    this.buf = Buffer.from(rest);
    return { method: m[1]!, target: m[2]!, headers, body };
  }
}

/** A complete chunked body at the start of `b` and how many bytes it took; undefined while incomplete. */
function decodeChunked(b: Buffer): { body: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let off = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', off);
    if (eol < 0) return undefined;
    const size = parseInt(b.subarray(off, eol).toString('latin1').split(';')[0]!.trim(), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunk size');
    off = eol + 2;
    if (size === 0) {
      // Trailer fields end with an empty line.
      const end = b.indexOf('\r\n\r\n', off - 2);
      if (end < 0) return undefined;
      return { body: Buffer.concat(parts), consumed: end + 4 };
    }
    if (b.length < off + size + 2) return undefined;
    parts.push(b.subarray(off, off + size));
    off += size + 2;
  }
}

/** The response as bytes; a Content-Length is added when the application set neither it nor a transfer coding. */
export function serializeResponse(res: HttpResponse, headRequest: boolean): Buffer {
  const has = (n: string) => res.headers.some(([k]) => k.toLowerCase() === n);
  const lines = [`HTTP/1.1 ${res.status} ${res.reason}`, ...res.headers.map(([k, v]) => `${k}: ${v}`)];
  if (!has('content-length') && !has('transfer-encoding')) lines.push(`Content-Length: ${res.body.length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  return headRequest ? head : Buffer.concat([head, res.body]);
}

/** Whether the connection ends after this exchange (Connection: close on either side). */
function closes(req: HttpRequest, res: HttpResponse): boolean {
  const close = (h: [string, string][]) => h.some(([k, v]) => k.toLowerCase() === 'connection' && v.toLowerCase().split(',').some((t) => t.trim() === 'close'));
  return close(req.headers) || close(res.headers);
}

export interface ByteConnection {
  onData(f: (chunk: Buffer) => void): void;
  /** The client finished sending (half-close). */
  onEnd(f: () => void): void;
  write(data: Buffer): void;
  /** Half-closes our side after what was written. */
  end(): void;
  /** Abandons the connection (a RST from the application). */
  reset(): void;
}

/** Relays one forwarded connection to an application reached through `exchange`. */
export function relayHttp(conn: ByteConnection, exchange: (req: HttpRequest) => Promise<HttpReply>): void {
  const parser = new HttpRequestParser();
  let chain: Promise<boolean> = Promise.resolve(true);
  let done = false;
  const finish = (how: 'end' | 'reset') => { if (done) return; done = true; if (how === 'end') conn.end(); else conn.reset(); };
  conn.onData((chunk) => {
    if (done) return;
    let reqs: HttpRequest[];
    try { reqs = parser.push(chunk); } catch { return finish('end'); }
    for (const req of reqs) {
      chain = chain.then(async (open) => {
        if (!open || done) return false;
        const reply = await exchange(req).catch((): HttpReply => 'reset');
        if (reply === 'reset') { finish('reset'); return false; }
        conn.write(serializeResponse(reply, req.method === 'HEAD'));
        if (closes(req, reply)) { finish('end'); return false; }
        return true;
      });
    }
  });
  conn.onEnd(() => { void chain.then(() => finish('end')); });
}

import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { FLAG_FIN, FrameReader, FrameWriter, RstStatus, type Frame } from './frames.js';
import type { SpdyHeaders } from './header-block.js';

/** How much one DATA frame carries at most when we write (spdystream writes what it is given). */
const DATA_CHUNK = 32 * 1024;

/**
 * One SPDY stream opened by the client. Emits 'data' (Buffer), 'end' when the
 * client half-closes (FIN), and 'reset' when it is reset or the connection
 * goes away before the client closed it.
 */
export class SpdyStream extends EventEmitter {
  remoteClosed = false;
  localClosed = false;

  constructor(readonly id: number, readonly headers: SpdyHeaders, private readonly session: SpdySession) { super(); }

  /** The first value of a header (names are lower case on the wire). */
  header(name: string): string | undefined { return this.headers[name.toLowerCase()]?.[0]; }

  write(data: Buffer | string): void {
    if (this.localClosed) return;
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < buf.length; off += DATA_CHUNK) {
      this.session.send({ type: 'data', streamId: this.id, flags: 0, data: buf.subarray(off, off + DATA_CHUNK) });
    }
  }

  /** Half-closes our side: an empty DATA frame with FIN. */
  end(): void {
    if (this.localClosed) return;
    this.localClosed = true;
    this.session.send({ type: 'data', streamId: this.id, flags: FLAG_FIN, data: Buffer.alloc(0) });
  }

  reset(status: number = RstStatus.Cancel): void {
    if (this.localClosed && this.remoteClosed) return;
    this.localClosed = true;
    this.session.send({ type: 'rst_stream', streamId: this.id, status });
    this.remoteGone();
  }

  /** @internal */
  remoteFinished(): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.emit('end');
  }

  /** @internal */
  remoteGone(): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.localClosed = true;
    this.emit('reset');
  }
}

/**
 * The server side of a SPDY/3.1 connection as kubectl's client (moby/spdystream
 * under k8s.io/apimachinery/pkg/util/httpstream/spdy) speaks it: the client
 * opens streams with SYN_STREAM, we accept each with an empty SYN_REPLY
 * (apimachinery's connection.newSpdyStream), data flows in DATA frames, FIN
 * half-closes, PINGs from the client are echoed. spdystream does no flow
 * control, so WINDOW_UPDATE and SETTINGS are read and ignored.
 */
export class SpdySession extends EventEmitter {
  private readonly reader = new FrameReader();
  private readonly writer = new FrameWriter();
  private readonly streams = new Map<number, SpdyStream>();
  private goneAway = false;
  private closed = false;
  private lastStreamId = 0;

  constructor(private readonly socket: Duplex, private readonly onStream: (s: SpdyStream) => void, head?: Buffer) {
    super();
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => this.teardown());
    socket.on('close', () => this.teardown());
    socket.on('end', () => this.teardown());
    if (head?.length) queueMicrotask(() => this.receive(head));
  }

  get isClosed(): boolean { return this.closed; }

  /** @internal */
  send(frame: Frame): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.write(this.writer.write(frame));
  }

  /**
   * Ends the connection the way spdystream's Connection.Close does: a GOAWAY
   * naming the last stream we accepted, then the socket is closed.
   */
  close(): void {
    if (this.closed) return;
    this.send({ type: 'goaway', lastGoodStreamId: this.lastStreamId, status: 0 });
    this.goneAway = true;
    this.socket.end();
    // A client that never closes its side must not keep the socket forever.
    setTimeout(() => this.socket.destroy(), 5_000).unref();
  }

  private receive(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      // A framing error leaves the byte stream unusable: spdystream drops the connection too.
      this.socket.destroy();
      return;
    }
    for (const f of frames) this.handle(f);
  }

  private handle(f: Frame): void {
    switch (f.type) {
      case 'syn_stream': {
        if (this.goneAway || this.streams.has(f.streamId) || f.streamId % 2 === 0 || f.streamId <= this.lastStreamId) {
          this.send({ type: 'rst_stream', streamId: f.streamId, status: RstStatus.ProtocolError });
          return;
        }
        this.lastStreamId = f.streamId;
        const stream = new SpdyStream(f.streamId, f.headers, this);
        this.streams.set(f.streamId, stream);
        this.onStream(stream);
        this.send({ type: 'syn_reply', streamId: f.streamId, flags: 0, headers: {} });
        if (f.flags & FLAG_FIN) stream.remoteFinished();
        return;
      }
      case 'data': {
        const stream = this.streams.get(f.streamId);
        if (!stream || stream.remoteClosed) return;
        if (f.data.length) stream.emit('data', f.data);
        if (f.flags & FLAG_FIN) stream.remoteFinished();
        return;
      }
      case 'rst_stream': {
        const stream = this.streams.get(f.streamId);
        if (stream) { stream.localClosed = true; stream.remoteGone(); this.streams.delete(f.streamId); }
        return;
      }
      case 'headers': {
        const stream = this.streams.get(f.streamId);
        if (stream && f.flags & FLAG_FIN) stream.remoteFinished();
        return;
      }
      case 'ping':
        // Client pings carry odd ids; ours would be even. Echo the peer's (spdystream handlePingFrame).
        if (f.id % 2 === 1) this.send({ type: 'ping', id: f.id });
        return;
      case 'goaway':
        this.goneAway = true;
        return;
      default:
        return;
    }
  }

  private teardown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.remoteGone();
    this.streams.clear();
    this.emit('close');
  }
}

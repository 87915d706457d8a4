import { decodeHeaderBlock, encodeHeaderBlock, HeaderCompressor, HeaderDecompressor, SpdyProtocolError, type SpdyHeaders } from './header-block.js';

/** SPDY/3 control frame types (moby/spdystream spdy/types.go). */
export const FrameType = {
  SynStream: 1, SynReply: 2, RstStream: 3, Settings: 4, Ping: 6, GoAway: 7, Headers: 8, WindowUpdate: 9,
} as const;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes. */
export const RstStatus = {
  ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, UnsupportedVersion: 4, Cancel: 5, InternalError: 6,
  FlowControlError: 7, StreamInUse: 8, StreamAlreadyClosed: 9,
} as const;

/** The largest DATA payload a frame can carry (24-bit length). */
export const MAX_DATA_LENGTH = (1 << 24) - 1;

export type Frame =
  | { type: 'data'; streamId: number; flags: number; data: Buffer }
  | { type: 'syn_stream'; streamId: number; associatedTo: number; priority: number; slot: number; flags: number; headers: SpdyHeaders }
  | { type: 'syn_reply'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'rst_stream'; streamId: number; status: number }
  | { type: 'settings'; flags: number; entries: { flags: number; id: number; value: number }[] }
  | { type: 'ping'; id: number }
  | { type: 'goaway'; lastGoodStreamId: number; status: number }
  | { type: 'headers'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'window_update'; streamId: number; delta: number };

function controlHeader(type: number, flags: number, length: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16BE(0x8000 | 3, 0);
  b.writeUInt16BE(type, 2);
  b.writeUInt32BE(((flags & 0xff) << 24 | length) >>> 0, 4);
  return b;
}

/** Serializes frames; header blocks go through the connection's one compressor. */
export class FrameWriter {
  private readonly compressor = new HeaderCompressor();

  write(f: Frame): Buffer {
    switch (f.type) {
      case 'data': {
        if (f.data.length > MAX_DATA_LENGTH) throw new SpdyProtocolError('data frame too large');
        const h = Buffer.alloc(8);
        h.writeUInt32BE(f.streamId & 0x7fffffff, 0);
        h.writeUInt32BE(((f.flags & 0xff) << 24 | f.data.length) >>> 0, 4);
        return Buffer.concat([h, f.data]);
      }
      case 'syn_stream': {
        const block = this.compressor.compress(encodeHeaderBlock(f.headers));
        const body = Buffer.alloc(10);
        body.writeUInt32BE(f.streamId & 0x7fffffff, 0);
        body.writeUInt32BE(f.associatedTo & 0x7fffffff, 4);
        body[8] = (f.priority & 0x7) << 5;
        body[9] = f.slot;
        return Buffer.concat([controlHeader(FrameType.SynStream, f.flags, 10 + block.length), body, block]);
      }
      case 'syn_reply':
      case 'headers': {
        const block = this.compressor.compress(encodeHeaderBlock(f.headers));
        const body = Buffer.alloc(4);
        body.writeUInt32BE(f.streamId & 0x7fffffff, 0);
        const type = f.type === 'syn_reply' ? FrameType.SynReply : FrameType.Headers;
        return Buffer.concat([controlHeader(type, f.flags, 4 + block.length), body, block]);
      }
      case 'rst_stream': return fixed(FrameType.RstStream, f.streamId & 0x7fffffff, f.status);
      case 'goaway': return fixed(FrameType.GoAway, f.lastGoodStreamId & 0x7fffffff, f.status);
      case 'window_update': return fixed(FrameType.WindowUpdate, f.streamId & 0x7fffffff, f.delta & 0x7fffffff);
      case 'ping': {
        const b = Buffer.alloc(4);
        b.writeUInt32BE(f.id >>> 0);
        return Buffer.concat([controlHeader(FrameType.Ping, 0, 4), b]);
      }
      case 'settings': {
        const b = Buffer.alloc(4 + 8 * f.entries.length);
        b.writeUInt32BE(f.entries.length, 0);
        f.entries.forEach((e, i) => {
          b.writeUInt32BE(((e.flags & 0xff) << 24 | (e.id & 0xffffff)) >>> 0, 4 + 8 * i);
          b.writeUInt32BE(e.value >>> 0, 8 + 8 * i);
        });
        return Buffer.concat([controlHeader(FrameType.Settings, f.flags, b.length), b]);
      }
    }
  }
}

function fixed(type: number, a: number, b: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeUInt32BE(a >>> 0, 0);
  body.writeUInt32BE(b >>> 0, 4);
  return Buffer.concat([controlHeader(type, 0, 8), body]);
}

/**
 * Cuts a byte stream into frames as they complete, whatever the TCP chunking.
 * Unknown control frame types are skipped, as the SPDY/3 draft requires.
 */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private readonly decompressor = new HeaderDecompressor();

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUInt32BE(4) & 0xffffff;
      if (this.buf.length < 8 + length) break;
      const frame = this.parse(this.buf.subarray(0, 8 + length));
      this.buf = this.buf.subarray(8 + length);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  private parse(raw: Buffer): Frame | undefined {
    const first = raw.readUInt32BE(0);
    const flags = raw[4];
    const body = raw.subarray(8);
    if ((first & 0x80000000) === 0) {
      const streamId = first & 0x7fffffff;
      if (streamId === 0) throw new SpdyProtocolError('stream id zero is disallowed');
      return { type: 'data', streamId, flags, data: Buffer.from(body) };
    }
    const version = (first >>> 16) & 0x7fff;
    if (version !== 3) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
    const type = first & 0xffff;
    const need = (n: number) => { if (body.length < n) throw new SpdyProtocolError('invalid control frame'); };
    switch (type) {
      case FrameType.SynStream: {
        need(10);
        const headers = decodeHeaderBlock(this.decompressor.decompress(body.subarray(10)));
        return {
          type: 'syn_stream', streamId: body.readUInt32BE(0) & 0x7fffffff, associatedTo: body.readUInt32BE(4) & 0x7fffffff,
          priority: body[8] >> 5, slot: body[9], flags, headers,
        };
      }
      case FrameType.SynReply:
      case FrameType.Headers: {
        need(4);
        const headers = decodeHeaderBlock(this.decompressor.decompress(body.subarray(4)));
        const streamId = body.readUInt32BE(0) & 0x7fffffff;
        return type === FrameType.SynReply ? { type: 'syn_reply', streamId, flags, headers } : { type: 'headers', streamId, flags, headers };
      }
      case FrameType.RstStream: need(8); return { type: 'rst_stream', streamId: body.readUInt32BE(0) & 0x7fffffff, status: body.readUInt32BE(4) };
      case FrameType.GoAway: need(8); return { type: 'goaway', lastGoodStreamId: body.readUInt32BE(0) & 0x7fffffff, status: body.readUInt32BE(4) };
      case FrameType.WindowUpdate: need(8); return { type: 'window_update', streamId: body.readUInt32BE(0) & 0x7fffffff, delta: body.readUInt32BE(4) & 0x7fffffff };
      case FrameType.Ping: need(4); return { type: 'ping', id: body.readUInt32BE(0) };
      case FrameType.Settings: {
        need(4);
        const n = body.readUInt32BE(0);
        need(4 + 8 * n);
        const entries = [];
        for (let i = 0; i < n; i++) {
          const fid = body.readUInt32BE(4 + 8 * i);
          entries.push({ flags: fid >>> 24, id: fid & 0xffffff, value: body.readUInt32BE(8 + 8 * i) });
        }
        return { type: 'settings', flags, entries };
      }
      default:
        return undefined;
    }
  }
}

import { constants, inflateSync } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';

/** Header names (lower case) to their values; SPDY joins several values of one name with NUL. */
export type SpdyHeaders = Record<string, string[]>;

/** The uncompressed name/value block of SPDY/3 (§2.6.10): 32-bit counts and lengths, big endian. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const names = Object.keys(headers);
  const parts: Buffer[] = [u32(names.length)];
  for (const name of names) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(headers[name].join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  let off = 0;
  const need = (n: number) => {
    if (off + n > block.length) throw new SpdyProtocolError('truncated header block');
  };
  need(4);
  const count = block.readUInt32BE(off); off += 4;
  const out: SpdyHeaders = {};
  for (let i = 0; i < count; i++) {
    need(4);
    const nl = block.readUInt32BE(off); off += 4;
    need(nl);
    // spdystream lowercases names it reads (parseHeaderValueBlock); so do we.
    const name = block.toString('utf8', off, off + nl).toLowerCase(); off += nl;
    need(4);
    const vl = block.readUInt32BE(off); off += 4;
    need(vl);
    const value = block.toString('utf8', off, off + vl); off += vl;
    (out[name] ??= []).push(...value.split('\0'));
  }
  return out;
}

export class SpdyProtocolError extends Error {}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const x of data) { a = (a + x) % 65521; b = (b + a) % 65521; }
  return ((b << 16) | a) >>> 0;
}

/**
 * The sending half of SPDY header compression: one zlib stream per
 * connection, seeded with the SPDY/3 dictionary, flushed at the end of every
 * header block. We emit stored (uncompressed) deflate blocks: any inflater
 * reads them, each block ends on a byte boundary so a frame's header block is
 * complete by itself, and nothing has to be kept between frames.
 */
const SYNC_FLUSH_MARKER = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

export class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      // CMF 0x78 (deflate, 32K window), FLG 0xbb (FDICT set, level 3 hint, FCHECK), then DICTID.
      const head = Buffer.from([0x78, 0xbb, 0, 0, 0, 0]);
      head.writeUInt32BE(adler32(SPDY3_DICTIONARY), 2);
      parts.push(head);
    }
    for (let off = 0; off < block.length; off += 0xffff) {
      const chunk = block.subarray(off, off + 0xffff);
      const h = Buffer.alloc(5);
      h[0] = 0; // BFINAL=0, BTYPE=00 (stored)
      h.writeUInt16LE(chunk.length, 1);
      h.writeUInt16LE(~chunk.length & 0xffff, 3);
      parts.push(h, chunk);
    }
    // The sync-flush marker (an empty stored block) that zlib's Flush ends with: Go's
    // flate reader hands out a block's output when it reaches the marker; without it
    // the reader would look past the frame for the next block and fail.
    parts.push(SYNC_FLUSH_MARKER);
    return Buffer.concat(parts);
  }
}

/**
 * The receiving half: the peer's header blocks form one zlib stream across
 * all frames of the connection (later blocks refer back to earlier ones), and
 * each frame's block ends at a sync flush. node:zlib has no synchronous
 * streaming inflate, so we inflate the whole stream received so far and keep
 * the output not yet returned; header blocks are few and small (one per SPDY
 * stream), so this stays cheap.
 */
export class HeaderDecompressor {
  private input: Buffer = Buffer.alloc(0);
  private produced = 0;

  decompress(chunk: Buffer): Buffer {
    this.input = Buffer.concat([this.input, chunk]);
    let out: Buffer;
    try {
      out = inflateSync(this.input, { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    } catch (e) {
      throw new SpdyProtocolError(`header decompression failed: ${(e as Error).message}`);
    }
    const fresh = out.subarray(this.produced);
    this.produced = out.length;
    return Buffer.from(fresh);
  }
}

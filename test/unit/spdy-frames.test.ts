import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, createDeflate, deflateSync, inflateSync } from 'node:zlib';
import { SPDY3_DICTIONARY } from '../../src/api/streaming/spdy/dictionary.js';
import {
  decodeHeaderBlock, encodeHeaderBlock, HeaderCompressor, HeaderDecompressor,
} from '../../src/api/streaming/spdy/header-block.js';
import { FLAG_FIN, FrameReader, FrameWriter, type Frame } from '../../src/api/streaming/spdy/frames.js';

test('the SPDY/3 dictionary is the 1423 bytes whose adler32 zlib announces as e3c6a7c2', () => {
  assert.equal(SPDY3_DICTIONARY.length, 1423);
  assert.equal(SPDY3_DICTIONARY.subarray(0, 11).toString('latin1'), '\0\0\0\x07options');
  assert.ok(SPDY3_DICTIONARY.toString('latin1').endsWith('utf-,*,enq=0.'));
  // zlib writes DICTID (the dictionary's adler32) right after the 2-byte header; ours must announce the same.
  const byZlib = deflateSync(Buffer.from('x'), { dictionary: SPDY3_DICTIONARY });
  assert.equal(byZlib.subarray(2, 6).toString('hex'), 'e3c6a7c2');
  const ours = new HeaderCompressor().compress(Buffer.from('x'));
  assert.equal(ours.subarray(2, 6).toString('hex'), 'e3c6a7c2');
  assert.equal(ours.readUInt16BE(0) % 31, 0);
  assert.equal(ours[1] & 0x20, 0x20);
});

test('a name/value block round-trips, with several values joined by NUL and names lower-cased', () => {
  const block = encodeHeaderBlock({ streamtype: ['error'], 'X-Multi': ['a', 'b'] });
  assert.equal(block.readUInt32BE(0), 2);
  assert.deepEqual(decodeHeaderBlock(block), { streamtype: ['error'], 'x-multi': ['a', 'b'] });
});

test('our compressed header blocks are a valid zlib stream with the dictionary, block after block', () => {
  const c = new HeaderCompressor();
  const blocks = [encodeHeaderBlock({ streamtype: ['error'] }), encodeHeaderBlock({ streamtype: ['stdout'] }), encodeHeaderBlock({})];
  const wire = blocks.map((b) => c.compress(b));
  // Each block ends with zlib's sync-flush marker, as Go's zlib.Writer.Flush leaves it.
  for (const w of wire) assert.equal(w.subarray(-5).toString('hex'), '000000ffff');
  // A standard inflater (what Go's compress/zlib is) reads each prefix of the stream completely.
  for (let i = 1; i <= wire.length; i++) {
    const out = inflateSync(Buffer.concat(wire.slice(0, i)), { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    assert.deepEqual(out, Buffer.concat(blocks.slice(0, i)));
  }
  const d = new HeaderDecompressor();
  assert.deepEqual(wire.map((w) => decodeHeaderBlock(d.decompress(w))), [{ streamtype: ['error'] }, { streamtype: ['stdout'] }, {}]);
});

/** What Go's zlib.Writer with the dictionary produces: real deflate, one Flush (sync flush) per header block. */
async function goLikeCompress(blocks: Buffer[]): Promise<Buffer[]> {
  const z = createDeflate({ dictionary: SPDY3_DICTIONARY, level: 9 });
  const out: Buffer[] = [];
  for (const b of blocks) {
    const chunks: Buffer[] = [];
    const onData = (d: Buffer) => chunks.push(d);
    z.on('data', onData);
    z.write(b);
    await new Promise<void>((res) => z.flush(constants.Z_SYNC_FLUSH, () => res()));
    z.off('data', onData);
    out.push(Buffer.concat(chunks));
  }
  z.close();
  return out;
}

test('header blocks compressed by a real deflater, referring back across frames, decompress frame by frame', async () => {
  const blocks = [
    encodeHeaderBlock({ streamtype: ['error'] }),
    encodeHeaderBlock({ streamtype: ['stdin'] }),
    encodeHeaderBlock({ streamtype: ['stdout'] }),
    encodeHeaderBlock({ streamtype: ['stderr'] }),
    encodeHeaderBlock({ streamtype: ['data'], port: ['8080'], requestid: ['0'] }),
  ];
  const wire = await goLikeCompress(blocks);
  // Later blocks are smaller than their text: they reuse the history.
  assert.ok(wire[2].length < blocks[2].length);
  const d = new HeaderDecompressor();
  assert.deepEqual(wire.map((w) => decodeHeaderBlock(d.decompress(w))), [
    { streamtype: ['error'] }, { streamtype: ['stdin'] }, { streamtype: ['stdout'] }, { streamtype: ['stderr'] },
    { streamtype: ['data'], port: ['8080'], requestid: ['0'] },
  ]);
});

test('every frame type round-trips through writer and reader, whatever the chunking', () => {
  const frames: Frame[] = [
    { type: 'syn_stream', streamId: 1, associatedTo: 0, priority: 0, slot: 0, flags: 0, headers: { streamtype: ['error'] } },
    { type: 'syn_stream', streamId: 3, associatedTo: 0, priority: 7, slot: 0, flags: FLAG_FIN, headers: { streamtype: ['stdout'] } },
    { type: 'syn_reply', streamId: 1, flags: 0, headers: {} },
    { type: 'headers', streamId: 3, flags: 0, headers: { a: ['b'] } },
    { type: 'data', streamId: 3, flags: 0, data: Buffer.from('hello\n') },
    { type: 'data', streamId: 3, flags: FLAG_FIN, data: Buffer.alloc(0) },
    { type: 'rst_stream', streamId: 5, status: 5 },
    { type: 'settings', flags: 0, entries: [{ flags: 1, id: 7, value: 65536 }] },
    { type: 'ping', id: 1 },
    { type: 'window_update', streamId: 1, delta: 1024 },
    { type: 'goaway', lastGoodStreamId: 5, status: 0 },
  ];
  const w = new FrameWriter();
  const bytes = Buffer.concat(frames.map((f) => w.write(f)));
  // The first word of a control frame: control bit, version 3, type.
  assert.equal(bytes.readUInt32BE(0), 0x80030001);
  const whole = new FrameReader().push(bytes);
  assert.deepEqual(whole, frames);
  const r = new FrameReader();
  const dribbled: Frame[] = [];
  for (const b of bytes) dribbled.push(...r.push(Buffer.from([b])));
  assert.deepEqual(dribbled, frames);
});

test('a DATA frame is stream id, flags and a 24-bit length before the payload', () => {
  const b = new FrameWriter().write({ type: 'data', streamId: 3, flags: FLAG_FIN, data: Buffer.from('hi') });
  assert.deepEqual([...b], [0, 0, 0, 3, 1, 0, 0, 2, 0x68, 0x69]);
});

test('unknown control frame types are skipped', () => {
  const unknown = Buffer.from([0x80, 0x03, 0x00, 0x0a, 0, 0, 0, 2, 0xaa, 0xbb]);
  const ping = new FrameWriter().write({ type: 'ping', id: 3 });
  assert.deepEqual(new FrameReader().push(Buffer.concat([unknown, ping])), [{ type: 'ping', id: 3 }]);
});

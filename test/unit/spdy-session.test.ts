import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { FLAG_FIN, FrameReader, FrameWriter, type Frame } from '../../src/api/streaming/spdy/frames.js';
import { SpdySession, type SpdyStream } from '../../src/api/streaming/spdy/session.js';

/** A SPDY client speaking raw frames to a SpdySession over TCP. */
async function pair(onStream: (s: SpdyStream) => void) {
  let session!: SpdySession;
  const server = createServer((sock) => { session = new SpdySession(sock, onStream); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const client: Socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  await new Promise<void>((r) => client.once('connect', () => r()));
  const writer = new FrameWriter();
  const reader = new FrameReader();
  const received: Frame[] = [];
  let waiters: (() => void)[] = [];
  client.on('data', (d: Buffer) => { received.push(...reader.push(d)); for (const w of waiters.splice(0)) w(); });
  return {
    send: (f: Frame) => client.write(writer.write(f)),
    received,
    async until(pred: () => boolean) { while (!pred()) await new Promise<void>((r) => waiters.push(r)); },
    session: () => session,
    close() { client.destroy(); server.close(); waiters = []; },
  };
}

test('streams are accepted with an empty SYN_REPLY; data, FIN and PING flow as spdystream expects', async () => {
  const streams: SpdyStream[] = [];
  const got: string[] = [];
  const c = await pair((s) => {
    streams.push(s);
    s.on('data', (d: Buffer) => got.push(`${s.header('streamtype')}:${d}`));
    s.on('end', () => got.push(`${s.header('streamtype')}:FIN`));
  });
  c.send({ type: 'syn_stream', streamId: 1, associatedTo: 0, priority: 0, slot: 0, flags: 0, headers: { streamtype: ['error'] } });
  c.send({ type: 'syn_stream', streamId: 3, associatedTo: 0, priority: 0, slot: 0, flags: 0, headers: { streamtype: ['stdin'] } });
  await c.until(() => c.received.length >= 2);
  assert.deepEqual(c.received.slice(0, 2), [
    { type: 'syn_reply', streamId: 1, flags: 0, headers: {} },
    { type: 'syn_reply', streamId: 3, flags: 0, headers: {} },
  ]);
  c.send({ type: 'data', streamId: 3, flags: 0, data: Buffer.from('typed') });
  c.send({ type: 'data', streamId: 3, flags: FLAG_FIN, data: Buffer.alloc(0) });
  c.send({ type: 'ping', id: 1 });
  await c.until(() => c.received.some((f) => f.type === 'ping'));
  assert.deepEqual(got, ['stdin:typed', 'stdin:FIN']);
  streams[0].write('{"metadata":{},"status":"Success"}');
  streams[0].end();
  c.session().close();
  await c.until(() => c.received.some((f) => f.type === 'goaway'));
  assert.deepEqual(c.received.slice(3), [
    { type: 'data', streamId: 1, flags: 0, data: Buffer.from('{"metadata":{},"status":"Success"}') },
    { type: 'data', streamId: 1, flags: FLAG_FIN, data: Buffer.alloc(0) },
    { type: 'goaway', lastGoodStreamId: 3, status: 0 },
  ]);
  c.close();
});

test('a stream id that goes backwards or is even is refused with RST_STREAM', async () => {
  const c = await pair(() => {});
  c.send({ type: 'syn_stream', streamId: 5, associatedTo: 0, priority: 0, slot: 0, flags: 0, headers: { streamtype: ['error'] } });
  c.send({ type: 'syn_stream', streamId: 3, associatedTo: 0, priority: 0, slot: 0, flags: 0, headers: { streamtype: ['stdout'] } });
  c.send({ type: 'syn_stream', streamId: 8, associatedTo: 0, priority: 0, slot: 0, flags: 0, headers: { streamtype: ['stdout'] } });
  await c.until(() => c.received.length >= 3);
  assert.deepEqual(c.received, [
    { type: 'syn_reply', streamId: 5, flags: 0, headers: {} },
    { type: 'rst_stream', streamId: 3, status: 1 },
    { type: 'rst_stream', streamId: 8, status: 1 },
  ]);
  c.close();
});

import type { Status } from 'kubernetes-types/meta/v1.js';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from './spdy/session.js';
import { ClientEvents, parseResizeMessages, statusPayload } from './remotecommand.js';
import { type OutputStream, type RemoteCommandConnection, type StreamOptions } from '../../apimachinery/remotecommand.js';

/** Stream protocols served over SPDY, newest first (the CRI streaming server's list). */
export const SPDY_REMOTECOMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io'] as const;

/** How long the client has to open its streams (the kubelet's default StreamCreationTimeout). */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

/**
 * Accepts the client's SPDY streams for one exec/attach (kubelet's
 * createHTTPStreamStreams + v4ProtocolHandler.waitForStreams): one stream per
 * `streamType` header, the error stream always, resize only with a TTY from
 * v3 on. Resolves once all expected streams exist.
 */
export function acceptSpdyStreams(socket: Duplex, head: Buffer, protocol: string, options: StreamOptions,
  timeoutMs = STREAM_CREATION_TIMEOUT_MS): Promise<RemoteCommandConnection> {
  const events = new ClientEvents();
  const streams: Partial<Record<'error' | 'stdin' | 'stdout' | 'stderr' | 'resize', SpdyStream>> = {};
  const resizing = options.tty && protocol !== 'v2.channel.k8s.io';
  const expected = 1 + Number(options.stdin) + Number(options.stdout) + Number(options.stderr) + Number(resizing);
  let received = 0;

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      session.close();
      reject(new Error('timed out waiting for client to create streams'));
    }, timeoutMs);
    const session = new SpdySession(socket, (stream) => {
      const type = stream.header('streamtype');
      if (type !== 'error' && type !== 'stdin' && type !== 'stdout' && type !== 'stderr' && type !== 'resize') return;
      streams[type] = stream;
      if (type === 'stdin') {
        stream.on('data', (d: Buffer) => events.stdin(d));
        stream.on('end', () => events.stdin(null));
        stream.on('reset', () => events.stdin(null));
      } else if (type === 'resize') {
        stream.on('data', (d: Buffer) => { for (const s of parseResizeMessages(d.toString('utf8'))) events.resize(s); });
      }
      if (++received === expected) {
        clearTimeout(timer);
        resolve(connection(session, streams, options, protocol === 'v4.channel.k8s.io', events));
      }
    }, head);
    session.on('close', () => {
      events.close();
      clearTimeout(timer);
      reject(new Error('connection closed before all streams were created'));
    });
  });
}

function connection(session: SpdySession, streams: Partial<Record<string, SpdyStream>>, options: StreamOptions,
  statusAsJSON: boolean, events: ClientEvents): RemoteCommandConnection {
  let finished = false;
  return {
    options,
    onStdin: (f) => events.onStdin(f),
    onResize: (f) => events.onResize(f),
    onClose: (f) => events.onClose(f),
    write(stream: OutputStream, data: Buffer | string) {
      if (finished) return;
      const s = streams[stream];
      if (s && (typeof data === 'string' ? data.length : data.length)) s.write(data);
    },
    finish(status: Status) {
      if (finished) return;
      finished = true;
      streams.stdout?.end();
      streams.stderr?.end();
      const payload = statusPayload(status, statusAsJSON);
      if (payload) streams.error?.write(payload);
      streams.error?.end();
      session.close();
    },
  };
}

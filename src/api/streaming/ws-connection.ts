import type { Status } from 'kubernetes-types/meta/v1.js';
import type { WebSocket } from 'ws';
import { Channel, decodeChannelMessage, encodeChannelMessage, type ChannelProtocol } from './channels.js';
import { ClientEvents, parseResizeMessages, statusPayload } from './remotecommand.js';
import { type OutputStream, type RemoteCommandConnection, type StreamOptions } from '../../apimachinery/remotecommand.js';

/**
 * How long output is held back after the handshake. client-go's WebSocket
 * executor before kubernetes/kubernetes#131203 (kubectl 1.30–1.33) starts
 * reading before it has registered its streams and drops what arrives in
 * between ("Unknown stream id 1, discarding message", then "closed all
 * streams"). A real API server answers only after reaching the kubelet and
 * the runtime; this stands in for that latency.
 */
export const WS_OUTPUT_HOLD_MS = 100;

/**
 * exec/attach over a WebSocket with the channel protocol (wsstream.Conn as the
 * kubelet and the API server's stream translator use it).
 */
export function webSocketConnection(ws: WebSocket, protocol: ChannelProtocol, options: StreamOptions,
  holdMs = WS_OUTPUT_HOLD_MS): RemoteCommandConnection {
  const events = new ClientEvents();
  let finished = false;
  let held: (() => void)[] | undefined = [];
  setTimeout(() => { const q = held ?? []; held = undefined; for (const f of q) f(); }, holdMs).unref();
  const later = (f: () => void) => { if (held) held.push(f); else f(); };
  const send = (channel: number, data: Buffer) => later(() => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(encodeChannelMessage(protocol, channel, data));
  });

  ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    const buf = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
    const msg = decodeChannelMessage(protocol, buf);
    if (!msg) return;
    if (msg.kind === 'close') {
      if (msg.channel === Channel.Stdin) events.stdin(null);
      return;
    }
    if (msg.channel === Channel.Stdin && options.stdin) events.stdin(msg.data);
    else if (msg.channel === Channel.Resize) for (const s of parseResizeMessages(msg.data.toString('utf8'))) events.resize(s);
  });
  ws.on('close', () => events.close());
  ws.on('error', () => events.close());

  // "Send an empty message to the lowest writable channel to notify the client the connection is established."
  send(options.stdout ? Channel.Stdout : options.stderr ? Channel.Stderr : Channel.Error, Buffer.alloc(0));

  return {
    options,
    onStdin: (f) => events.onStdin(f),
    onResize: (f) => events.onResize(f),
    onClose: (f) => events.onClose(f),
    write(stream: OutputStream, data: Buffer | string) {
      if (finished) return;
      if (stream === 'stdout' ? !options.stdout : !options.stderr) return;
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (buf.length) send(stream === 'stdout' ? Channel.Stdout : Channel.Stderr, buf);
    },
    finish(status: Status) {
      if (finished) return;
      finished = true;
      const payload = statusPayload(status, protocol.statusAsJSON);
      if (payload) send(Channel.Error, payload);
      later(() => { if (ws.readyState === ws.OPEN) ws.close(1000); });
    },
  };
}

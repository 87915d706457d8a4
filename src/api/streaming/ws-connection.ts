import type { Status } from 'kubernetes-types/meta/v1.js';
import type { WebSocket } from 'ws';
import { Channel, decodeChannelMessage, encodeChannelMessage, type ChannelProtocol } from './channels.js';
import { ClientEvents, parseResizeMessages, statusPayload, type OutputStream, type RemoteCommandConnection, type StreamOptions } from './remotecommand.js';

/**
 * exec/attach over a WebSocket with the channel protocol (wsstream.Conn as the
 * kubelet and the API server's stream translator use it).
 */
export function webSocketConnection(ws: WebSocket, protocol: ChannelProtocol, options: StreamOptions): RemoteCommandConnection {
  const events = new ClientEvents();
  let finished = false;
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(encodeChannelMessage(protocol, channel, data));
  };

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
      if (ws.readyState === ws.OPEN) ws.close(1000);
    },
  };
}

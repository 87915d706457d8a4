/**
 * pods/log over a WebSocket: the API server's wsstream Reader
 * (apimachinery/pkg/util/httpstream/wsstream/stream.go), which StreamObject
 * uses when a log request asks to upgrade. Its protocols are
 * NewDefaultReaderProtocols: none or `binary.k8s.io` send the stream's bytes
 * as binary messages, `base64.binary.k8s.io` as base64 text messages; a
 * client offering only others is refused (x/net/websocket's handshake
 * failure: 403 with no body).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { pods } from '../../registry/core/pods.js';
import type { Store } from '../../registry/store.js';
import type { ContainerLogReader } from '../../apimachinery/container-log.js';
import { streamPodLog } from '../pod-log.js';
import { headerValues } from './handshake.js';

export interface LogProtocol { name: string; base64: boolean }

const READER_PROTOCOLS: Record<string, boolean> = { '': false, 'binary.k8s.io': false, 'base64.binary.k8s.io': true };

/** wsstream's handshake: the first protocol the client offers that the reader has (none offered: ""). */
export function chooseLogProtocol(offered: readonly string[]): LogProtocol | undefined {
  for (const name of offered.length ? offered : ['']) {
    if (Object.hasOwn(READER_PROTOCOLS, name)) return { name, base64: READER_PROTOCOLS[name]! };
  }
  return undefined;
}

/** One chunk of the log as the reader sends it. */
export function logMessage(chunk: Buffer, p: LogProtocol): { data: Buffer | string; binary: boolean } {
  return p.base64 ? { data: chunk.toString('base64'), binary: false } : { data: chunk, binary: true };
}

export async function serveLogWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, wss: WebSocketServer,
  choose: (p: LogProtocol) => void, r: { store: Store; namespace: string; name: string; url: URL; logs: ContainerLogReader }): Promise<void> {
  const protocol = chooseLogProtocol(headerValues(req, 'sec-websocket-protocol'));
  if (!protocol) {
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    return;
  }
  choose(protocol);
  let ws: WebSocket | undefined;
  const pending: (() => void)[] = [];
  await streamPodLog({ store: r.store, def: pods, namespace: r.namespace, name: r.name, url: r.url, logs: r.logs }, {
    noContent: () => { socket.end('HTTP/1.1 204 No Content\r\n\r\n'); },
    begin: () => {
      wss.handleUpgrade(req, socket, head, (accepted) => { ws = accepted; for (const f of pending.splice(0)) f(); });
    },
    write: (chunk) => {
      const send = () => { const m = logMessage(chunk, protocol); ws?.send(m.data, { binary: m.binary }); };
      if (ws) send(); else pending.push(send);
    },
    end: () => { if (ws) ws.close(1000); else pending.push(() => ws?.close(1000)); },
    onClose: (f) => { socket.on('close', f); },
  });
}

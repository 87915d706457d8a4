/**
 * SPDY tunneled over a WebSocket (apiserver's pkg/util/proxy/streamtunnel.go,
 * client-go's tools/portforward/tunneling_dialer.go): the client offers the
 * subprotocol `SPDY/3.1+portforward.k8s.io` and then speaks SPDY/3.1, its
 * bytes carried in binary WebSocket messages.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { headerValues, writeRawResponse } from './handshake.js';

export const TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';

/**
 * `ws` accepts only RFC 7230 tokens as subprotocols and refuses the handshake
 * over the `/` in this one (gorilla/websocket does not check), so the offer
 * is renamed to a token for `ws` and answered with the real name.
 */
const TOKEN_STAND_IN = 'spdy-3.1-portforward.k8s.io';

const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => offered.has(TOKEN_STAND_IN) ? TUNNEL_PROTOCOL : false });

export function upgradeTunnel(req: IncomingMessage, socket: Duplex, head: Buffer, serve: (tunnel: Duplex) => void): void {
  if (!headerValues(req, 'sec-websocket-protocol').includes(TUNNEL_PROTOCOL)) {
    // x/net/websocket answers a failed subprotocol handshake with a bare 403.
    return writeRawResponse(socket, 403, '', 'text/plain; charset=utf-8');
  }
  req.headers['sec-websocket-protocol'] = TOKEN_STAND_IN;
  wss.handleUpgrade(req, socket, head, (ws) => {
    const tunnel = createWebSocketStream(ws);
    tunnel.on('error', () => tunnel.destroy());
    serve(tunnel);
  });
}

import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Status } from 'kubernetes-types/meta/v1.js';

/** The header kubectl's SPDY client offers stream protocols in (httpstream.HeaderProtocolVersion). */
export const PROTOCOL_HEADER = 'x-stream-protocol-version';

/** All values of a header, split on commas (several header lines arrive joined by Node). */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const raw = req.headers[name.toLowerCase()];
  const joined = Array.isArray(raw) ? raw.join(',') : raw ?? '';
  return joined.split(',').map((s) => s.trim()).filter(Boolean);
}

/** httpstream.negotiateProtocol: the first client protocol the server also speaks. */
export function negotiateProtocol(client: string[], server: readonly string[]): string | undefined {
  return client.find((p) => server.includes(p));
}

/** Whether the request asks to switch to SPDY/3.1 (Connection: Upgrade, Upgrade: SPDY/3.1). */
export function isSpdyUpgrade(req: IncomingMessage): boolean {
  return headerValues(req, 'upgrade').some((v) => v.toLowerCase() === 'spdy/3.1') &&
    headerValues(req, 'connection').some((v) => v.toLowerCase() === 'upgrade');
}

export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return headerValues(req, 'upgrade').some((v) => v.toLowerCase() === 'websocket');
}

/** An HTTP/1.1 response written straight to an upgrade socket that will not be upgraded. */
export function writeRawResponse(socket: Duplex, code: number, body: string, contentType: string,
  extraHeaders: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const len = Buffer.byteLength(body);
  const lines = [
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${len}`,
    ...Object.entries(extraHeaders).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
    '', '',
  ];
  socket.end(lines.join('\r\n') + body);
}

/** A metav1.Status answer before the upgrade, as the API server's own errors are. */
export function writeRawStatus(socket: Duplex, status: Status & { code: number }): void {
  writeRawResponse(socket, status.code, JSON.stringify(status), 'application/json');
}

/**
 * A kubelet error the API server proxies back unchanged: plain text, as
 * go-restful's WriteError and streaming.WriteError write it (no newline;
 * net/http's http.Error adds one, pass `newline` for those).
 */
export function writeRawError(socket: Duplex, code: number, message: string, newline = false): void {
  writeRawResponse(socket, code, newline ? message + '\n' : message, 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
}

/** The 101 answer to a SPDY upgrade (spdy.responseUpgrader.UpgradeResponse plus the negotiated protocol). */
export function acceptSpdyUpgrade(socket: Duplex, protocol: string): void {
  socket.write([
    'HTTP/1.1 101 Switching Protocols',
    'Connection: Upgrade',
    'Upgrade: SPDY/3.1',
    `X-Stream-Protocol-Version: ${protocol}`,
    '', '',
  ].join('\r\n'));
}

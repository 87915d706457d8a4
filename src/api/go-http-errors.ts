import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';

/**
 * What Go's net/http server writes itself, before any handler runs, for a request it cannot read
 * (conn.serve): a status line, two headers and the status as the body, then it hangs up. Clients
 * see exactly these bytes from kube-apiserver.
 */
export function writeGoProtocolError(socket: Duplex, code: 400 | 431): void {
  const text = `${code} ${STATUS_CODES[code]}`;
  if (socket.writable) socket.end(`HTTP/1.1 ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${text}`);
}

/** Node's parse errors that Go answers without a word: the client was too slow or went away. */
const SILENT = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ECONNRESET', 'EPIPE']);

/**
 * The server's `clientError` answers, as Go's: headers over the limit get 431, a request that times
 * out before its headers are read is closed without an answer (ReadHeaderTimeout), anything else
 * malformed gets 400.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (SILENT.has(err.code ?? '') || !socket.writable) { socket.destroy(); return; }
  writeGoProtocolError(socket, err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400);
}

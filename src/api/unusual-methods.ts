import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeGoProtocolError } from './go-http-errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Go's validMethod: an HTTP token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Answers a request on a connection Node's HTTP parser has let go of, with the normal handler:
 * the connection closes after the answer.
 */
function serveDetached(handler: Handler, req: IncomingMessage, socket: Duplex): void {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once('finish', () => { res.detachSocket(socket as Socket); socket.end(); });
  handler(req, res);
}

/**
 * CONNECT: Node hands it over as a tunnel request ('connect'), and with no listener drops the
 * connection. Go's server passes it to the handler like any request (a CONNECT whose target is a
 * path), so the apiserver answers it: 405 on a resource without a connect route.
 */
export function connectHandler(handler: Handler): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket) => {
    socket.on('error', () => socket.destroy());
    serveDetached(handler, req, socket);
  };
}

/**
 * A request whose method Node's parser does not know (HPE_INVALID_METHOD). Go accepts any token as
 * a method, so the apiserver answers it (405 on resources); a method that is no token gets Go's 400.
 * The request is read from the packet the parser stopped at. Returns false when the packet is not
 * a whole request head, for the caller's default answer.
 */
export function serveUnknownMethod(handler: Handler, packet: Buffer | undefined, socket: Duplex): boolean {
  if (!packet) return false;
  const text = packet.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const [requestLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const m = /^(\S+) (\S+) HTTP\/1\.([01])$/.exec(requestLine);
  if (!m) return false;
  const [, method = '', target = '', minor = ''] = m;
  if (!TOKEN.test(method)) { writeGoProtocolError(socket, 400); return true; }
  const req = new IncomingMessage(socket as Socket);
  req.method = method;
  req.url = target;
  req.httpVersion = `1.${minor}`;
  req.httpVersionMajor = 1;
  req.httpVersionMinor = Number(minor);
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) { writeGoProtocolError(socket, 400); return true; }
    // req.headers is computed from rawHeaders when first read.
    req.rawHeaders.push(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  // Its body, if any, is not read: no handler reads one for a method it does not serve.
  req.complete = true;
  req.push(null);
  socket.on('error', () => socket.destroy());
  serveDetached(handler, req, socket);
  return true;
}

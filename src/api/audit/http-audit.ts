/**
 * The audit filter on the HTTP path (WithAudit): after authentication, the
 * request's event is begun; the response's status line and body are watched
 * for its responseStatus (and responseObject at RequestResponse); the request
 * body, once read, is its requestObject. Exec, attach and port-forward
 * upgrades are followed on their socket instead (auditUpgradeRequest).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Attributes } from '../../authorization/types.js';
import type { AuditEventRecorder, RequestAudit } from '../../registry/request-audit.js';

const recorders = new WeakMap<IncomingMessage, AuditEventRecorder>();

/** LongRunningRequestCheck: watches, proxies and the streaming subresources. */
function isLongRunningRequest(attrs: Attributes): boolean {
  return attrs.verb === 'watch' || attrs.verb === 'proxy' || ['attach', 'exec', 'proxy', 'log', 'portforward'].includes(attrs.subresource);
}

/** utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer. */
function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string') ips.push(...forwarded.split(',').map((s) => s.trim()).filter(Boolean));
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim() && !ips.includes(real.trim())) ips.push(real.trim());
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (peer && !ips.includes(peer)) ips.push(peer);
  return ips;
}

function beginEvent(audit: RequestAudit, req: IncomingMessage, attrs: Attributes): AuditEventRecorder | undefined {
  const header = req.headers['audit-id'];
  return audit.begin(attrs, {
    requestURI: req.url ?? '/', userAgent: req.headers['user-agent'] ?? '', sourceIPs: sourceIPs(req), received: new Date(),
    ...(typeof header === 'string' && header ? { auditID: header } : {}),
  }, isLongRunningRequest(attrs));
}

/** Begins the request's event (none when the policy says None) and follows its response. */
export function auditHttpRequest(audit: RequestAudit, req: IncomingMessage, res: ServerResponse, attrs: Attributes): AuditEventRecorder | undefined {
  const recorder = beginEvent(audit, req, attrs);
  if (!recorder) return undefined;
  recorders.set(req, recorder);
  res.setHeader('Audit-Id', recorder.auditID);
  followResponse(res, recorder);
  return recorder;
}

const STATUS_LINE = /^HTTP\/1\.1 (\d{3})/;

/**
 * The event of an upgrade request (exec, attach, port-forward): its answer is written on the socket, so
 * the first status line written there is the response code (101 once the protocol switched, as WithAudit
 * records a hijacked connection), a refusal's JSON body its responseStatus, and the connection's close
 * the ResponseComplete stage. A refusal carries the Audit-Id header, as every answer before a hijack does.
 */
export function auditUpgradeRequest(audit: RequestAudit, req: IncomingMessage, socket: Duplex, attrs: Attributes): AuditEventRecorder | undefined {
  const recorder = beginEvent(audit, req, attrs);
  if (!recorder) return undefined;
  let started = false;
  const head = (chunk: unknown): unknown => {
    if (started) return chunk;
    const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('latin1') : undefined;
    const code = text === undefined ? undefined : STATUS_LINE.exec(text)?.[1];
    if (text === undefined || code === undefined) return chunk;
    started = true;
    recorder.responseStarted(Number(code));
    if (code === '101') return chunk;
    const split = text.indexOf('\r\n\r\n');
    if (split >= 0 && /\r\nContent-Type: application\/json/i.test(text.slice(0, split))) {
      try { recorder.responseObject(JSON.parse(Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'))); } catch { /* a partial body: no responseStatus */ }
    }
    const eol = text.indexOf('\r\n');
    return Buffer.from(`${text.slice(0, eol)}\r\nAudit-Id: ${recorder.auditID}${text.slice(eol)}`, 'latin1');
  };
  const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
  socket.write = ((chunk: unknown, ...rest: unknown[]) => write(head(chunk), ...rest)) as typeof socket.write;
  const end = socket.end.bind(socket) as (...a: unknown[]) => Duplex;
  socket.end = ((chunk?: unknown, ...rest: unknown[]) => (chunk === undefined || typeof chunk === 'function'
    ? end(chunk, ...rest) : end(head(chunk), ...rest))) as typeof socket.end;
  socket.once('close', () => recorder.complete());
  return recorder;
}

function followResponse(res: ServerResponse, recorder: AuditEventRecorder): void {
  const chunks: Buffer[] = [];
  // Bodies are kept only where the event logs them: a failure's Status, or every answer at RequestResponse.
  let capturing = false;
  const started = (code: number) => {
    recorder.responseStarted(code);
    capturing ||= recorder.logsResponseObject || code >= 300;
  };
  const capture = (chunk: unknown) => {
    if (!capturing || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    started(Number(args[0]));
    return writeHead(...args);
  }) as typeof res.writeHead;
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    if (!res.headersSent) started(res.statusCode);
    capture(args[0]);
    return write(...args);
  }) as typeof res.write;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    if (!res.headersSent) started(res.statusCode);
    capture(args[0]);
    return end(...args);
  }) as typeof res.end;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    capturing = false;
    const type = String(res.getHeader('content-type') ?? '');
    if (chunks.length && type.startsWith('application/json')) {
      try {
        recorder.responseObject(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        // A stream of watch events, or a body that is not one JSON document, has no response object.
      }
    }
    recorder.complete();
  };
  res.on('finish', finish);
  res.on('close', finish);
}

/** The request body as the handler read it: the event's requestObject when it is one JSON document. */
export function auditRequestBody(req: IncomingMessage, body: Buffer): void {
  const recorder = recorders.get(req);
  if (!recorder || body.length === 0) return;
  try {
    recorder.requestObject(JSON.parse(body.toString('utf8')));
  } catch {
    // YAML and protobuf bodies are not logged.
  }
}

/** An annotation on the request's audit event (admission's AddAnnotation), when the request is audited. */
export function auditAnnotate(req: IncomingMessage, key: string, value: string): void {
  recorders.get(req)?.annotateOnce(key, value);
}

/** The decoded body of a create or update (whatever its wire format): the event's requestObject. */
export function auditRequestObject(req: IncomingMessage, obj: unknown): void {
  recorders.get(req)?.requestObject(obj);
}

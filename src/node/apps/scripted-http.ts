/**
 * The `http` key of the `winkube.io/script` annotation: the container's
 * process answers HTTP on a port with a scripted status and body, for any
 * image (what a user's own application would serve). The socket belongs to
 * the container's process: it is bound when the container starts and closed
 * when it exits; a port something else in the pod holds stays with its
 * holder. The response carries what a minimal server sends: Content-Type,
 * Date and Content-Length.
 */
import type { Listening, PodNetAccess } from '../shell/net-types.js';
import { Pending } from '../shell/pending.js';
import { REASONS } from '../shell/http-client.js';
import { httpDate } from './http-server.js';

export interface HttpScript {
  port: number;
  /** The response status; 200 when not given. */
  status: number;
  body: string;
  /** text/plain; charset=utf-8 when not given. */
  contentType: string;
}

/** The `http` value of a container's script, or undefined when it is not a usable one (ignored, as bad script values are). */
export function parseHttpScript(v: unknown): HttpScript | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const port = o.port ?? 80;
  const status = o.status ?? 200;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return undefined;
  return { port, status, body: typeof o.body === 'string' ? o.body : '', contentType: typeof o.contentType === 'string' ? o.contentType : 'text/plain; charset=utf-8' };
}

/** Binds the scripted server on the pod's network; undefined when the port is taken. */
export function listenScripted(net: PodNetAccess, s: HttpScript, now: () => Date): Listening | undefined {
  return net.listen(s.port, (req) => {
    const body = Buffer.from(s.body, 'utf8');
    return Pending.of({
      status: s.status, reason: REASONS[s.status] ?? '',
      headers: [['Content-Type', s.contentType], ['Date', httpDate(now())], ['Content-Length', String(body.length)]],
      body: req.method === 'HEAD' ? Buffer.alloc(0) : body,
    });
  });
}

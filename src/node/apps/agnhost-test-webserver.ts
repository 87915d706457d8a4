/**
 * `agnhost test-webserver` (test/images/agnhost/test-webserver): Go's
 * http.FileServer over the container's `/` on --port (80), each answer
 * with the CORS and Cache-Control headers its handler sets. The update
 * demo's images (nautilus, kitten: agnhost with CMD ["test-webserver"])
 * add their data.json to `/` (update-demo-images.ts).
 *
 * Only the files an image is known to add are served (with
 * mime.TypeByExtension's Content-Type); any other path answers the
 * FileServer's 404. Directory listings, Range requests and Last-Modified
 * (the image layer's file time) are not modelled.
 */
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { goBindError, goResponse } from './go-http.js';
import { httpServer, pathOf, type Served } from './http-server.js';

/** The handler's own headers, set before the file server answers. */
const HANDLER_HEADERS: [string, string][] = [
  ['Cache-Control', 'private'],
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Allow-Credentials', 'true'],
  ['Access-Control-Allow-Methods', 'GET, POST, OPTIONS'],
  ['Access-Control-Allow-Headers', 'DNT,X-Mx-ReqToken,Keep-Alive,User-Agent,X-Requested-With,Cache-Control,Content-Type'],
];

/** mime.TypeByExtension's built-in table for the files the images carry. */
const MIME: Record<string, string> = { '.json': 'application/json', '.html': 'text/html; charset=utf-8', '.jpg': 'image/jpeg', '.txt': 'text/plain; charset=utf-8' };

export function testWebserverPort(flags: Map<string, string>): number {
  return Number(flags.get('port') ?? 80);
}

/** The file server's answer for a request path, given the image's files (absolute path to contents). */
export function fileServerAnswer(now: Date, method: string, target: string, files: ReadonlyMap<string, string>): Served {
  const path = decodeURIComponent(pathOf(target));
  const body = files.get(path);
  if (body === undefined) {
    return { response: goResponse(now, 404, '404 page not found\n', [...HANDLER_HEADERS, ['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']]) };
  }
  const ext = /\.[^./]+$/.exec(path)?.[0] ?? '';
  const headers: [string, string][] = [...HANDLER_HEADERS, ['Accept-Ranges', 'bytes'], ...(MIME[ext] ? [['Content-Type', MIME[ext]] as [string, string]] : [])];
  const r = goResponse(now, 200, body, headers);
  // serveContent sets Content-Length even for HEAD, and writes no body.
  return { response: method === 'HEAD' ? { ...r, body: new Uint8Array() } : r };
}

export function testWebserver(ctx: AppContext, port: number, files: ReadonlyMap<string, string>): Program {
  return httpServer(ctx, {
    ports: [port],
    startup: () => [],
    bound: () => [],
    bindFailed: () => ({ steps: [goBindError(ctx.now(), port)], code: 1 }),
    serve: (req) => fileServerAnswer(ctx.now(), req.method, req.target, files),
  });
}

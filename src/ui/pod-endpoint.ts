/**
 * The shape the web view's read-only endpoints share: GET ?namespace=NS&name=POD, computed server side from
 * objects read through the API with the caller's own token (see api-getter.ts), answered as JSON; the API
 * server's refusals (401, 403, 404) reach the browser as the API server wrote them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiAnswer, userGetter, type ApiEndpoint } from './api-getter.js';

export type UserGet = (path: string) => Promise<unknown>;

export function answer(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export async function servePodQuery(req: IncomingMessage, res: ServerResponse, api: ApiEndpoint,
  compute: (get: UserGet, namespace: string, name: string) => Promise<unknown>): Promise<void> {
  if (req.method !== 'GET') return answer(res, 405, 'text/plain; charset=utf-8', '405 method not allowed\n');
  const query = new URL(req.url ?? '/', 'https://localhost').searchParams;
  const namespace = query.get('namespace') ?? '';
  const name = query.get('name') ?? '';
  if (!namespace || !name) return answer(res, 400, 'text/plain; charset=utf-8', 'namespace and name are required\n');
  try {
    answer(res, 200, 'application/json', JSON.stringify(await compute(userGetter(api, req.headers.authorization), namespace, name)));
  } catch (e) {
    if (e instanceof ApiAnswer) return answer(res, e.status, e.contentType, e.body);
    answer(res, 500, 'text/plain; charset=utf-8', `${(e as Error).message}\n`);
  }
}

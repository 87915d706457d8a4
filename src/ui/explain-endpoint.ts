/**
 * GET /ui/api/explain-scheduling?namespace=NS&name=POD: `winkube explain-scheduling`'s verdicts for the pod
 * detail's filter table. It runs server side because the scheduler's plugins are Node code the bundle does not
 * carry; it reads the cluster through the API with the caller's own token (see api-getter.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { explainPodFrom } from '../scheduler/explain-client.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { ApiAnswer, userGetter, type ApiEndpoint } from './api-getter.js';
import { schedulingView } from './scheduling-view.js';

export const EXPLAIN_PATH = '/ui/api/explain-scheduling';

function answer(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export async function serveExplain(req: IncomingMessage, res: ServerResponse, api: ApiEndpoint, config?: SchedulerConfig): Promise<void> {
  if (req.method !== 'GET') return answer(res, 405, 'text/plain; charset=utf-8', '405 method not allowed\n');
  const query = new URL(req.url ?? '/', 'https://localhost').searchParams;
  const namespace = query.get('namespace') ?? '';
  const name = query.get('name') ?? '';
  if (!namespace || !name) return answer(res, 400, 'text/plain; charset=utf-8', 'namespace and name are required\n');
  try {
    const explanation = await explainPodFrom(userGetter(api, req.headers.authorization), namespace, name, config);
    answer(res, 200, 'application/json', JSON.stringify(schedulingView(explanation)));
  } catch (e) {
    if (e instanceof ApiAnswer) return answer(res, e.status, e.contentType, e.body);
    answer(res, 500, 'text/plain; charset=utf-8', `${(e as Error).message}\n`);
  }
}

/** Everything below /ui/ that `winkube up`'s HTTPS server hands to the web view. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SchedulerConfig } from '../scheduler/profile.js';
import type { ApiEndpoint } from './api-getter.js';
import { serveAsset } from './assets.js';
import { EXPLAIN_PATH, serveExplain } from './explain-endpoint.js';
import { RUNTIME_PATH, serveRuntime } from './runtime-endpoint.js';

export type UiRoutes = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;

export function uiRoutes(api: ApiEndpoint, schedulerConfig?: SchedulerConfig): UiRoutes {
  return async (req, res, path) => {
    if (path === EXPLAIN_PATH) { await serveExplain(req, res, api, schedulerConfig); return true; }
    if (path === RUNTIME_PATH) { await serveRuntime(req, res, api); return true; }
    return serveAsset(req, res, path);
  };
}

/** The link `winkube up` prints: the token rides in the fragment, which browsers never send to a server. */
export function loginLink(address: string, token: string): string {
  return `https://${address}/ui/#token=${encodeURIComponent(token)}`;
}

/**
 * GETs of the API server's own paths carrying the browser's Authorization header: the web view's endpoint
 * holds no privilege of its own, so every object it reads is authenticated and authorized as the user.
 */
import { Agent, request } from 'node:https';

/** The API server's answer to a GET that failed, passed on to the browser as it came. */
export class ApiAnswer extends Error {
  constructor(readonly status: number, readonly contentType: string, readonly body: string) { super(`HTTP ${status}`); }
}

export interface ApiEndpoint {
  /** host:port the API server listens on (read per request: `--port 0` picks it at listen time). */
  address: () => string;
  ca: string;
}

// One agent per server: it holds only the CA. No keep-alive, so no connection to the server outlives a request
// and holds up its graceful stop.
const agents = new WeakMap<ApiEndpoint, Agent>();

export function userGetter(api: ApiEndpoint, authorization: string | undefined): (path: string) => Promise<unknown> {
  let agent = agents.get(api);
  if (!agent) agents.set(api, agent = new Agent({ ca: api.ca, keepAlive: false }));
  return (path) => new Promise((resolve, reject) => {
    const url = new URL(path, `https://${api.address()}`);
    const req = request(url, {
      method: 'GET', agent,
      headers: { Accept: 'application/json', ...(authorization ? { Authorization: authorization } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 500;
        if (status >= 400) { reject(new ApiAnswer(status, String(res.headers['content-type'] ?? 'text/plain'), text)); return; }
        try { resolve(JSON.parse(text)); } catch (e) { reject(e instanceof Error ? e : new Error(String(e))); }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The web view's files, served without authentication as any static page is: they hold no cluster data.
 * Everything the page shows it reads afterwards with the user's own bearer token.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UI_CONTENT_SECURITY_POLICY, UI_PAGE } from './page.js';

/** Built by `npm run build` (esbuild) next to this module. */
const BUNDLE_DIR = new URL('./bundle/', import.meta.url);

interface Asset { type: string; body: Buffer }

const cache = new Map<string, Asset>();

function bundleFile(name: string, type: string): Asset | undefined {
  const hit = cache.get(name);
  if (hit) return hit;
  let body: Buffer;
  try { body = readFileSync(new URL(name, BUNDLE_DIR)); } catch { return undefined; }
  const asset = { type, body };
  cache.set(name, asset);
  return asset;
}

function assetFor(path: string): Asset | undefined {
  switch (path) {
    case '/ui/': return { type: 'text/html; charset=utf-8', body: Buffer.from(UI_PAGE) };
    case '/ui/app.js': return bundleFile('app.js', 'text/javascript; charset=utf-8');
    case '/ui/app.css': return bundleFile('app.css', 'text/css; charset=utf-8');
    default: return undefined;
  }
}

/** Answers GET/HEAD of the page and its bundle; false for any other path below /ui/. */
export function serveAsset(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (path === '/ui') {
    res.writeHead(301, { Location: '/ui/', 'Content-Length': 0 });
    res.end();
    return true;
  }
  const asset = assetFor(path);
  if (!asset) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('405 method not allowed\n');
    return true;
  }
  res.writeHead(200, {
    'Content-Type': asset.type, 'Content-Length': asset.body.length,
    'Content-Security-Policy': UI_CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
  return true;
}

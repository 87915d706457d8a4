import type { IncomingMessage, ServerResponse } from 'node:http';
import { OpenApiDocuments, type Served } from '../openapi/documents.js';
import { writeText } from './respond.js';

export { OpenApiDocuments };

interface Clause { type: string; subtype: string; q: number; order: number }

/** Accept clauses best first, as goautoneg sorts them (q, then specificity, then order). */
function acceptClauses(accept: string | undefined): Clause[] {
  const text = accept?.trim() ? accept : '*/*';
  const out: Clause[] = [];
  text.split(',').forEach((part, order) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim());
    const [type, subtype = '*'] = range.toLowerCase().split('/');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k === 'q') q = Number(v);
    }
    if (type) out.push({ type, subtype, q: Number.isFinite(q) ? q : 0, order });
  });
  const specificity = (c: Clause) => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return out.filter((c) => c.q > 0).sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

/** The first offered [type, subtype] the Accept header takes, or undefined (406). */
function pick<T extends string>(accept: string | undefined, offers: [string, string, T][]): T | undefined {
  for (const c of acceptClauses(accept)) {
    for (const [type, subtype, value] of offers) {
      if ((c.type === type || c.type === '*') && (c.subtype === subtype || c.subtype === '*')) return value;
    }
  }
  return undefined;
}

const PROTO_V2_SUBTYPE = 'com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTO_V2_DEPRECATED_SUBTYPE = 'com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** Writes a document as http.ServeContent would: with its ETag, and 304 when the client has it. */
function serveContent(req: IncomingMessage, res: ServerResponse, doc: Served, headers: Record<string, string> = {}): void {
  const etag = JSON.stringify(doc.etag);
  const all: Record<string, string> = { ...headers, 'Content-Type': doc.contentType, Etag: etag };
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').map((s) => s.trim()).some((t) => t === etag || t === '*')) {
    delete all['Content-Type'];
    res.writeHead(304, all);
    res.end();
    return;
  }
  res.writeHead(200, { ...all, 'Content-Length': String(doc.body.length) });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}

/**
 * /openapi/v2 (JSON, or gnostic protobuf for kubectl 1.27/1.28) and /openapi/v3
 * (the index, and one document per group version, immutable under its hash),
 * as kube-openapi's handlers serve them.
 */
export function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string, docs: OpenApiDocuments): void {
  if (path === '/openapi/v2') {
    const format = pick(req.headers.accept, [
      ['application', 'json', 'json'],
      ['application', PROTO_V2_DEPRECATED_SUBTYPE, 'protobuf'],
      ['application', PROTO_V2_SUBTYPE, 'protobuf'],
    ]);
    if (!format) { res.writeHead(406, { Vary: 'Accept' }); res.end(); return; }
    return serveContent(req, res, format === 'json' ? docs.v2Json() : docs.v2Protobuf(), { Vary: 'Accept' });
  }
  if (path === '/openapi/v3') {
    const index = docs.index();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(index.body.length) });
    res.end(req.method === 'HEAD' ? undefined : index.body);
    return;
  }
  if (path.startsWith('/openapi/v3/')) {
    const key = path.slice('/openapi/v3/'.length);
    const doc = docs.v3(key);
    if (!doc) return writeText(res, 404, '404 page not found\n');
    if (!pick(req.headers.accept, [['application', 'json', 'json']])) {
      return writeText(res, 406, `406 - Unsupported Media Type: ${req.headers.accept ?? ''}`);
    }
    const url = new URL(req.url ?? '/', 'https://localhost');
    const hash = url.searchParams.get('hash');
    if (hash) {
      if (hash !== doc.etag) {
        const location = `/openapi/v3/${key}?hash=${doc.etag}`;
        res.writeHead(301, { Location: location, 'Content-Type': 'text/html; charset=utf-8' });
        res.end(`<a href="${location}">Moved Permanently</a>.\n\n`);
        return;
      }
      const expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      return serveContent(req, res, doc, { Vary: 'Accept', 'Cache-Control': 'public, immutable', Expires: expires });
    }
    return serveContent(req, res, doc);
  }
  writeText(res, 404, '404 page not found\n');
}

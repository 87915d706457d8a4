import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJSON, writeText } from './respond.js';

const PROTO_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * /openapi/v2: kubectl 1.27/1.28 need it for apply, create -f, replace and
 * edit. An empty protobuf document decodes to an empty spec, which makes
 * kubectl skip client-side schema checks and compute patches from its
 * compiled-in types. The full schemas are served in a later change.
 */
export function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string): void {
  if (path === '/openapi/v2') {
    if ((req.headers.accept ?? '').includes('protobuf')) {
      res.writeHead(200, { 'Content-Type': PROTO_V2, 'Content-Length': 0 });
      res.end();
      return;
    }
    return writeJSON(res, 200, { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths: {}, definitions: {} });
  }
  writeText(res, 404, '404 page not found\n');
}

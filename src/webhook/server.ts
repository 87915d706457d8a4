/**
 * The webhook's HTTPS endpoint: POST /validate (and /mutate when enabled)
 * take an admission.k8s.io/v1 AdmissionReview and answer one; GET /healthz
 * and /readyz answer `ok` (readyz only once the cluster has been read).
 * Malformed requests get HTTP 400 with a Status saying what is wrong, which
 * the API server shows in its "failed calling webhook" error.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admissionReviewResponse, MalformedReview, parseAdmissionReview, type Decision } from './admission-review.js';
import type { ClusterSource } from './cluster-source.js';
import { mutateRequest } from './mutate.js';
import { validateRequest, type ValidateOptions } from './validate.js';
import type { KeyPair } from './tls-files.js';

export interface WebhookOptions extends ValidateOptions {
  mutate?: boolean;
}

/** The API server sends at most its request size limit (3 MiB) plus the review around the object; more is not a review. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge(`request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A metav1.Status, as the API server reads an error body. */
const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(body);
}

export class WebhookHandler {
  constructor(private readonly cluster: ClusterSource, private readonly opts: WebhookOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    if (path === '/healthz') { text(res, 200, 'ok'); return; }
    if (path === '/readyz') {
      if (this.cluster.current()) text(res, 200, 'ok');
      else text(res, 503, 'not ready: the cluster has not been read yet');
      return;
    }
    const review = path === '/validate' || (path === '/mutate' && this.opts.mutate);
    if (!review) { send(res, 404, status(404, 'NotFound', `no handler for ${path}`)); return; }
    if (method !== 'POST') {
      res.setHeader('Allow', 'POST');
      send(res, 405, status(405, 'MethodNotAllowed', `${method} is not allowed on ${path}: AdmissionReviews are POSTed`));
      return;
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (contentType !== 'application/json') { send(res, 400, status(400, 'BadRequest', `contentType=${contentType}, expected application/json`)); return; }
    let decision: Decision;
    let uid: string;
    try {
      const request = parseAdmissionReview(await readBody(req));
      uid = request.uid;
      if (path === '/mutate') decision = mutateRequest(request);
      else {
        const cluster = this.cluster.current();
        if (!cluster) { send(res, 503, status(503, 'ServiceUnavailable', 'the cluster has not been read yet')); return; }
        decision = validateRequest(request, cluster, this.opts);
      }
    } catch (e) {
      if (e instanceof MalformedReview) { send(res, 400, status(400, 'BadRequest', e.message)); return; }
      if (e instanceof BodyTooLarge) { send(res, 413, status(413, 'RequestEntityTooLarge', e.message)); return; }
      throw e;
    }
    send(res, 200, admissionReviewResponse(uid, decision));
  }
}

export interface RunningWebhook { server: Server; port: number }

export async function startWebhookServer(pair: KeyPair, handler: WebhookHandler, port: number, host: string, log: (line: string) => void): Promise<RunningWebhook> {
  const server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    handler.handle(req, res).catch((e: Error) => {
      log(`${req.method ?? ''} ${req.url ?? ''}: ${e.message}`);
      if (!res.headersSent) send(res, 500, status(500, 'InternalError', e.message));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve()); });
  return { server, port: (server.address() as AddressInfo).port };
}

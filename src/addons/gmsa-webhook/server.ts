/**
 * The GMSA webhook's HTTPS endpoint (windows-gmsa admission-webhook/webhook.go ServeHTTP at
 * 993de21): POST /mutate and /validate take an AdmissionReview and answer one
 * (admission.k8s.io/v1); /health answers 204 and /info the version. Anything else: the webhook's
 * bare status codes.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { mutateCreate, validateCreate, validateUpdate, type GMSADecision, type GMSALookups } from './admit.js';

/** The windows-gmsa release whose behaviour this is (its chart's appVersion at 993de21). */
export const GMSA_WEBHOOK_VERSION = '0.13.0';

type Operation = 'VALIDATE' | 'MUTATE';

interface AdmissionRequest { uid?: string; kind?: { kind?: string }; operation?: string; namespace?: string; object?: unknown; oldObject?: unknown }

/** validateOrMutate: the decision for one AdmissionRequest. */
async function decide(request: AdmissionRequest, operation: Operation, lookups: GMSALookups): Promise<GMSADecision> {
  if (request.kind?.kind !== 'Pod') return { allowed: false, code: 400, message: `expected a Pod object, got a ${request.kind?.kind ?? ''}` };
  const pod = asPod(request.object);
  if (typeof pod === 'string') return { allowed: false, code: 400, message: pod };
  switch (request.operation) {
    case 'CREATE':
      return operation === 'VALIDATE' ? validateCreate(pod, request.namespace ?? '', lookups) : mutateCreate(pod, lookups);
    case 'UPDATE': {
      if (operation !== 'VALIDATE') return { allowed: true };
      const old = asPod(request.oldObject);
      return typeof old === 'string' ? { allowed: false, code: 400, message: old } : validateUpdate(pod, old);
    }
    default:
      // The webhook's own spelling.
      return { allowed: false, code: 400, message: `unpexpected operation ${request.operation ?? ''}` };
  }
}

function asPod(v: unknown): Pod | string {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Pod;
  return 'unable to unmarshall pod JSON object: unexpected end of JSON input';
}

/** An AdmissionResponse as the webhook marshals it (deniedAdmissionResponse for refusals). */
function admissionResponse(uid: string, d: GMSADecision): Record<string, unknown> {
  if (!d.allowed) return { uid, allowed: false, status: { metadata: {}, message: d.message, code: d.code } };
  if (!d.patch) return { uid, allowed: true };
  return { uid, allowed: true, patch: Buffer.from(JSON.stringify(d.patch)).toString('base64'), patchType: 'JSONPatch' };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req: IncomingMessage, res: ServerResponse, lookups: GMSALookups): Promise<void> {
  const path = new URL(req.url ?? '/', 'https://webhook').pathname;
  const json = (body: unknown) => { res.setHeader('Content-Type', 'application/json'); res.end(JSON.stringify(body)); };
  let operation: Operation;
  switch (path) {
    case '/validate': operation = 'VALIDATE'; break;
    case '/mutate': operation = 'MUTATE'; break;
    case '/info': json({ version: GMSA_WEBHOOK_VERSION }); return;
    case '/health': res.writeHead(204).end(); return;
    default: res.writeHead(404).end(); return;
  }
  if (req.method?.toUpperCase() !== 'POST') { res.writeHead(405).end(); return; }
  if (req.headers['content-type'] !== 'application/json') { res.writeHead(415).end(); return; }
  const body = await readBody(req);
  let review: { request?: AdmissionRequest };
  try {
    review = JSON.parse(body) as { request?: AdmissionRequest };
  } catch (e) {
    json({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', response: admissionResponse('', { allowed: false, code: 400, message: `unable to unmarshall JSON body as an admission review: ${(e as Error).message}` }) });
    return;
  }
  const request = review?.request;
  const decision: GMSADecision = request ? await decide(request, operation, lookups) : { allowed: false, code: 400, message: "no 'Request' field in JSON body" };
  json({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', response: admissionResponse(request?.uid ?? '', decision) });
}

/** Starts the webhook on `host` (an ephemeral port); resolves with the server and its port. */
export async function startGMSAWebhook(tls: { cert: string; key: string }, lookups: GMSALookups, host = '127.0.0.1'): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    handle(req, res, lookups).catch(() => { if (!res.headersSent) res.writeHead(500); res.end(); });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, host, () => resolve()); });
  return { server, port: (server.address() as AddressInfo).port };
}

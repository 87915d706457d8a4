/**
 * `agnhost webhook` (kubernetes/kubernetes test/images/agnhost/webhook/main.go,
 * config.go): loads its serving certificate and key from the container's
 * files (tls.LoadX509KeyPair; a failure is klog.Fatal, exit 255), then
 * serves HTTPS on --port (443) with that certificate chain: the admission
 * paths of agnhost-webhook-admit.ts, `/readyz` (`ok`), the mux's 404
 * elsewhere. It logs through klog to stderr (--alsologtostderr -v=4).
 */
import type { Program, Step } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { serveAdmission, WEBHOOK_PATHS, type WebhookAnswer } from './agnhost-webhook-admit.js';
import { goBindError, goResponse } from './go-http.js';
import { headerOf, httpServer, pathOf, type Served } from './http-server.js';
import { klogLine } from './go-klog.js';
import { loadKeyPair } from './go-tls-keypair.js';

export interface WebhookFlags { certFile: string; keyFile: string; port: number; sidecarImage: string }

export function webhookFlags(flags: ReadonlyMap<string, string>): WebhookFlags {
  return {
    certFile: flags.get('tls-cert-file') ?? '', keyFile: flags.get('tls-private-key-file') ?? '',
    port: Number(flags.get('port') ?? 443), sidecarImage: flags.get('sidecar-image') ?? '',
  };
}

const JSON_HEADERS: [string, string][] = [['Content-Type', 'application/json']];
const ERROR_HEADERS: [string, string][] = [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']];

export function agnhostWebhook(ctx: AppContext, f: WebhookFlags): Program {
  const read = (p: string) => ctx.fs?.read(ctx.fs.resolve(p));
  const pair = loadKeyPair(read, f.certFile, f.keyFile);
  if ('error' in pair) {
    return [klogLine('F', ctx.now(), 'config.go:32', pair.error) as Step, { kind: 'exit', code: 255 } as Step][Symbol.iterator]();
  }
  const info = (msg: string) => klogLine('I', ctx.now(), 'main.go:103', msg);
  const error = (msg: string) => klogLine('E', ctx.now(), 'main.go:98', msg);
  const toServed = (a: WebhookAnswer): Served => {
    const now = ctx.now();
    switch (a.kind) {
      case 'plain': return { response: goResponse(now, a.status, a.body, a.status === 404 ? ERROR_HEADERS : []) };
      case 'empty': return { response: goResponse(now, 200, ''), log: [error(a.errorLog)] };
      case 'error': return { response: goResponse(now, a.status, `${a.message}\n`, ERROR_HEADERS), log: [...a.log.map(info), ...(a.errorLog ? [error(a.errorLog)] : [])] };
      case 'reset': return { response: goResponse(now, 200, ''), reset: true, log: [...a.log.map(info), ...(a.errorLog ? [error(a.errorLog)] : [])] };
      case 'never': return { response: goResponse(now, 200, ''), never: true, log: a.log.map(info) };
      case 'json': return {
        response: goResponse(now, 200, a.body, JSON_HEADERS),
        log: [...a.log.map(info), ...(a.errorLog ? [error(a.errorLog)] : [])], ...(a.delayMs ? { delayMs: a.delayMs } : {}),
      };
    }
  };
  return httpServer(ctx, {
    ports: [f.port],
    tls: { certificate: pair.chain },
    startup: () => [],
    bound: () => [],
    // ListenAndServeTLS's error is main's panic.
    bindFailed: () => ({ steps: [goBindError(ctx.now(), f.port)], code: 2 }),
    serve: (req) => {
      const path = pathOf(req.target);
      if (path === '/readyz') return toServed({ kind: 'plain', status: 200, body: 'ok' });
      const known = WEBHOOK_PATHS.find((p) => p === path);
      if (!known) return toServed({ kind: 'plain', status: 404, body: '404 page not found\n' });
      return toServed(serveAdmission(known, headerOf(req, 'Content-Type'), Buffer.from(req.body).toString('utf8'), f.sidecarImage));
    },
  });
}

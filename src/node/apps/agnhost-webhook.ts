/**
 * `agnhost webhook` (kubernetes/kubernetes test/images/agnhost/webhook/main.go,
 * config.go): loads its serving certificate and key from the container's
 * files (tls.LoadX509KeyPair; a failure is klog.Fatal, exit 255), then
 * serves HTTPS on --port (443) with that certificate chain: the admission
 * paths of agnhost-webhook-admit.ts, `/readyz` (`ok`), the mux's 404
 * elsewhere. It logs through klog to stderr (--alsologtostderr -v=4).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Program, Step } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { serveAdmission, WEBHOOK_PATHS, type WebhookAnswer } from './agnhost-webhook-admit.js';
import { goBindError, goResponse } from './go-http.js';
import { headerOf, httpServer, pathOf, type Output, type Served } from './http-server.js';

export interface WebhookFlags { certFile: string; keyFile: string; port: number; sidecarImage: string }

export function webhookFlags(flags: ReadonlyMap<string, string>): WebhookFlags {
  return {
    certFile: flags.get('tls-cert-file') ?? '', keyFile: flags.get('tls-private-key-file') ?? '',
    port: Number(flags.get('port') ?? 443), sidecarImage: flags.get('sidecar-image') ?? '',
  };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** klog's header: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg` (the process is pid 1 in its container). */
export function klogLine(now: Date, level: 'I' | 'E' | 'F', site: string, msg: string): Output {
  const t = `${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds(), 3)}000`;
  return { kind: 'stderr', text: `${level}${t}       1 ${site}] ${msg}\n` };
}

/** tls.LoadX509KeyPair's error for the files as the container sees them; undefined when they make a pair. */
export function loadKeyPairError(read: (path: string) => string | undefined, certFile: string, keyFile: string): string | undefined {
  const cert = read(certFile);
  if (cert === undefined) return `open ${certFile}: no such file or directory`;
  const key = read(keyFile);
  if (key === undefined) return `open ${keyFile}: no such file or directory`;
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) return 'tls: failed to find any PEM data in certificate input';
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) return 'tls: failed to find any PEM data in key input';
  try {
    if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) return 'tls: private key does not match public key';
  } catch {
    return 'tls: failed to parse private key';
  }
  return undefined;
}

const JSON_HEADERS: [string, string][] = [['Content-Type', 'application/json']];
const ERROR_HEADERS: [string, string][] = [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']];

export function agnhostWebhook(ctx: AppContext, f: WebhookFlags): Program {
  const read = (p: string) => ctx.fs?.read(ctx.fs.resolve(p));
  const loadError = loadKeyPairError(read, f.certFile, f.keyFile);
  if (loadError !== undefined) {
    return [klogLine(ctx.now(), 'F', 'config.go:32', loadError) as Step, { kind: 'exit', code: 255 } as Step][Symbol.iterator]();
  }
  const info = (msg: string) => klogLine(ctx.now(), 'I', 'main.go:103', msg);
  const error = (msg: string) => klogLine(ctx.now(), 'E', 'main.go:98', msg);
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
    tls: { certificate: read(f.certFile) ?? '' },
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

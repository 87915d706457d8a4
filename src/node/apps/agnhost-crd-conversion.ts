/**
 * `agnhost crd-conversion-webhook` (kubernetes/kubernetes test/images/agnhost/crd-conversion-webhook
 * main.go and config.go): builds an in-cluster client (fatal without the service account's
 * environment and token), loads the serving certificate and key named by --tls-cert-file and
 * --tls-private-key-file (fatal when they cannot be read or do not match), then serves HTTPS on
 * --port (443) with /crdconvert (crd-conversion-rules.ts) and /readyz (`ok`); any other path is
 * net/http's 404. klog's flags (--alsologtostderr, -v, ...) are agnhost's global ones; the
 * handler's V(2) lines are written when -v is 2 or more.
 *
 * Not modelled: the goroutine dump klog.Fatal writes before exiting, and the stack trace net/http
 * logs after a handler's panic (only its first line is written).
 */
import type { Program, Step } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { serveConversion } from './crd-conversion-rules.js';
import { goLog, goResponse } from './go-http.js';
import { klogLine } from './go-klog.js';
import { headerOf, httpServer, pathOf } from './http-server.js';
import { loadKeyPair } from './go-tls-keypair.js';

export interface CrdConversionFlags { certFile: string; keyFile: string; port: number; verbosity: number }

/** The subcommand's flags and klog's global ones (cobra: `--name=value` or `--name value`; klog's booleans take no value). */
export function crdConversionFlags(args: readonly string[]): CrdConversionFlags {
  const bool = ['alsologtostderr', 'logtostderr', 'add_dir_header', 'skip_headers', 'skip_log_headers', 'one_output'];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([a-zA-Z0-9_-]+)(?:=(.*))?$/.exec(args[i]!);
    if (!m) continue;
    if (m[2] !== undefined) flags.set(m[1]!, m[2]);
    else if (bool.includes(m[1]!)) flags.set(m[1]!, 'true');
    else flags.set(m[1]!, args[++i] ?? '');
  }
  return {
    certFile: flags.get('tls-cert-file') ?? '', keyFile: flags.get('tls-private-key-file') ?? '',
    port: Number(flags.get('port') ?? 443), verbosity: Number(flags.get('v') ?? 0),
  };
}

const SA_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** klog.Fatal: the line, then exit 255. */
function fatal(ctx: AppContext, source: string, message: string): Program {
  return [klogLine('F', ctx.now(), source, message) as Step, { kind: 'exit', code: 255 } as Step][Symbol.iterator]();
}

export function crdConversionWebhook(ctx: AppContext, args: readonly string[]): Program {
  const flags = crdConversionFlags(args);
  // rest.InClusterConfig
  if (!ctx.env.KUBERNETES_SERVICE_HOST || !ctx.env.KUBERNETES_SERVICE_PORT) {
    return fatal(ctx, 'config.go:31', 'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  }
  const read = (p: string) => ctx.fs?.read(ctx.fs.resolve(p));
  if (ctx.fs && read(SA_TOKEN) === undefined) return fatal(ctx, 'config.go:31', `open ${SA_TOKEN}: no such file or directory`);
  const pair = loadKeyPair(read, flags.certFile, flags.keyFile);
  if ('error' in pair) return fatal(ctx, 'config.go:43', pair.error);
  let objects = 0;
  // Heap addresses as a Go process prints them; nothing depends on their values.
  const pointer = () => `0xc000${(0x3a0000 + 0x70 * objects++).toString(16)}`;
  return httpServer(ctx, {
    ports: [flags.port],
    tls: { certificate: pair.chain },
    startup: () => [],
    bound: () => [],
    // ListenAndServeTLS's error: panic(err), exit 2.
    bindFailed: (port) => ({ steps: [{ kind: 'stderr', text: `panic: listen tcp :${port}: bind: address already in use\n` }], code: 2 }),
    serve: (req, conn) => {
      const now = ctx.now();
      // main.go's readiness handler, which the e2e deployment's HTTPS readiness probe calls.
      if (pathOf(req.target) === '/readyz') return { response: goResponse(now, 200, 'ok') };
      if (pathOf(req.target) !== '/crdconvert') {
        return { response: goResponse(now, 404, '404 page not found\n', [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']]) };
      }
      const answer = serveConversion(headerOf(req, 'Content-Type') ?? '', headerOf(req, 'Accept') ?? '', req.body, pointer);
      const log = answer.logs.filter((l) => l.severity !== 'I' || flags.verbosity >= 2).map((l) => klogLine(l.severity, now, l.source, l.message));
      if (answer.panic !== undefined) {
        return { response: goResponse(now, 500, ''), reset: true, log: [...log, goLog(now, `http: panic serving ${conn.client.ip}:${conn.client.port}: ${answer.panic}`)] };
      }
      return { response: goResponse(now, answer.status, answer.body, answer.headers), log };
    },
  });
}

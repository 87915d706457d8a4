/**
 * registry.k8s.io/e2e-test-images/agnhost (ENTRYPOINT ["/agnhost"]): the
 * subcommands whose behaviour the network model needs, from
 * kubernetes/kubernetes test/images/agnhost:
 *
 * - netexec (netexec/netexec.go): HTTP on --http-port (8080): `/` the time
 *   (`NOW: <time.Now()>`), `/hostname` and `/hostName`, `/clientip` (the
 *   client's ip:port as the pod sees it), `/echo?msg=&code=`,
 *   `/exit?code=` (os.Exit without answering), `/healthz`, `/shutdown`;
 *   each handler logs `GET /...`; `/dial` (agnhost-netexec-dial.ts) and
 *   the UDP server on --udp-port (agnhost-netexec-udp.ts). `/shell`,
 *   `/upload` and `/redirect`, and the SCTP server, are not modelled: those
 *   paths answer net/http's 404 (unlike the real mux, which has them), so
 *   a test relying on them fails visibly instead of reading a made-up
 *   answer.
 * - serve-hostname (serve-hostname/serve_hostname.go): HTTP on --port
 *   (9376) answering the hostname; SIGTERM logs and waits 60 s.
 * - pause (pause/pause.go): prints `Paused`, listens on nothing; SIGTERM
 *   exits 2.
 * - mounttest (agnhost-mounttest.ts): file modes, owners and contents of
 *   the container's filesystem.
 * - webhook (agnhost-webhook.ts): the admission webhook the e2e tests
 *   deploy, HTTPS with the certificate from its mounted Secret.
 * - nettest (agnhost-nettest.ts), guestbook (agnhost-guestbook.ts).
 * - logs-generator (agnhost-logs-generator.ts): klog lines at a steady rate.
 * - test-service-account-issuer-discovery (agnhost-oidc-discovery.ts): the
 *   token verified through the API server's OIDC discovery documents.
 * - entrypoint-tester (entrypoint-tester/ep.go): prints os.Args as Go's
 *   `%v` of a []string (`[/agnhost entrypoint-tester a b]`) and exits 0.
 */
import { Pending } from '../shell/pending.js';
import type { Program, Step } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { goBindError, goLog, goResponse, goTimeString } from './go-http.js';
import { httpServer, pathOf, type Served } from './http-server.js';
import { ContainerFS } from '../shell/fs.js';
import { mounttest, mounttestFlags } from './agnhost-mounttest.js';
import { crdConversionWebhook } from './agnhost-crd-conversion.js';
import { agnhostWebhook, webhookFlags } from './agnhost-webhook.js';
import { nettest, nettestFlags } from './agnhost-nettest.js';
import { guestbook, guestbookFlags } from './agnhost-guestbook.js';
import { issuerDiscoveryTest } from './agnhost-oidc-discovery.js';
import { logsGenerator, logsGeneratorFlags } from './agnhost-logs-generator.js';
import { parseDial, runDial } from './agnhost-netexec-dial.js';
import { netexecDatagram } from './agnhost-netexec-udp.js';

const SUBCOMMANDS = ['netexec', 'serve-hostname', 'pause', 'mounttest', 'entrypoint-tester', 'webhook', 'nettest', 'guestbook', 'logs-generator', 'test-service-account-issuer-discovery', 'crd-conversion-webhook'];
const BOOL_FLAGS = ['tcp', 'udp', 'http', 'close', 'break_on_expected_content', 'alsologtostderr'];

/** The subcommand and its flags (cobra: `--name=value` or `--name value`); undefined for subcommands not modelled. */
export function parseAgnhost(argv: readonly string[]): { sub: string; flags: Map<string, string> } | undefined {
  const [sub, ...rest] = argv;
  if (sub === undefined || !SUBCOMMANDS.includes(sub)) return undefined;
  const flags = new Map<string, string>();
  // entrypoint-tester takes any arguments and prints them.
  if (sub === 'entrypoint-tester') return { sub, flags };
  const parsed = parseAgnhostFlags(rest);
  return parsed ? { sub, flags: parsed } : undefined;
}

/** A subcommand's flags (cobra: `--name=value` or `--name value`); undefined for an argument that is no flag. */
export function parseAgnhostFlags(rest: readonly string[]): Map<string, string> | undefined {
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const m = /^--?([a-z0-9_-]+)(?:=(.*))?$/.exec(rest[i]!);
    if (!m) return undefined;
    const name = m[1]!;
    if (m[2] !== undefined) flags.set(name, m[2]);
    else if (BOOL_FLAGS.includes(name)) flags.set(name, 'true');
    else flags.set(name, rest[++i] ?? '');
  }
  return flags;
}

/** `argv0` is the path the binary was started as (the image's /agnhost, or /agnhost-2, its copy). */
export function agnhost(ctx: AppContext, argv: readonly string[], argv0 = '/agnhost'): Program | undefined {
  const parsed = parseAgnhost(argv);
  if (!parsed) return undefined;
  const { sub, flags } = parsed;
  if (sub === 'pause') return pause();
  if (sub === 'crd-conversion-webhook') return crdConversionWebhook(ctx, argv.slice(1));
  if (sub === 'entrypoint-tester') return finite(`[${[argv0, ...argv].join(' ')}]\n`, 0);
  if (sub === 'mounttest') {
    return mounttest({ fs: ctx.fs ?? new ContainerFS('linux'), user: ctx.user ?? { uid: 0, gid: 0 }, nowMs: () => ctx.now().getTime() }, mounttestFlags(flags));
  }
  if (sub === 'webhook') return agnhostWebhook(ctx, webhookFlags(flags));
  if (sub === 'nettest') return nettest(ctx, nettestFlags(flags));
  if (sub === 'guestbook') return guestbook(ctx, guestbookFlags(flags));
  if (sub === 'logs-generator') return logsGenerator(logsGeneratorFlags(flags), ctx.now);
  if (sub === 'test-service-account-issuer-discovery') return issuerDiscoveryTest({ ...(ctx.net ? { net: ctx.net } : {}), ...(ctx.fs ? { fs: ctx.fs } : {}), env: ctx.env, now: ctx.now }, flags);
  if (sub === 'serve-hostname') return serveHostname(ctx, Number(flags.get('port') ?? 9376), flags.get('close') === 'true');
  return netexec(ctx, Number(flags.get('http-port') ?? 8080), Number(flags.get('udp-port') ?? 8081));
}

function finite(text: string, code: number): Program {
  return [{ kind: 'stdout', text } as Step, { kind: 'exit', code } as Step][Symbol.iterator]();
}

function pause(): Program {
  const gen = (function* (): Generator<Step, void> {
    yield { kind: 'stdout', text: 'Paused\n' };
    yield { kind: 'wait', on: new Pending<unknown>() };
  })();
  // SIGTERM: os.Exit(2) in the signal goroutine, before main prints "exiting".
  return { next: () => gen.next(), terminate: () => [{ kind: 'exit', code: 2 } as Step][Symbol.iterator]() };
}

function serveHostname(ctx: AppContext, port: number, close: boolean): Program {
  return httpServer(ctx, {
    ports: [port],
    startup: () => [],
    bound: () => [goLog(ctx.now(), `Serving on port ${port}.`)],
    bindFailed: () => ({ steps: [goLog(ctx.now(), `Serving on port ${port}.`), goBindError(ctx.now(), port)], code: 1 }),
    serve: (_req, conn) => ({
      response: goResponse(ctx.now(), 200, ctx.hostname, close ? [['Connection', 'close']] : []),
      log: [goLog(ctx.now(), `HTTP request from ${conn.client.ip}:${conn.client.port}`)],
    }),
    stopping: () => [
      goLog(ctx.now(), 'Shutting down after receiving signal: terminated.'),
      goLog(ctx.now(), 'Awaiting pod deletion.'),
      { kind: 'sleep', ms: 60_000 },
    ],
  });
}

function netexec(ctx: AppContext, port: number, udpPort: number): Program {
  const started = ctx.now().getTime();
  const log = (text: string) => goLog(ctx.now(), text);
  let udpTaken = false;
  return httpServer(ctx, {
    ports: [port],
    startup: () => [],
    // main starts the UDP goroutine, then logs the HTTP server's start; the UDP goroutine logs once it listens.
    bound: () => [log(`Started HTTP server on port ${port}`), ...(udpPort !== -1 && !udpTaken ? [log(`Started UDP server on port  ${udpPort}`)] : [])],
    bindFailed: () => ({ steps: [log(`Started HTTP server on port ${port}`), goBindError(ctx.now(), port)], code: 1 }),
    otherSockets: (emit) => {
      if (udpPort === -1 || !ctx.net?.listenDatagram) return;
      const bound = ctx.net.listenDatagram(udpPort, (payload, client) => {
        const a = netexecDatagram(payload, ctx.hostname, client);
        if (a.log !== undefined) emit({ log: [log(a.log)] });
        return a.replies;
      });
      if (bound) return;
      // startUDPServer's assertNoError: log.Fatalf ends the whole process.
      udpTaken = true;
      emit({ log: [log(`Error occurred: failed to create listener for UDP address :${udpPort}:listen udp :${udpPort}: bind: address already in use`)], exitCode: 1 });
    },
    serve: (req, conn): Served | Pending<Served> => {
      const now = ctx.now();
      const path = pathOf(req.target);
      const q = new URLSearchParams(req.target.includes('?') ? req.target.slice(req.target.indexOf('?') + 1) : '');
      const ok = (body: string, line: string): Served => ({ response: goResponse(now, 200, body), log: [log(line)] });
      switch (path) {
        case '/hostname': return ok(ctx.hostname, 'GET /hostname');
        case '/hostName': return ok(ctx.hostname, 'GET /hostName');
        case '/clientip': return ok(`${conn.client.ip}:${conn.client.port}`, 'GET /clientip');
        case '/healthz': return { response: goResponse(now, udpPort === -1 ? 412 : 200, ''), log: [log('GET /healthz')] };
        case '/echo': {
          const msg = q.get('msg') ?? '';
          const code = q.get('code') ?? '';
          const line = log(`GET /echo?msg=${msg}&code=${code}`);
          if (code === '') return { response: goResponse(now, 200, msg), log: [line] };
          if (!/^[+-]?\d+$/.test(code)) return { response: goResponse(now, 200, `argument 'code' must be an integer or empty, got ${JSON.stringify(code)}\n`), log: [line] };
          return { response: goResponse(now, Number(code), msg), log: [line] };
        }
        case '/exit': case '/shutdown': {
          const code = path === '/shutdown' ? '0' : q.get('code') ?? '';
          const lines = path === '/shutdown' ? [log('GET /shutdown')] : [log(`GET /exit?code=${code}&timeout=${q.get('timeout') ?? ''}&wait=${q.get('wait') ?? ''}`),
            log(`Will begin shutdown in 0s, allowing 0s for connections to close, then will exit with ${Number(code || 0)}`)];
          // os.Exit before the handler writes: the connection closes unanswered.
          return { response: goResponse(now, 200, ''), reset: true, log: lines, exitCode: Number(code || 0) };
        }
        case '/dial': {
          const d = parseDial(req.target.includes('?') ? req.target.slice(req.target.indexOf('?') + 1) : '');
          const line = [log(d.log ?? '')];
          const plain: [string, string][] = [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']];
          if (!d.ok) return { response: goResponse(now, d.status, d.body, plain), log: line };
          const answer = runDial(d.params, { ...(ctx.net ? { net: ctx.net } : {}), ...(ctx.after ? { after: ctx.after } : {}) });
          const served = new Pending<Served>();
          answer.onSettle(() => {
            const a = answer.value;
            served.settle({ response: goResponse(ctx.now(), a.status, a.body, a.status === 200 ? [] : plain), log: line });
          });
          return served;
        }
        case '/shell': case '/upload': case '/redirect':
          return { response: goResponse(now, 404, '404 page not found\n', [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']]) };
        default: return ok(`NOW: ${goTimeString(now, now.getTime() - started)}`, 'GET /');
      }
    },
  });
}

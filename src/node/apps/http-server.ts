/**
 * The process shape every modelled HTTP server shares: start-up output, the
 * bind of its ports (the listener lives while the process does: the kubelet
 * closes the container's sockets when it exits), then a loop that writes
 * what each request makes the server log. A request that costs CPU
 * (`cpuPerRequestNs`) is answered once that work is done, its CPU time later
 * (one core per request, as a prefork child or a worker thread runs it), so a
 * client that waits for each answer (the walkthrough's wget loop) runs at the
 * rate the server allows; other requests are answered at once. Log lines are
 * written as requests are answered. A request still in work when the process
 * ends is reset.
 */
import type { Acceptor, Endpoint, HttpReply, HttpRequest, HttpResponse, Listening, ServerTLS } from '../shell/net-types.js';
import { Pending } from '../shell/pending.js';
import type { Program, Step } from '../shell/types.js';
import type { AppContext } from './app-context.js';

/** A line (or partial output) the server writes. */
export type Output = { kind: 'stdout' | 'stderr'; text: string };

/** What one request produces: the response, the server's log output, and whether the process then exits. */
export interface Served {
  response: HttpResponse;
  /** The process ends before it answers: the client sees the connection go away. */
  reset?: boolean;
  log?: Output[];
  exitCode?: number;
  /** The handler sleeps this long before it answers (time.Sleep: no CPU); with no timers in the context it answers at once. */
  delayMs?: number;
  /** The handler never returns: the client waits until it gives up. */
  never?: boolean;
}

export interface ServerBehaviour {
  /** Written before the ports are bound (an entrypoint's lines). */
  startup(): Output[];
  ports: number[];
  /** Written after every port is bound (the server's own start-up notices). */
  bound(): Output[];
  /** A port is taken: what the server writes (and how long it retries first), and its exit code. */
  bindFailed(port: number): { steps: Step[]; code: number };
  /** The answer, or its later arrival (a handler that itself waits on the network). */
  serve(req: HttpRequest, conn: { client: Endpoint; local: Endpoint }): Served | Pending<Served>;
  /**
   * Work the program does beside serving (a goroutine started before the
   * server): once the ports are bound, it is given a way to write log
   * output and to end the process with a code.
   */
  background?(emit: (out: { log?: Output[]; exitCode?: number }) => void): void;
  /**
   * Sockets of other kinds the server binds as it starts, before its start-up
   * output (netexec's UDP port), with the same way as `background` to write
   * what they make the process do as they serve.
   */
  otherSockets?(emit: (out: { log?: Output[]; exitCode?: number }) => void): void;
  /** SIGTERM: what the server does before it exits (its shutdown lines, a wait); it then exits with `stopCode` (0). */
  stopping?(): Step[];
  stopCode?: number;
  /** The CPU time (ns) answering one request costs the container (its usage model counts it). */
  cpuPerRequestNs?: number;
  /** Serves HTTPS with this certificate chain (ListenAndServeTLS). */
  tls?: ServerTLS;
}

/** Work shorter than this is answered at once: a timer would cost the model more than the wait is worth. */
const ANSWER_AT_ONCE_BELOW_NS = 1_000_000;

export function httpServer(ctx: AppContext, b: ServerBehaviour): Program {
  const queue: Step[] = [];
  let arrival: Pending<unknown> | undefined;
  const bound: Listening[] = [];
  const inWork = new Set<Pending<HttpReply>>();
  const answer = (served: { log?: Output[]; exitCode?: number }) => {
    queue.push(...(served.log ?? []));
    if (served.exitCode !== undefined) queue.push({ kind: 'exit', code: served.exitCode });
    const a = arrival;
    arrival = undefined;
    a?.settle(undefined);
  };
  const accept: Acceptor = (req, conn) => {
    const result = b.serve(req, conn);
    if (result instanceof Pending) {
      const reply = new Pending<HttpReply>();
      inWork.add(reply);
      result.onSettle(() => {
        if (!inWork.delete(reply)) return;
        answer(result.value);
        reply.settle(result.value.reset ? 'reset' : result.value.response);
      });
      return reply;
    }
    const served = result;
    if (served.never) {
      answer(served);
      const forever = new Pending<HttpReply>();
      inWork.add(forever);
      return forever;
    }
    const cost = b.cpuPerRequestNs ?? 0;
    if (cost) ctx.served?.(cost);
    const delayMs = cost / 1e6 + (served.delayMs ?? 0);
    if ((cost < ANSWER_AT_ONCE_BELOW_NS && !served.delayMs) || !ctx.after) {
      answer(served);
      return Pending.of<HttpReply>(served.reset ? 'reset' : served.response);
    }
    const reply = new Pending<HttpReply>();
    inWork.add(reply);
    ctx.after(delayMs, () => {
      if (!inWork.delete(reply)) return;
      answer(served);
      reply.settle(served.reset ? 'reset' : served.response);
    });
    return reply;
  };
  // The process is gone (its sockets closed): what it was still working on is reset.
  const closed = () => { for (const r of inWork) r.settle('reset'); inWork.clear(); };
  // The sockets are bound as the process starts, so that a probe right after the container's start finds them.
  let taken: number | undefined;
  for (const port of ctx.net ? b.ports : []) {
    const l = ctx.net!.listen(port, accept, closed, b.tls);
    if (!l) { taken = port; for (const x of bound) x.close(); break; }
    bound.push(l);
  }
  if (taken === undefined) b.otherSockets?.(answer);
  function* run(): Generator<Step, void> {
    yield* b.startup();
    if (taken !== undefined) {
      const failed = b.bindFailed(taken);
      yield* failed.steps;
      yield { kind: 'exit', code: failed.code };
      return;
    }
    yield* b.bound();
    b.background?.(answer);
    for (;;) {
      while (queue.length) yield queue.shift()!;
      arrival = new Pending<unknown>();
      yield { kind: 'wait', on: arrival };
    }
  }
  const gen = run();
  return {
    next: () => gen.next(),
    terminate: () => [...(b.stopping?.() ?? []), { kind: 'exit', code: b.stopCode ?? 0 } as Step][Symbol.iterator](),
  };
}

/** RFC 1123 date as HTTP's Date and Last-Modified headers carry it. */
export const httpDate = (d: Date) => d.toUTCString();

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Common Log Format time (`$time_local`, Apache's `%t` without brackets) in UTC: `11/Dec/2024:09:53:17 +0000`. */
export const clfTime = (d: Date) =>
  `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;

export const headerOf = (req: HttpRequest, name: string) => req.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** The request line as servers log it (the model's clients speak HTTP/1.1). */
export const requestLine = (req: HttpRequest) => `${req.method} ${req.target} HTTP/1.1`;

/** The path of a request target, without its query. */
export const pathOf = (target: string) => target.split('?')[0] ?? '/';

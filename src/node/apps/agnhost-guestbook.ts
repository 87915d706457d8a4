/**
 * `agnhost guestbook` (test/images/agnhost/guestbook/guestbook.go): the
 * guestbook's frontend and its redis-less backends in one program.
 *
 * - HTTP on --http-port (80): `/register?host=` (a replica subscribes; it
 *   is answered with the whole store), `/get?key=` (`{"data":value}`, the
 *   whole store without a key), `/set?key=&value=` (stored, then pushed to
 *   every registered replica on --backend-port, `{"message":"Updated"}`),
 *   `/guestbook?cmd=get|set&key=&value=` (passed to the `agnhost-replica`
 *   Service for get, `agnhost-primary` for set, on --backend-port).
 * - With --replicaof: a goroutine registers this pod with the primary
 *   (retrying each second for 15 s, then log.Fatal) and takes its store.
 *
 * Requests between them go through the pod's network (go-http-get.ts):
 * cluster DNS names, Services and the pods' own listeners.
 */
import type { Program } from '../shell/types.js';
import { Pending } from '../shell/pending.js';
import type { AppContext } from './app-context.js';
import { goBindError, goLog, goResponse } from './go-http.js';
import { goHttpGet, goLookupError, type GoGetResult } from './go-http-get.js';
import { goMarshal, type GoJSONValue } from '../../apimachinery/go-json.js';
import { parseGoQuery } from './go-form.js';
import { httpServer, pathOf, type Output, type Served } from './http-server.js';

export interface GuestbookFlags { httpPort: number; backendPort: number; replicaOf: string }

export function guestbookFlags(flags: Map<string, string>): GuestbookFlags {
  return { httpPort: Number(flags.get('http-port') ?? 80), backendPort: Number(flags.get('backend-port') ?? 6379), replicaOf: flags.get('replicaof') ?? '' };
}

const CLIENT_TIMEOUT_MS = 5_000;
const REGISTER_TIMEOUT_MS = 15_000;
const RETRY_MS = 1_000;

/** url.Values.Get on the request's query: the first value, '' when absent. */
export function queryGet(target: string, key: string): string {
  const q = target.includes('?') ? target.slice(target.indexOf('?') + 1) : '';
  const values = new Map<string, string[]>();
  parseGoQuery(q, values);
  return values.get(key)?.[0] ?? '';
}

/** The store, as the handlers read and write it. */
export type GuestbookStore = Record<string, GoJSONValue>;

/** /get's body. */
export function guestbookGet(store: GuestbookStore, key: string): string {
  return goMarshal({ data: key === '' ? store : Object.hasOwn(store, key) ? store[key]! : '' });
}

/** The primary's answer to /register, as a replica takes it: the new store, or log.Fatalf's message. */
export function registeredStore(body: string): { store: GuestbookStore } | { fatal: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    return { fatal: `Error while unmarshaling primary's response: ${(e as Error).message}` };
  }
  const data = (parsed as { data?: unknown } | null)?.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { fatal: `Could not cast responseJSON: ${goPrintS(data)}` };
  return { store: data as GuestbookStore };
}

/** fmt's %s of an interface{} value decoded from JSON (what log.Fatalf prints for a non-map `data`). */
function goPrintS(v: unknown): string {
  if (v === undefined || v === null) return '%!s(<nil>)';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return `%!s(float64=${v})`;
  if (typeof v === 'boolean') return `%!s(bool=${v})`;
  return JSON.stringify(v);
}

export function guestbook(ctx: AppContext, flags: GuestbookFlags): Program {
  // A Go map: any key, none inherited.
  const store: { data: GuestbookStore } = { data: Object.create(null) as GuestbookStore };
  const replicas: string[] = [];
  const log = (text: string): Output => goLog(ctx.now(), text);
  const httpError = (status: number, text: string, line: Output[] = []): Served => ({
    response: goResponse(ctx.now(), status, `${text}\n`, [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']]),
    log: line,
  });
  const ok = (body: string, line: Output[]): Served => ({ response: goResponse(ctx.now(), 200, body), log: line });
  const get = (host: string, target: string) => goHttpGet(ctx.net, host, flags.backendPort, target, CLIENT_TIMEOUT_MS, ctx.after);

  /** /set: store, then push to the replicas one after another; the first failure answers 417. */
  const set = (key: string, value: string, line: Output[]): Served | Pending<Served> => {
    if (key === '') return httpError(400, 'cannot set with empty key.', line);
    store.data[key] = value;
    const answer = new Pending<Served>();
    const push = (i: number): void => {
      if (i >= replicas.length) { answer.settle(ok(goMarshal({ message: 'Updated' }), line)); return; }
      const replica = replicas[i]!;
      const r = get(replica, `set?key=${key}&value=${value}`);
      r.onSettle(() => {
        if (!r.value.ok) answer.settle(httpError(417, `encountered error while propagating to replica '${replica}': ${r.value.error}`, line));
        else push(i + 1);
      });
    };
    push(0);
    return answer;
  };

  const frontend = (target: string, line: Output[]): Served | Pending<Served> => {
    const cmd = queryGet(target, 'cmd').toLowerCase();
    const key = queryGet(target, 'key');
    const value = queryGet(target, 'value');
    if (cmd !== 'get' && cmd !== 'set') return httpError(400, `unsupported cmd: '${cmd}'`, line);
    if (cmd === 'set' && key === '') return httpError(400, 'cannot set with empty key.', line);
    const host = cmd === 'get' ? 'agnhost-replica' : 'agnhost-primary';
    // net.ResolveTCPAddr: the name must resolve.
    if (!ctx.net?.resolve(host)?.length) return httpError(400, `host and/or port param are invalid. ${goLookupError('tcp', host).replace(/^dial tcp: /, '')}`, line);
    const answer = new Pending<Served>();
    const r = get(host, `${cmd}?key=${key}&value=${value}`);
    r.onSettle(() => answer.settle(r.value.ok ? ok(r.value.body, line) : httpError(417, `encountered error: ${r.value.error}`, line)));
    return answer;
  };

  return httpServer(ctx, {
    ports: [flags.httpPort],
    startup: () => [],
    bound: () => [],
    bindFailed: () => ({ steps: [goBindError(ctx.now(), flags.httpPort)], code: 1 }),
    serve: (req) => {
      const t = req.target;
      switch (pathOf(t)) {
        case '/register': {
          const ip = queryGet(t, 'host');
          const body = goMarshal({ data: store.data });
          replicas.push(ip);
          return ok(body, [log(`GET /register?host=${ip}`), log(`Node '${ip}' registered.`)]);
        }
        case '/get': {
          const key = queryGet(t, 'key');
          return ok(guestbookGet(store.data, key), [log(`GET /get?key=${key}`)]);
        }
        case '/set': {
          const key = queryGet(t, 'key');
          const value = queryGet(t, 'value');
          return set(key, value, [log(`GET /set?key=${key}&value=${value}`)]);
        }
        case '/guestbook':
          return frontend(t, [log(`GET /guestbook?cmd=${queryGet(t, 'cmd').toLowerCase()}&key=${queryGet(t, 'key')}&value=${queryGet(t, 'value')}`)]);
        default:
          return httpError(404, '404 page not found');
      }
    },
    background: (emit) => {
      if (!flags.replicaOf) return;
      const start = ctx.now().getTime();
      const hostPort = `${flags.replicaOf}:${flags.backendPort}`;
      const retry = (line: string) => { emit({ log: [log(`${line}. Retrying in 1s.`)] }); ctx.after?.(RETRY_MS, attempt); };
      function attempt(): void {
        if (ctx.now().getTime() - start >= REGISTER_TIMEOUT_MS) { emit({ log: [log('Timed out while registering to primary.')], exitCode: 1 }); return; }
        // getIP: a UDP "connection" to the primary names the local address.
        if (!ctx.net?.resolve(flags.replicaOf)?.length) { retry(`unable to get IP ${hostPort}: ${goLookupError('udp', flags.replicaOf)}`); return; }
        const request = `register?host=${ctx.net.podIP}`;
        emit({ log: [log(`Registering to primary: ${hostPort}/${request}`)] });
        const r: Pending<GoGetResult> = get(flags.replicaOf, request);
        r.onSettle(() => {
          if (!r.value.ok) { retry(`encountered error while registering to primary: ${r.value.error}`); return; }
          const taken = registeredStore(r.value.body);
          if ('fatal' in taken) { emit({ log: [log(taken.fatal)], exitCode: 1 }); return; }
          store.data = taken.store;
          emit({ log: [log(`Registered to node: ${flags.replicaOf}`)] });
        });
      }
      attempt();
    },
  });
}


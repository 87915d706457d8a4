/**
 * The etcd image (registry.k8s.io/etcd, `/usr/local/bin/etcd --listen-client-urls ...`) as a
 * sample API server's sidecar needs it: one member with an in-memory key space, served on the
 * client URL's port through etcd's own JSON gateway to the v3 KV API (`POST /v3/kv/range`,
 * `/v3/kv/put`, `/v3/kv/deleterange`, `/v3/kv/txn`; keys and values base64, 64-bit integers as
 * strings, zero values omitted, as grpc-gateway writes them) and `GET /health`.
 *
 * What is modelled of etcd: revisions (one per write), create/mod revisions and versions per
 * key, ranges by prefix (`range_end`), transactions comparing a key's mod or create revision.
 * Not modelled: gRPC itself (the model carries HTTP/1.1 messages, so clients use the gateway),
 * watches, leases, compaction, the member's start-up log (it starts silently).
 */
import type { HttpRequest, HttpResponse } from '../../shell/net-types.js';
import { Pending } from '../../shell/pending.js';
import type { Program, Step } from '../../shell/types.js';
import type { AppContext } from '../app-context.js';
import { httpDate } from '../http-server.js';

interface Entry { value: Buffer; create: number; mod: number; version: number }

type Json = Record<string, unknown>;

const b64 = (b: Buffer) => b.toString('base64');
const unb64 = (s: unknown) => Buffer.from(typeof s === 'string' ? s : '', 'base64');

/** The member's key space; every write takes the next revision. */
export class EtcdKeySpace {
  private readonly keys = new Map<string, Entry>();
  revision = 1;

  /** The keys of a range request: `key` alone, or [key, range_end) (range_end "\0": every key from `key`). */
  private inRange(key: Buffer, rangeEnd: Buffer): string[] {
    const k = key.toString('latin1');
    if (!rangeEnd.length) return this.keys.has(k) ? [k] : [];
    const end = rangeEnd.toString('latin1');
    const all = end === '\0';
    return [...this.keys.keys()].filter((x) => x >= k && (all || x < end)).sort();
  }

  private header(): Json {
    return { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: String(this.revision), raft_term: '2' };
  }

  range(req: Json): Json {
    const keys = this.inRange(unb64(req.key), unb64(req.range_end));
    const countOnly = req.count_only === true;
    const limit = Number(req.limit ?? 0);
    const shown = limit > 0 ? keys.slice(0, limit) : keys;
    const kvs = countOnly ? [] : shown.map((k) => {
      const e = this.keys.get(k)!;
      return { key: b64(Buffer.from(k, 'latin1')), create_revision: String(e.create), mod_revision: String(e.mod), version: String(e.version), ...(req.keys_only === true ? {} : { value: b64(e.value) }) };
    });
    return { header: this.header(), ...(kvs.length ? { kvs } : {}), ...(limit > 0 && keys.length > limit ? { more: true } : {}), ...(keys.length ? { count: String(keys.length) } : {}) };
  }

  put(req: Json): Json {
    const k = unb64(req.key).toString('latin1');
    const prev = this.keys.get(k);
    this.revision++;
    this.keys.set(k, { value: unb64(req.value), create: prev?.create ?? this.revision, mod: this.revision, version: (prev?.version ?? 0) + 1 });
    return { header: this.header() };
  }

  deleteRange(req: Json): Json {
    const keys = this.inRange(unb64(req.key), unb64(req.range_end));
    if (keys.length) this.revision++;
    for (const k of keys) this.keys.delete(k);
    return { header: this.header(), ...(keys.length ? { deleted: String(keys.length) } : {}) };
  }

  /** A compare of a key's MOD or CREATE revision (or VERSION) with EQUAL, NOT_EQUAL, GREATER or LESS. */
  private holds(c: Json): boolean {
    const e = this.keys.get(unb64(c.key).toString('latin1'));
    const target = (c.target as string | undefined) ?? 'VERSION';
    const have = target === 'MOD' ? e?.mod ?? 0 : target === 'CREATE' ? e?.create ?? 0 : e?.version ?? 0;
    const want = Number((target === 'MOD' ? c.mod_revision : target === 'CREATE' ? c.create_revision : c.version) ?? 0);
    switch ((c.result as string | undefined) ?? 'EQUAL') {
      case 'EQUAL': return have === want;
      case 'NOT_EQUAL': return have !== want;
      case 'GREATER': return have > want;
      default: return have < want;
    }
  }

  txn(req: Json): Json {
    const succeeded = ((req.compare as Json[] | undefined) ?? []).every((c) => this.holds(c));
    const ops = ((succeeded ? req.success : req.failure) as Json[] | undefined) ?? [];
    // The model's transactions carry one write each (what an API server's create, update and delete send).
    const responses = ops.map((op) => {
      if (op.request_put) return { response_put: this.put(op.request_put as Json) };
      if (op.request_delete_range) return { response_delete_range: this.deleteRange(op.request_delete_range as Json) };
      return { response_range: this.range((op.request_range as Json | undefined) ?? {}) };
    });
    return { header: this.header(), ...(succeeded ? { succeeded: true } : {}), ...(responses.length ? { responses } : {}) };
  }
}

/** grpc-gateway's answer: JSON, its content type, no newline. */
function gatewayResponse(now: Date, status: number, body: Json): HttpResponse {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    status, reason: status === 200 ? 'OK' : status === 404 ? 'Not Found' : 'Bad Request',
    headers: [['Content-Type', 'application/json'], ['Grpc-Metadata-Content-Type', 'application/grpc'], ['Date', httpDate(now)], ['Content-Length', String(bytes.length)]],
    body: bytes,
  };
}

/** One request to the member's client port. */
export function serveEtcd(space: EtcdKeySpace, req: HttpRequest, now: Date): HttpResponse {
  const path = req.target.split('?')[0];
  if (req.method === 'GET' && path === '/health') return gatewayResponse(now, 200, { health: 'true', reason: '' });
  if (req.method === 'GET' && path === '/version') return gatewayResponse(now, 200, { etcdserver: '3.5.1', etcdcluster: '3.5.0' });
  const ops: Record<string, (r: Json) => Json> = {
    '/v3/kv/range': (r) => space.range(r), '/v3/kv/put': (r) => space.put(r),
    '/v3/kv/deleterange': (r) => space.deleteRange(r), '/v3/kv/txn': (r) => space.txn(r),
  };
  const op = req.method === 'POST' ? ops[path ?? ''] : undefined;
  if (!op) return gatewayResponse(now, 404, { code: 5, message: 'Not Found' });
  let body: Json;
  try {
    body = JSON.parse(Buffer.from(req.body).toString('utf8') || '{}') as Json;
  } catch (e) {
    return gatewayResponse(now, 400, { code: 3, message: (e as Error).message });
  }
  return gatewayResponse(now, 200, op(body));
}

/** The client URLs' port (`--listen-client-urls http://127.0.0.1:2379`; etcd's default 2379). */
export function etcdClientPort(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const m = /^--?listen-client-urls(?:=(.*))?$/.exec(args[i]!);
    if (!m) continue;
    const url = m[1] ?? args[i + 1] ?? '';
    const port = /:(\d+)\/?$/.exec(url.split(',')[0] ?? '')?.[1];
    if (port) return Number(port);
  }
  return 2379;
}

export function etcdMember(ctx: AppContext, args: readonly string[]): Program {
  const space = new EtcdKeySpace();
  const port = etcdClientPort(args);
  const listening = ctx.net?.listen(port, (req) => Pending.of(serveEtcd(space, req, ctx.now())));
  const gen = (function* (): Generator<Step, void> {
    if (ctx.net && !listening) {
      yield { kind: 'stderr', text: `{"level":"fatal","msg":"discovery failed","error":"listen tcp 127.0.0.1:${port}: bind: address already in use"}\n` };
      yield { kind: 'exit', code: 1 };
      return;
    }
    yield { kind: 'wait', on: new Pending<unknown>() };
  })();
  return { next: () => gen.next(), terminate: () => { listening?.close(); return [{ kind: 'exit', code: 0 } as Step][Symbol.iterator](); } };
}

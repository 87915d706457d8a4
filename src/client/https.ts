/**
 * The client of another process (`winkube agent`, the CLI's commands):
 * the same calls as REST requests over HTTPS with the kubeconfig's
 * credentials, through the server's whole request path. Watches are
 * streamed JSON events, one per line.
 */
import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { StatusError, isConflict, unlessNotFound } from '../apimachinery/errors.js';
import { apiVersionOf, type KObject } from '../apimachinery/object.js';
import type {
  CallOptions, Client, DeleteOptions, DeleteResult, ListOptions, ObjectList, PatchType, ResourceClient, ResourceRef,
  UpdateOptions, UserInfo, Watch, WatchEventType, WatchOptions, WatchSink, WriteOptions,
} from './types.js';

/** Where the server is and how to prove who we are (a kubeconfig's current context). */
export interface ServerTarget { server: URL; ca?: Buffer; cert?: Buffer; key?: Buffer; token?: string }

/** client-go's retry.DefaultRetry steps, for `update`'s conflicts. */
const MAX_CONFLICT_RETRIES = 5;

type Query = Record<string, string | number | boolean | undefined>;

function queryString(q: Query): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

function listQuery(o: ListOptions | undefined): Query {
  return {
    labelSelector: o?.labelSelector, fieldSelector: o?.fieldSelector, limit: o?.limit || undefined, continue: o?.continue,
    resourceVersion: o?.resourceVersion, resourceVersionMatch: o?.resourceVersionMatch,
  };
}

function writeQuery(o: WriteOptions | undefined, manager: string): Query {
  return { fieldManager: o?.fieldManager ?? manager, dryRun: o?.dryRun ? 'All' : undefined };
}

/** The error for a failed response: the server's Status, or its text. */
function failure(method: string, path: string, code: number, text: string): Error {
  try {
    const parsed = JSON.parse(text) as { kind?: string };
    if (parsed && parsed.kind === 'Status') return new StatusError(parsed as StatusError['status']);
  } catch { /* not JSON */ }
  return new Error(`${method} ${path}: HTTP ${code}: ${text.slice(0, 200)}`);
}

class HttpsResource<T> implements ResourceClient<T> {
  constructor(private readonly client: HttpsClient, readonly ref: ResourceRef<T>) {}

  private path(namespace: string, name?: string, sub?: string): string {
    const r = this.ref;
    const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${base}${ns}/${r.resource}${name ? `/${encodeURIComponent(name)}` : ''}${sub ? `/${sub}` : ''}`;
  }

  get(namespace: string, name: string, opts?: CallOptions): Promise<T> {
    return this.client.call('GET', this.path(namespace, name), undefined, opts?.signal) as Promise<T>;
  }

  find(namespace: string, name: string, opts?: CallOptions): Promise<T | undefined> {
    return unlessNotFound(this.get(namespace, name, opts));
  }

  async list(namespace: string, opts?: ListOptions): Promise<ObjectList<T>> {
    const l = await this.client.call('GET', this.path(namespace) + queryString(listQuery(opts)), undefined, opts?.signal) as
      { items?: T[]; metadata?: { resourceVersion?: string; continue?: string } };
    const out: ObjectList<T> = { items: l.items ?? [], resourceVersion: l.metadata?.resourceVersion ?? '' };
    if (l.metadata?.continue) out.continue = l.metadata.continue;
    return out;
  }

  watch(namespace: string, opts: WatchOptions, sink: WatchSink<T>): Promise<Watch> {
    const q = { ...listQuery(opts), watch: 'true', allowWatchBookmarks: undefined };
    return this.client.stream(this.path(namespace) + queryString(q), opts.signal, (ev) => {
      const e = ev as { type: string; object: T };
      if (e.type === 'ERROR') throw new StatusError(e.object as unknown as StatusError['status']);
      if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') sink(e.type as WatchEventType, e.object);
    });
  }

  create(namespace: string, obj: T, opts?: WriteOptions): Promise<T> {
    const body = { apiVersion: apiVersionOf(this.ref), kind: this.ref.kind, ...(obj as object) };
    return this.client.call('POST', this.path(namespace) + queryString(writeQuery(opts, this.client.fieldManager)), body,
      opts?.signal) as Promise<T>;
  }

  async update(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: UpdateOptions): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const next = await mutate(await this.get(namespace, name, opts));
      try {
        return await this.client.call('PUT', this.path(namespace, name, opts?.subresource) +
          queryString(writeQuery(opts, this.client.fieldManager)), next, opts?.signal) as T;
      } catch (e) {
        if (!isConflict(e) || attempt >= MAX_CONFLICT_RETRIES) throw e;
      }
    }
  }

  updateStatus(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: WriteOptions): Promise<T> {
    return this.update(namespace, name, mutate, { ...opts, subresource: 'status' });
  }

  patch(namespace: string, name: string, type: PatchType, patch: unknown, opts?: UpdateOptions): Promise<T> {
    return this.client.call('PATCH', this.path(namespace, name, opts?.subresource) +
      queryString(writeQuery(opts, this.client.fieldManager)), patch, opts?.signal, type) as Promise<T>;
  }

  async delete(namespace: string, name: string, opts?: DeleteOptions): Promise<DeleteResult<T>> {
    const body = {
      kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: opts?.gracePeriodSeconds, propagationPolicy: opts?.propagationPolicy,
      preconditions: opts?.preconditions, dryRun: opts?.dryRun ? ['All'] : undefined,
    };
    const out = await this.client.call('DELETE', this.path(namespace, name), body, opts?.signal) as KObject & { kind?: string };
    // A Status answers a delete that removed the object; the object itself one that marked it.
    if (out.kind === 'Status') return { object: out as unknown as T, deleted: true };
    return { object: out as unknown as T, deleted: !out.metadata?.deletionTimestamp };
  }

  createSubresource(namespace: string, name: string, subresource: string, body: KObject, opts?: WriteOptions): Promise<KObject> {
    return this.client.call('POST', this.path(namespace, name, subresource) + queryString(writeQuery(opts, this.client.fieldManager)),
      body, opts?.signal) as Promise<KObject>;
  }
}

interface DiscoveryResource { name: string; kind: string; namespaced: boolean; verbs: string[] }

/** A client certificate and its key, in PEM. */
export interface ClientCredentials { cert: Buffer; key: Buffer }

/**
 * The credentials of identities that have their own (a node's client
 * certificate): a client `as` one of them connects with them, each
 * identity over its own connections.
 */
export class IdentityCredentials {
  private readonly agents = new Map<string, Agent>();
  constructor(private readonly target: ServerTarget, private readonly credentials = new Map<string, ClientCredentials>()) {}

  set(user: string, c: ClientCredentials): void { this.credentials.set(user, c); }

  /** The target and connections of the user's own credentials, if it has any. */
  connectionFor(user: string): { target: ServerTarget; agent: Agent } | undefined {
    const c = this.credentials.get(user);
    if (!c) return undefined;
    const target: ServerTarget = { server: this.target.server, ca: this.target.ca, cert: c.cert, key: c.key };
    let agent = this.agents.get(user);
    if (!agent) this.agents.set(user, agent = newAgent(target));
    return { target, agent };
  }

  close(): void { for (const a of this.agents.values()) a.destroy(); }
}

const newAgent = (t: ServerTarget) => new Agent({ ca: t.ca, cert: t.cert, key: t.key, keepAlive: true, maxSockets: 32 });

export class HttpsClient implements Client {
  private readonly agent: Agent;
  private readonly handles = new Map<string, ResourceClient<unknown>>();

  constructor(private readonly target: ServerTarget, readonly user: UserInfo, readonly fieldManager: string, agent?: Agent,
    private readonly identities?: IdentityCredentials) {
    this.agent = agent ?? newAgent(target);
  }

  resource<T>(ref: ResourceRef<T>): ResourceClient<T> {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let h = this.handles.get(key);
    if (!h) this.handles.set(key, h = new HttpsResource(this, ref));
    return h as ResourceClient<T>;
  }

  async resources(): Promise<ResourceRef[]> {
    const out: ResourceRef[] = [];
    const seen = new Set<string>();
    const add = async (group: string, version: string) => {
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      const l = await this.call('GET', path) as { resources?: DiscoveryResource[] };
      for (const r of l.resources ?? []) {
        if (r.name.includes('/') || seen.has(`${group}/${r.name}`)) continue;
        seen.add(`${group}/${r.name}`);
        out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs });
      }
    };
    await add('', 'v1');
    const groups = await this.call('GET', '/apis') as { groups?: { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[] };
    for (const g of groups.groups ?? []) {
      // The preferred version first; the others only add what it does not serve.
      const versions = [g.preferredVersion.version, ...g.versions.map((v) => v.version).filter((v) => v !== g.preferredVersion.version)];
      for (const v of versions) await add(g.name, v);
    }
    return out;
  }

  as(user: UserInfo, fieldManager: string): Client {
    // The identity is the connection's credentials: the user's own when it has some, else this client's.
    const own = this.identities?.connectionFor(user.name);
    if (own) return new HttpsClient(own.target, user, fieldManager, own.agent, this.identities);
    return new HttpsClient(this.target, user, fieldManager, this.agent, this.identities);
  }

  close(): void { this.agent.destroy(); this.identities?.close(); }

  private options(method: string, path: string, headers: Record<string, string | number>): RequestOptions {
    return {
      host: this.target.server.hostname, port: this.target.server.port || 443, method, path, agent: this.agent,
      headers: {
        Accept: 'application/json', 'User-Agent': `${this.fieldManager}/winkube`,
        ...(this.target.token ? { Authorization: `Bearer ${this.target.token}` } : {}),
        ...headers,
      },
    };
  }

  /** One request and its decoded answer; a failure rejects with the server's Status. */
  call(method: string, path: string, body?: unknown, signal?: AbortSignal, contentType = 'application/json'): Promise<unknown> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = payload === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
    return new Promise((resolve, reject) => {
      const req = request({ ...this.options(method, path, headers), signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 400) return reject(failure(method, path, res.statusCode ?? 0, text));
          try { resolve(JSON.parse(text)); } catch { reject(new Error(`${method} ${path}: not JSON: ${text.slice(0, 200)}`)); }
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A watch: each line of the answer is one event; `done` settles when it ends, rejecting with an ERROR event's Status. */
  stream(path: string, signal: AbortSignal | undefined, onEvent: (ev: unknown) => void): Promise<Watch> {
    return new Promise((resolve, reject) => {
      const controller = new AbortController();
      signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
      const req = request({ ...this.options('GET', path, {}), signal: controller.signal }, (res: IncomingMessage) => {
        if ((res.statusCode ?? 0) >= 400) {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => reject(failure('GET', path, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
          return;
        }
        let end!: () => void;
        let fail!: (e: unknown) => void;
        const done = new Promise<void>((ok, no) => { end = ok; fail = no; });
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          pending += chunk;
          for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (!line.trim()) continue;
            try {
              onEvent(JSON.parse(line));
            } catch (e) {
              // An ERROR event (410 Expired, say) or a line that is no JSON ends the watch with it.
              fail(e);
              controller.abort();
              return;
            }
          }
        });
        res.on('close', end);
        res.on('error', end);
        resolve({ stop: () => controller.abort(), done });
      });
      req.on('error', (e) => reject(e));
      req.end();
    });
  }
}

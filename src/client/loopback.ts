/**
 * The in-process client: each call goes to the registry as the request
 * handler would send it (the same admission, defaulting and validation,
 * the client's identity as the request's user), without TLS or JSON. What
 * this saves is the wire; what it keeps is every rule a request meets.
 */
import { errors, unlessNotFound } from '../apimachinery/errors.js';
import { forbiddenError } from '../authorization/forbidden.js';
import { resourceAttributes, type Authorizer } from '../authorization/types.js';
import type { KObject } from '../apimachinery/object.js';
import { applyPatch, type JsonObject } from '../patch/index.js';
import { withTypeMeta } from '../registry/codec.js';
import type { ListRequest, Store } from '../registry/store.js';
import type { ResourceDef } from '../registry/types.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import { parseFieldSelector, type FieldTerm } from '../selectors/fields.js';
import { parseLabelSelector } from '../selectors/labels.js';
import type {
  CallOptions, Client, DeleteOptions, DeleteResult, ListOptions, ObjectList, PatchType, ResourceClient, ResourceRef,
  UpdateOptions, UserInfo, Watch, WatchOptions, WatchSink, WriteOptions,
} from './types.js';

function aborted(signal: AbortSignal | undefined): void {
  signal?.throwIfAborted();
}

/** RequestInfo's name of a list or watch: what a `metadata.name=` field selector pins it to. */
function listSelection(opts: ListOptions | undefined): { name: string; fieldSelector?: readonly FieldTerm[] } {
  if (!opts?.fieldSelector) return { name: '' };
  try {
    const terms = parseFieldSelector(opts.fieldSelector).terms;
    return { name: terms.find((t) => t.field === 'metadata.name' && !t.negate)?.value ?? '', fieldSelector: terms };
  } catch {
    return { name: '' };
  }
}

function listRequest(opts: ListOptions | undefined): ListRequest {
  const req: ListRequest = {};
  if (!opts) return req;
  if (opts.labelSelector) req.labelSelector = parseLabelSelector(opts.labelSelector);
  if (opts.fieldSelector) req.fieldSelector = parseFieldSelector(opts.fieldSelector);
  if (opts.limit) req.limit = opts.limit;
  if (opts.continue) req.continueToken = opts.continue;
  if (opts.resourceVersion !== undefined) req.resourceVersion = opts.resourceVersion;
  if (opts.resourceVersionMatch !== undefined) req.resourceVersionMatch = opts.resourceVersionMatch;
  return req;
}

class LoopbackResource<T> implements ResourceClient<T> {
  constructor(private readonly client: LoopbackClient, private readonly def: ResourceDef, readonly ref: ResourceRef<T>) {}

  private get store(): Store { return this.client.store; }

  /**
   * The authorization every request meets, with the attributes the request
   * would have: a namespace's own URL is in that namespace, and a list or
   * watch pinned by `metadata.name=` names that object.
   */
  private authorize(verb: string, namespace: string, name: string, subresource = '', fieldSelector?: readonly FieldTerm[]): void {
    const authorizer = this.client.authorizer;
    if (!authorizer) return;
    const d = this.def;
    const ns = d.group === '' && d.resource === 'namespaces' ? name : d.namespaced ? namespace : '';
    const attrs = resourceAttributes(this.client.user, {
      verb, apiGroup: d.group, apiVersion: d.version, namespace: ns, resource: d.resource, subresource, name, fieldSelector,
    });
    const decision = authorizer.authorize(attrs);
    if (decision.decision === 'Allow') return;
    throw decision.error ? errors.internal(decision.error) : forbiddenError(attrs, decision.reason);
  }

  private context(namespace: string, opts: WriteOptions | DeleteOptions | undefined): WriteContext {
    const ctx: WriteContext = {
      namespace, now: new Date(), dryRun: !!opts?.dryRun, fieldManager: opts?.fieldManager ?? this.client.fieldManager,
      warn: () => {}, user: this.client.user,
    };
    return (opts as WriteOptions | undefined)?.sharedResult ? this.store.readOnlyResult(ctx) : ctx;
  }

  async get(namespace: string, name: string, opts?: CallOptions): Promise<T> {
    aborted(opts?.signal);
    this.authorize('get', namespace, name);
    return await this.store.read(this.def, namespace, name) as T;
  }

  find(namespace: string, name: string, opts?: CallOptions): Promise<T | undefined> {
    return unlessNotFound(this.get(namespace, name, opts));
  }

  async list(namespace: string, opts?: ListOptions): Promise<ObjectList<T>> {
    aborted(opts?.signal);
    const sel = listSelection(opts);
    this.authorize('list', namespace, sel.name, '', sel.fieldSelector);
    const l = await this.store.list(this.def, namespace, listRequest(opts));
    const out: ObjectList<T> = { items: l.items as T[], resourceVersion: String(l.revision) };
    if (l.continueToken) out.continue = l.continueToken;
    return out;
  }

  async watch(namespace: string, opts: WatchOptions, sink: WatchSink<T>): Promise<Watch> {
    aborted(opts.signal);
    const sel = listSelection(opts);
    this.authorize('watch', namespace, sel.name, '', sel.fieldSelector);
    let end!: () => void;
    const done = new Promise<void>((resolve) => { end = resolve; });
    const handle = await this.store.watch(this.def, namespace, Number(opts.resourceVersion) || 0, listRequest(opts),
      (type, obj) => sink(type, obj as T));
    const stop = () => { handle.cancel(); end(); };
    opts.signal?.addEventListener('abort', stop, { once: true });
    return { stop, done };
  }

  async create(namespace: string, obj: T, opts?: WriteOptions): Promise<T> {
    aborted(opts?.signal);
    this.authorize('create', namespace, '');
    const ctx = this.context(namespace, opts);
    // Access reviews are answers, not stored objects; in process only the authorizer's (a TokenReview needs the HTTP layer's authenticator).
    if (this.def.review) {
      return await this.def.review(withTypeMeta(this.def, obj as KObject), ctx, {
        authenticateToken: async () => ({ ok: false, error: 'token authentication is served over HTTPS only' }),
        ...(this.store.authorization ? { authorizer: this.store.authorization.authorizer } : {}),
      }) as T;
    }
    return await this.store.create(this.def, namespace, obj as KObject, ctx) as T;
  }

  update(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: UpdateOptions): Promise<T> {
    return this.write('update', namespace, name, mutate, opts);
  }

  /** An update or a patch (authorized as its verb), read-modify-write. */
  private async write(verb: 'update' | 'patch', namespace: string, name: string, mutate: (current: T) => T | Promise<T>,
    opts?: UpdateOptions): Promise<T> {
    aborted(opts?.signal);
    this.authorize(verb, namespace, name, opts?.subresource);
    return await this.store.update(this.def, namespace, name, async (cur) => await mutate(cur as T) as KObject,
      this.context(namespace, opts), opts?.subresource) as T;
  }

  updateStatus(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: WriteOptions): Promise<T> {
    return this.update(namespace, name, mutate, { ...opts, subresource: 'status' });
  }

  patch(namespace: string, name: string, type: PatchType, patch: unknown, opts?: UpdateOptions): Promise<T> {
    const body = JSON.stringify(patch);
    const gvk = { group: this.def.group, version: this.def.version, kind: this.def.kind };
    return this.write('patch', namespace, name, (cur) => applyPatch(type, cur as JsonObject, body, gvk, true) as T, opts);
  }

  async delete(namespace: string, name: string, opts?: DeleteOptions): Promise<DeleteResult<T>> {
    aborted(opts?.signal);
    this.authorize('delete', namespace, name);
    const r = await this.store.delete(this.def, namespace, name, {
      gracePeriodSeconds: opts?.gracePeriodSeconds, propagationPolicy: opts?.propagationPolicy,
      preconditions: opts?.preconditions, dryRun: opts?.dryRun,
    }, this.context(namespace, opts));
    return { object: r.obj as T, deleted: r.deleted };
  }

  async createSubresource(namespace: string, name: string, subresource: string, body: KObject, opts?: WriteOptions): Promise<KObject> {
    aborted(opts?.signal);
    this.authorize('create', namespace, name, subresource);
    const write = this.def.subresourceWrites?.[subresource];
    if (!write) throw new Error(`${this.ref.resource}/${subresource} takes no POST`);
    return write(this.store, this.def, namespace, name, body, this.context(namespace, opts));
  }
}

export class LoopbackClient implements Client {
  private readonly handles = new Map<string, ResourceClient<unknown>>();

  /** `authorizer`: the server's, so that components are authorized as their requests over HTTPS would be. */
  constructor(readonly store: Store, readonly user: UserInfo, readonly fieldManager: string, readonly authorizer?: Authorizer) {}

  resource<T>(ref: ResourceRef<T>): ResourceClient<T> {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let h = this.handles.get(key);
    if (!h) {
      const def = this.store.find(ref.group, ref.version, ref.resource);
      if (!def) throw new Error(`the server does not serve ${ref.resource} in ${ref.group || 'core'}/${ref.version}`);
      this.handles.set(key, h = new LoopbackResource(this, def, ref));
    }
    return h as ResourceClient<T>;
  }

  async resources(): Promise<ResourceRef[]> {
    // A group's versions are registered preferred first, so the first definition of each group and resource wins.
    const seen = new Set<string>();
    return this.store.defs.filter((d) => !seen.has(`${d.group}/${d.resource}`) && !!seen.add(`${d.group}/${d.resource}`));
  }

  as(user: UserInfo, fieldManager: string): Client {
    return new LoopbackClient(this.store, user, fieldManager, this.authorizer);
  }

  close(): void {}
}

/**
 * The in-process client: each call goes to the registry as the request
 * handler would send it (the same admission, defaulting and validation,
 * the client's identity as the request's user), without TLS or JSON. What
 * this saves is the wire; what it keeps is every rule a request meets.
 */
import { errors, unlessNotFound } from '../apimachinery/errors.js';
import { forbiddenError } from '../authorization/forbidden.js';
import { resourceAttributes, type Attributes, type Authorizer } from '../authorization/types.js';
import { EMULATED_VERSION } from '../apimachinery/version.js';
import { StatusError } from '../apimachinery/errors.js';
import type { AuditEventRecorder } from '../registry/request-audit.js';
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

/** The in-process components reach the server on the loopback interface. */
const LOOPBACK_SOURCE_IPS = ['127.0.0.1'];
/** The commit /version reports, in client-go's User-Agent. */
const EMULATED_GIT_COMMIT = '70d3cc986aa8221cd1dfb1121852688902d3bf53';

function annotateDecision(audit: AuditEventRecorder | undefined, decision: 'allow' | 'forbid', reason: string): void {
  audit?.annotate('authorization.k8s.io/decision', decision);
  audit?.annotate('authorization.k8s.io/reason', reason);
}

/** A failed call ends its audit event with the Status it answered. */
function failed(audit: AuditEventRecorder | undefined, e: unknown): unknown {
  if (!audit) return e;
  const status = e instanceof StatusError ? e.status : errors.internal((e as Error).message ?? String(e)).status;
  audit.responseStarted(status.code);
  audit.responseObject(status);
  audit.complete();
  return e;
}

/** The query a list or watch request would carry. */
function listQuery(opts: ListOptions | undefined, watch: boolean): string {
  const q = new URLSearchParams();
  if (opts?.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
  if (opts?.labelSelector) q.set('labelSelector', opts.labelSelector);
  if (opts?.limit) q.set('limit', String(opts.limit));
  if (opts?.resourceVersion !== undefined) q.set('resourceVersion', opts.resourceVersion);
  if (watch) q.set('watch', 'true');
  return q.toString();
}

class LoopbackResource<T> implements ResourceClient<T> {
  constructor(private readonly client: LoopbackClient, private readonly def: ResourceDef, readonly ref: ResourceRef<T>) {}

  private get store(): Store { return this.client.store; }

  /**
   * The authorization every request meets, with the attributes the request
   * would have: a namespace's own URL is in that namespace, and a list or
   * watch pinned by `metadata.name=` names that object.
   */
  private authorize(verb: string, namespace: string, name: string, subresource = '', fieldSelector?: readonly FieldTerm[],
    query = ''): AuditEventRecorder | undefined {
    const authorizer = this.client.authorizer;
    const d = this.def;
    const ns = d.group === '' && d.resource === 'namespaces' ? name : d.namespaced ? namespace : '';
    const attrs = resourceAttributes(this.client.user, {
      verb, apiGroup: d.group, apiVersion: d.version, namespace: ns, resource: d.resource, subresource, name, fieldSelector,
    });
    const audit = this.beginAudit(attrs, namespace, query);
    if (!authorizer) return audit;
    const decision = authorizer.authorize(attrs);
    if (decision.decision === 'Allow') {
      annotateDecision(audit, 'allow', decision.reason);
      return audit;
    }
    const error = decision.error ? errors.internal(decision.error) : forbiddenError(attrs, decision.reason);
    if (decision.error) audit?.annotate('authorization.k8s.io/reason', 'internal error');
    else annotateDecision(audit, 'forbid', decision.reason);
    throw failed(audit, error);
  }

  /** The audit event of this call, as the request over HTTPS would have it (its URI, the component's user agent). */
  private beginAudit(attrs: Attributes, namespace: string, query: string): AuditEventRecorder | undefined {
    const audit = this.store.audit;
    if (!audit) return undefined;
    const d = this.def;
    const base = d.group ? `/apis/${d.group}/${d.version}` : `/api/${d.version}`;
    const nsPart = d.namespaced && namespace ? `/namespaces/${namespace}` : '';
    const uri = `${base}${nsPart}/${d.resource}${attrs.name ? `/${attrs.name}` : ''}` +
      `${attrs.subresource ? `/${attrs.subresource}` : ''}${query ? `?${query}` : ''}`;
    return audit.begin(attrs, { requestURI: uri, userAgent: this.client.userAgent, sourceIPs: LOOPBACK_SOURCE_IPS, received: new Date() },
      attrs.verb === 'watch');
  }

  /** The call's answer ends its audit event. */
  private async audited<R>(audit: AuditEventRecorder | undefined, code: number, call: R | Promise<R>): Promise<R> {
    if (!audit) return await call;
    let out: R;
    try {
      out = await call;
    } catch (e) {
      throw failed(audit, e);
    }
    audit.responseStarted(code);
    if (audit.logsResponseObject) audit.responseObject(out);
    audit.complete();
    return out;
  }

  private context(namespace: string, opts: WriteOptions | DeleteOptions | undefined, audit: AuditEventRecorder | undefined): WriteContext {
    const ctx: WriteContext = {
      namespace, now: new Date(), dryRun: !!opts?.dryRun, fieldManager: opts?.fieldManager ?? this.client.fieldManager,
      warn: () => {}, user: this.client.user, ...(audit ? { annotate: (key: string, value: string) => audit.annotateOnce(key, value) } : {}),
    };
    return (opts as WriteOptions | undefined)?.sharedResult ? this.store.readOnlyResult(ctx) : ctx;
  }

  async get(namespace: string, name: string, opts?: CallOptions): Promise<T> {
    aborted(opts?.signal);
    const audit = this.authorize('get', namespace, name);
    return await this.audited(audit, 200, this.store.read(this.def, namespace, name)) as T;
  }

  find(namespace: string, name: string, opts?: CallOptions): Promise<T | undefined> {
    return unlessNotFound(this.get(namespace, name, opts));
  }

  async list(namespace: string, opts?: ListOptions): Promise<ObjectList<T>> {
    aborted(opts?.signal);
    const sel = listSelection(opts);
    const audit = this.authorize('list', namespace, sel.name, '', sel.fieldSelector, listQuery(opts, false));
    const l = await this.audited(audit, 200, this.store.list(this.def, namespace, listRequest(opts)));
    const out: ObjectList<T> = { items: l.items as T[], resourceVersion: String(l.revision) };
    if (l.continueToken) out.continue = l.continueToken;
    return out;
  }

  async watch(namespace: string, opts: WatchOptions, sink: WatchSink<T>): Promise<Watch> {
    aborted(opts.signal);
    const sel = listSelection(opts);
    const audit = this.authorize('watch', namespace, sel.name, '', sel.fieldSelector, listQuery(opts, true));
    let end!: () => void;
    let fail!: (e: Error) => void;
    const done = new Promise<void>((resolve, reject) => { end = resolve; fail = reject; });
    // Nobody may be awaiting it yet when storage ends the watch.
    done.catch(() => {});
    let handle: Awaited<ReturnType<Store['watch']>>;
    try {
      // Storage ending the watch (etcd canceled it: 410 when its history was compacted) ends this
      // one with that error, as the ERROR event does over HTTPS: the informer watches again or relists.
      handle = await this.store.watch(this.def, namespace, Number(opts.resourceVersion) || 0, listRequest(opts),
        (type, obj) => sink(type, obj as T), (e) => fail(e));
    } catch (e) {
      throw failed(audit, e);
    }
    audit?.responseStarted(200);
    // A watch's event is complete when it ends.
    if (audit) void done.finally(() => audit.complete()).catch(() => {});
    const stop = () => { handle.cancel(); end(); };
    opts.signal?.addEventListener('abort', stop, { once: true });
    return { stop, done };
  }

  async create(namespace: string, obj: T, opts?: WriteOptions): Promise<T> {
    aborted(opts?.signal);
    const audit = this.authorize('create', namespace, '');
    audit?.requestObject(obj);
    const ctx = this.context(namespace, opts, audit);
    // Access reviews are answers, not stored objects; in process only the authorizer's (a TokenReview needs the HTTP layer's authenticator).
    if (this.def.review) {
      return await this.audited(audit, 201, this.def.review(withTypeMeta(this.def, obj as KObject), ctx, {
        authenticateToken: async () => ({ ok: false, error: 'token authentication is served over HTTPS only' }),
        ...(this.store.authorization ? { authorizer: this.store.authorization.authorizer } : {}),
      })) as T;
    }
    return await this.audited(audit, 201, this.store.create(this.def, namespace, obj as KObject, ctx)) as T;
  }

  update(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: UpdateOptions): Promise<T> {
    return this.write('update', namespace, name, mutate, opts);
  }

  /** An update or a patch (authorized as its verb), read-modify-write. */
  private async write(verb: 'update' | 'patch', namespace: string, name: string, mutate: (current: T) => T | Promise<T>,
    opts?: UpdateOptions): Promise<T> {
    aborted(opts?.signal);
    const audit = this.authorize(verb, namespace, name, opts?.subresource);
    return await this.audited(audit, 200, this.store.update(this.def, namespace, name, async (cur) => {
      const next = await mutate(cur as T) as KObject;
      // What a PUT would have sent (for a patch, the patched object: the patch itself is not kept).
      audit?.requestObject(next);
      return next;
    }, this.context(namespace, opts, audit), opts?.subresource)) as T;
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
    const audit = this.authorize('delete', namespace, name);
    const r = await this.audited(audit, 200, this.store.delete(this.def, namespace, name, {
      gracePeriodSeconds: opts?.gracePeriodSeconds, propagationPolicy: opts?.propagationPolicy,
      preconditions: opts?.preconditions, dryRun: opts?.dryRun,
    }, this.context(namespace, opts, audit)));
    return { object: r.obj as T, deleted: r.deleted };
  }

  async createSubresource(namespace: string, name: string, subresource: string, body: KObject, opts?: WriteOptions): Promise<KObject> {
    aborted(opts?.signal);
    const audit = this.authorize('create', namespace, name, subresource);
    audit?.requestObject(body);
    const write = this.def.subresourceWrites?.[subresource];
    if (!write) throw new Error(`${this.ref.resource}/${subresource} takes no POST`);
    return this.audited(audit, 201, write(this.store, this.def, namespace, name, body, this.context(namespace, opts, audit)));
  }
}

export class LoopbackClient implements Client {
  private readonly handles = new Map<string, ResourceClient<unknown>>();
  /** client-go's default User-Agent for the component (its field manager standing for its binary name), as audit events show it. */
  readonly userAgent: string;

  /** `authorizer`: the server's, so that components are authorized as their requests over HTTPS would be. */
  constructor(readonly store: Store, readonly user: UserInfo, readonly fieldManager: string, readonly authorizer?: Authorizer) {
    this.userAgent = `${fieldManager}/${EMULATED_VERSION.gitVersion} (linux/amd64) kubernetes/${EMULATED_GIT_COMMIT.slice(0, 7)}`;
  }

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

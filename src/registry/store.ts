import { randomUUID } from 'node:crypto';
import type { PodEndpointDialer } from '../network/pod-endpoint-dial.js';
import type { AuthorizationPolicy } from '../authorization/authorizers.js';
import { errors, StatusError, type GroupResource, isAlreadyExists } from '../apimachinery/errors.js';
import {
  CompactedError, KeyExistsError, NotFoundError, RevisionMismatchError,
  type KeyValue, type Storage, type StorageEvent, type WatchHandle,
} from '../storage/types.js';
import type { FieldError } from '../apimachinery/field-errors.js';
import { field } from '../apimachinery/field-errors.js';
import { generateName } from '../meta/object-meta.js';
import { rfc3339 } from '../apimachinery/time.js';
import type { LabelSelector } from '../selectors/labels.js';
import type { FieldSelector } from '../selectors/fields.js';
import { cloneDecoded, decode, decodedCopy, decodeValue, encode, withRevision, withTypeMeta } from './codec.js';
import { trackManagedFields } from '../fieldmanager/request.js';
import { deepEqual } from '../fieldmanager/typed.js';
import { fieldValue } from './field-values.js';
import { Lister } from './lister.js';
import { KeyQueue } from './key-queue.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import type { RequestAudit } from './request-audit.js';
import { parseResourceVersion, parseResourceVersionForStorage } from '../storage/resource-version.js';
import type { FinishFunc, ResourceDef, Stored } from './types.js';
import type { Lookup } from '../admission/lookup.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { KObject } from '../apimachinery/object.js';
import { admissionAttributes, admit, admitDeleteWithWebhooks, admitWebhooks, validate as validateAdmission } from '../admission/chain.js';
import type { EquivalentResource } from '../admission/lookup.js';

export interface ListRequest {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  limit?: number;
  continueToken?: string;
  /** The request's resourceVersion and resourceVersionMatch, as sent. */
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResponse<T = KObject> { items: Stored<T>[]; revision: number; continueToken?: string }
/** One page of a list read in pages: stored values, the list's revision, whether pages follow. */
export interface ListPage { items: KeyValue[]; revision: number; more: boolean }
/** Stored values to be written as served JSON (codec.writeWithRevision). */
export interface RawListResponse { items: KeyValue[]; revision: number; continueToken?: string }

export interface DeleteRequest {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** The attempt of an update in flight: its FinishFunc (BeginUpdate's) and whether it was stored. */
interface UpdateAttempt { finish?: FinishFunc; written: boolean }

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchSink = (type: WatchEventType, obj: KObject) => void;
/** Told when a watch ends on its own: an event could not be converted to the watched version. */
export type WatchEnd = (err: Error) => void;

const CONTINUE_EXPIRED = 'The provided continue parameter is too old to display a consistent list result. ' +
  'You can start a new list without the continue parameter, or use the continue token in this response to retrieve ' +
  'the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that ' +
  'were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** etcd3's answer to a list that is too old to serve (errors.go `expired`). */
const LIST_EXPIRED = 'The resourceVersion for the provided list is too old.';
/** k8s.io/apiserver/pkg/storage/etcd3: interpretWatchError of etcd's ErrCompacted. */
const WATCH_EXPIRED = 'The resourceVersion for the provided watch is too old.';

/** etcd's answer to a read at a revision it has not reached, which the registry passes through as a 500. */
const FUTURE_REVISION = 'etcdserver: mvcc: required revision is a future revision';

/** watch_cache.go's blockTimeout. */
const FRESHNESS_WAIT_MS = 3000;

/** What an update attempt returns when another write to the object came between its read and its write. */
const LOST_RACE = Symbol('lost race');

/**
 * RetryGenerateName (GA in v1.32): a create whose name the server generates is tried this many
 * times in all, each with a fresh name, while it fails with AlreadyExists (upstream's
 * maxNameGenerationCreateAttempts).
 */
export const MAX_NAME_GENERATION_CREATE_ATTEMPTS = 8;

/** needsNameGeneration: a generateName and no name. */
function needsNameGeneration(obj: KObject): boolean {
  return !!obj.metadata?.generateName && !obj.metadata.name;
}

/** What admission looks up on every write: namespaces, defaults and limits, accounts and classes. */
const LISTED = ['/namespaces', '/limitranges', '/resourcequotas', '/serviceaccounts',
  'scheduling.k8s.io/priorityclasses', 'node.k8s.io/runtimeclasses', 'storage.k8s.io/storageclasses',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations', 'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings'];

export function groupResource(def: ResourceDef): GroupResource {
  return { group: def.group, resource: def.resource };
}

/** What is compared to decide whether a write changes the spec (and so the generation). */
export function specOf(obj: KObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

function shouldDeleteNow(def: ResourceDef, obj: KObject): boolean {
  const m = obj.metadata;
  if (!m.deletionTimestamp || m.finalizers?.length || m.deletionGracePeriodSeconds) return false;
  return !def.prepareForDelete?.(structuredClone(obj));
}

/**
 * The generic registry store (upstream's genericregistry.Store): CRUD, list
 * and watch of one resource over the storage interface, with the object
 * metadata rules every resource shares.
 */
/** Whether a list's or watch's selectors can leave objects out. */
function isFiltered(req: ListRequest): boolean {
  return !!(req.labelSelector && !req.labelSelector.empty()) || !!req.fieldSelector?.terms.length;
}

export class Store implements Lookup {
  private readonly byGVR = new Map<string, ResourceDef>();
  private readonly byGR = new Map<string, ResourceDef>();

  /** Resources admission reads on every write, served from memory. */
  private readonly listers = new Map<string, Lister>();

  /** The server's authorization (set once it is built from the roles this store holds): writes check RBAC escalation with it. */
  authorization?: AuthorizationPolicy;

  /** names.SimpleNameGenerator; replaceable so that tests can force generated names to collide. */
  nameGenerator: (base: string) => string = generateName;

  /** The served resources: the built-in ones given, then those added at run time (custom resources). */
  get defs(): readonly ResourceDef[] { return this.served; }
  private served: ResourceDef[];
  private readonly defsListeners = new Set<() => void>();
  /** For definitions with fromStorageOnlyOlder: the revision at which each began to be served. */
  private readonly servedSince = new WeakMap<ResourceDef, number>();
  /**
   * For those definitions, the served texts of objects written before then, by key with the
   * revision they were converted at: lists convert each once, as upstream's watch cache holds
   * objects decoded (and defaulted) once. Entries go with the definition, and an object's when a
   * list finds it written since (served as stored).
   */
  private readonly olderServed = new WeakMap<ResourceDef, Map<string, { revision: number; value: string }>>();

  /** The audit log requests are recorded in (--audit-policy-file), when one is set. */
  audit?: RequestAudit;

  /** How webhook calls, pods/proxy and services/proxy reach emulated pods (set by the wiring once the nodes' network exists). */
  podEndpoints?: PodEndpointDialer;

  constructor(readonly storage: Storage, defs: ResourceDef[]) {
    this.served = [...defs];
    for (const d of defs) this.index(d);
    for (const gr of LISTED) {
      const d = this.byGR.get(gr);
      if (d) this.listers.set(gr, new Lister(storage, d, `${d.storagePrefix}/`));
    }
  }

  private index(d: ResourceDef): void {
    this.byGVR.set(`${d.group}/${d.version}/${d.resource}`, d);
    if (!this.byGR.has(`${d.group}/${d.resource}`)) this.byGR.set(`${d.group}/${d.resource}`, d);
  }

  /**
   * Serves the given resources from now on, in place of any served under the same
   * group/version/resource, and stops serving `removed` (a CRD's versions as they change).
   */
  setResources(added: ResourceDef[], removed: ResourceDef[] = []): void {
    const now = this.storage.currentRevision();
    for (const d of added) if (d.fromStorageOnlyOlder) this.servedSince.set(d, now);
    const gone = new Set([...added, ...removed].map((d) => `${d.group}/${d.version}/${d.resource}`));
    this.served = [...this.served.filter((d) => !gone.has(`${d.group}/${d.version}/${d.resource}`)), ...added];
    this.byGVR.clear();
    this.byGR.clear();
    for (const d of this.served) this.index(d);
    for (const l of this.defsListeners) l();
  }

  /** Calls `listener` whenever the served resources change; returns the unsubscribe function. */
  onResourcesChanged(listener: () => void): () => void {
    this.defsListeners.add(listener);
    return () => this.defsListeners.delete(listener);
  }

  find(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.byGVR.get(`${group}/${version}/${resource}`);
  }

  key(def: ResourceDef, namespace: string, name: string): string {
    return def.namespaced ? `${def.storagePrefix}/${namespace}/${name}` : `${def.storagePrefix}/${name}`;
  }

  prefix(def: ResourceDef, namespace: string): string {
    return def.namespaced && namespace ? `${def.storagePrefix}/${namespace}/` : `${def.storagePrefix}/`;
  }

  /** Lookup for admission: the object in its first served version. */
  async get(group: string, resource: string, namespace: string, name: string): Promise<KObject | undefined> {
    const lister = this.listers.get(`${group}/${resource}`);
    if (lister) return lister.get(namespace, name);
    const def = this.byGR.get(`${group}/${resource}`);
    if (!def) return undefined;
    const kv = await this.storage.get(this.key(def, namespace, name));
    return kv && this.decodeOne(def, kv);
  }

  /** Lookup for admission: the other served versions of a resource (sharing its storage), with converters. */
  equivalentResources(group: string, version: string, resource: string): EquivalentResource[] {
    const from = this.byGVR.get(`${group}/${version}/${resource}`);
    if (!from) return [];
    const toStorage = (o: KObject) => (from.toStorage ? from.toStorage(structuredClone(o)) : structuredClone(o));
    return this.served.filter((d) => d !== from && d.storagePrefix === from.storagePrefix).map((d) => ({
      resource: { group: d.group, version: d.version, resource: d.resource },
      kind: { group: d.group, version: d.version, kind: d.kind },
      fromRequested: (o) => (d.fromStorage ? d.fromStorage(toStorage(o)) : toStorage(o)),
      toRequested: (o) => {
        const stored = d.toStorage ? d.toStorage(structuredClone(o)) : structuredClone(o);
        return from.fromStorage ? from.fromStorage(stored) : stored;
      },
    }));
  }

  /** Lookup for admission: every object of a resource, in one namespace or ('') all. */
  async listAll(group: string, resource: string, namespace: string): Promise<KObject[]> {
    const lister = this.listers.get(`${group}/${resource}`);
    if (lister) return lister.list(namespace);
    const def = this.byGR.get(`${group}/${resource}`);
    return def ? (await this.list(def, namespace)).items : [];
  }

  async read<T>(def: ResourceDef<T>, namespace: string, name: string): Promise<Stored<T>> {
    const kv = await this.storage.get(this.key(def, namespace, name));
    if (!kv) throw errors.notFound(groupResource(def), name);
    // Stored objects passed decoding and validation as T when written.
    return await this.decodeOne(def, kv) as Stored<T>;
  }

  /** A stored object in def's version (a webhook-converted one in a call of its own). */
  private async decodeOne(def: ResourceDef, kv: KeyValue): Promise<KObject> {
    return def.convertFromStorage ? (await this.decodeConverted(def, [kv], false))[0]! : decode(def, kv);
  }

  /** Stored objects through def's conversion webhook, all in one call when `list`. */
  private async decodeConverted(def: ResourceDef, kvs: KeyValue[], list: boolean): Promise<KObject[]> {
    if (!kvs.length) return [];
    const out = await def.convertFromStorage!(kvs.map((kv) => JSON.parse(kv.value) as KObject), list);
    return out.map((obj, i) => {
      obj.metadata.resourceVersion = String(kvs[i]!.modRevision);
      return withTypeMeta(def, obj);
    });
  }

  /** An object as it is written to storage (the write's encode; without resourceVersion for a webhook, as upstream sends it). */
  private async toStored(def: ResourceDef, obj: KObject): Promise<KObject> {
    if (def.convertToStorage) {
      const { resourceVersion: _rv, ...metadata } = obj.metadata;
      return def.convertToStorage({ ...obj, metadata });
    }
    return def.toStorage ? def.toStorage(obj) : obj;
  }

  /** What a write returns for a webhook-converted resource: the stored text read back, as upstream decodes it. */
  private async readBack<T>(def: ResourceDef<T>, obj: Stored<T>, text: string, revision: number): Promise<Stored<T>> {
    if (!def.convertFromStorage) return obj;
    return await this.decodeOne(def, { key: '', value: text, modRevision: revision, createRevision: revision }) as Stored<T>;
  }

  async list<T>(def: ResourceDef<T>, namespace: string, req: ListRequest = {}): Promise<ListResponse<T>> {
    const out = await this.listKVs(def, namespace, req);
    const items = def.convertFromStorage ? await this.decodeConverted(def, out.kvs, true) : out.kvs.map((kv) => decode(def, kv));
    return { items: items as Stored<T>[], revision: out.revision, continueToken: out.continueToken };
  }

  /**
   * The list as JSON texts, for resources stored in their served form;
   * undefined for the others (which need conversion).
   */
  async listRaw(def: ResourceDef, namespace: string, req: ListRequest = {}): Promise<RawListResponse | undefined> {
    if (!this.servesStored(def)) return undefined;
    const out = await this.listKVs(def, namespace, req);
    return { items: this.asServed(def, out.kvs), revision: out.revision, continueToken: out.continueToken };
  }

  /** Whether a list of def's objects can be served from their stored texts (converting only the older ones). */
  private servesStored(def: ResourceDef): boolean {
    return !def.convertFromStorage && (!def.fromStorage || this.servedSince.has(def));
  }

  /** The stored texts as served: those written before def was served go through fromStorage. */
  private asServed(def: ResourceDef, kvs: KeyValue[]): KeyValue[] {
    const since = this.servedSince.get(def);
    if (since === undefined) return kvs;
    let cache = this.olderServed.get(def);
    if (!cache) this.olderServed.set(def, cache = new Map());
    return kvs.map((kv) => {
      if (kv.modRevision > since) {
        cache.delete(kv.key);
        return kv;
      }
      let served = cache.get(kv.key);
      if (served?.revision !== kv.modRevision) cache.set(kv.key, served = { revision: kv.modRevision, value: encode(decodeValue(def, kv.value, kv.modRevision)) });
      return { ...kv, value: served.value };
    });
  }

  /**
   * A list without limit as pages of stored texts, all from one revision
   * (the first page's), for writing as it is read: a caller holds one page at
   * a time. Undefined for resources that need conversion.
   */
  listRawPages(def: ResourceDef, namespace: string, req: Pick<ListRequest, 'labelSelector' | 'fieldSelector' | 'resourceVersion' | 'resourceVersionMatch'>,
    pageSize: number): AsyncGenerator<ListPage> | undefined {
    if (!this.servesStored(def)) return undefined;
    return this.pages(def, namespace, req, pageSize);
  }

  private async *pages(def: ResourceDef, namespace: string, req: Pick<ListRequest, 'labelSelector' | 'fieldSelector' | 'resourceVersion' | 'resourceVersionMatch'>,
    pageSize: number): AsyncGenerator<ListPage> {
    const prefix = this.prefix(def, namespace);
    const filtered = isFiltered(req);
    // Chosen as for any list without a limit: an Exact resourceVersion, else the latest (after waiting for a future one).
    let atRev = (await this.listRevision(req, prefix)).revision;
    let after: string | undefined;
    for (let more = true; more;) {
      let res;
      try {
        res = await this.storage.list(prefix, { revision: atRev || undefined, limit: pageSize, after });
      } catch (e) {
        if (e instanceof CompactedError) throw errors.expired(LIST_EXPIRED);
        throw e;
      }
      atRev = res.revision;
      more = res.more;
      after = res.items.at(-1)?.key;
      const items = filtered ? res.items.filter((kv) => this.matches(def, decode(def, kv), req)) : res.items;
      yield { items: this.asServed(def, items), revision: atRev, more };
    }
  }

  private async listKVs(def: ResourceDef, namespace: string, req: ListRequest): Promise<{ kvs: KeyValue[]; revision: number; continueToken?: string }> {
    const prefix = this.prefix(def, namespace);
    const { revision, after: startAfter } = await this.listRevision(req, prefix);
    const filtered = isFiltered(req);
    const items: KeyValue[] = [];
    let lastKey: string | undefined;
    let more = false;
    let atRev = revision || this.storage.currentRevision();
    let after = startAfter;
    // With a selector and a limit, keep reading pages until the limit is met.
    while (true) {
      const pageLimit = req.limit ? Math.min(Math.max(req.limit - items.length, filtered ? 500 : 0), Number.MAX_SAFE_INTEGER) : undefined;
      let res;
      try {
        res = await this.storage.list(prefix, { revision: atRev, limit: pageLimit, after });
      } catch (e) {
        if (e instanceof CompactedError) {
          throw errors.expired(req.continueToken ? CONTINUE_EXPIRED : LIST_EXPIRED);
        }
        throw e;
      }
      atRev = res.revision;
      let consumed = 0;
      for (const kv of res.items) {
        consumed++;
        lastKey = kv.key;
        if (filtered && !this.matches(def, decode(def, kv), req)) continue;
        items.push(kv);
        if (req.limit && items.length >= req.limit) break;
      }
      if (req.limit && items.length >= req.limit) {
        more = consumed < res.items.length || res.more;
        break;
      }
      if (!res.more) break;
      after = lastKey;
    }
    const out: { kvs: KeyValue[]; revision: number; continueToken?: string } = { kvs: items, revision: atRev };
    if (more && lastKey) out.continueToken = encodeContinue(atRev, `${lastKey.slice(prefix.length)}\u0000`);
    return out;
  }

  /**
   * The revision a list reads at, and where it starts, as upstream decides: continuations, Exact
   * and limited lists with a resourceVersion go to etcd (cacher.shouldDelegateList) at that
   * revision; the others are served from the watch cache, which waits for a resourceVersion it
   * has not reached yet and then serves the latest state.
   */
  private async listRevision(req: ListRequest, prefix: string): Promise<{ revision: number; after?: string }> {
    const rv = req.resourceVersion ?? '';
    const match = req.resourceVersionMatch ?? '';
    const legacyExact = !!req.limit && req.limit > 0 && !match && rv !== '' && rv !== '0';
    if (!req.continueToken && match !== 'Exact' && !legacyExact) {
      if (rv !== '') await this.waitForRevision(parseResourceVersion(rv));
      return { revision: 0 };
    }
    let revision: number;
    let after: string | undefined;
    if (req.continueToken) {
      let tok;
      try {
        tok = decodeContinue(req.continueToken);
      } catch (e) {
        throw errors.badRequest(`invalid continue token: ${(e as Error).message}`);
      }
      if (rv !== '' && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
      // A negative revision (handed out when a continuation expired) means the latest.
      revision = Math.max(tok.revision, 0);
      // The token names the first key to read; storage reads strictly after a key.
      after = prefix + (tok.startKey.endsWith('\u0000') ? tok.startKey.slice(0, -1) : tok.startKey);
      if (revision && revision < this.storage.compactedRevision()) throw errors.expired(CONTINUE_EXPIRED);
    } else {
      revision = parseResourceVersionForStorage(rv);
    }
    if (revision > this.storage.currentRevision()) throw errors.unknown(FUTURE_REVISION);
    return { revision, after };
  }

  /**
   * watchCache.waitUntilFreshAndBlock: a read that asks for a revision the server has not reached
   * waits up to 3 seconds for it, then fails with 504 and a retry-after of 1 second.
   */
  async waitForRevision(revision: number): Promise<void> {
    const deadline = Date.now() + FRESHNESS_WAIT_MS;
    while (revision > this.storage.currentRevision()) {
      if (Date.now() >= deadline) throw errors.tooLargeResourceVersion(revision, this.storage.currentRevision(), 1);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  matches(def: ResourceDef, obj: KObject, req: Pick<ListRequest, 'labelSelector' | 'fieldSelector'>): boolean {
    if (req.labelSelector && !req.labelSelector.matches(obj.metadata.labels)) return false;
    if (req.fieldSelector && !req.fieldSelector.matches((f) => fieldValue(def, obj, f))) return false;
    return true;
  }

  /** Namespace lifecycle admission: the namespace must exist and not be terminating. */
  private async admitNamespace(def: ResourceDef, namespace: string, name: string): Promise<void> {
    if (!def.namespaced) return;
    const ns = await this.get('', 'namespaces', '', namespace) as (KObject & { status?: { phase?: string } }) | undefined;
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace);
    if (def.resource === 'events') return;
    if (ns.status?.phase === 'Terminating' || ns.metadata.deletionTimestamp) {
      throw errors.forbidden(groupResource(def), name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }]);
    }
  }

  async create<T>(def: ResourceDef<T>, namespace: string, input: KObject, ctx: WriteContext): Promise<Stored<T>> {
    if (!needsNameGeneration(input)) return this.createOnce(def, namespace, input, ctx);
    // createWithGenerateNameRetry: every attempt starts again from (a copy of) the object as sent,
    // and only an AlreadyExists answer is worth another name.
    let last: unknown;
    for (let i = 0; i < MAX_NAME_GENERATION_CREATE_ATTEMPTS; i++) {
      try {
        return await this.createOnce(def, namespace, cloneDecoded(input), ctx);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        last = e;
      }
    }
    throw last;
  }

  private async createOnce<T>(def: ResourceDef<T>, namespace: string, input: KObject, ctx: WriteContext): Promise<Stored<T>> {
    // Decoding checked the input against the kind's Go type: it is a T from here on.
    const obj = withTypeMeta(def, input) as Stored<T>;
    const meta = (obj.metadata ??= {});
    if (def.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    const nameGenerated = !meta.name && !!meta.generateName;
    if (nameGenerated) meta.name = this.nameGenerator(meta.generateName!);
    await this.admitNamespace(def, namespace, meta.name ?? '');
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(ctx.now);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (def.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    const sentManagedFields = meta.managedFields;
    def.defaults?.(obj);
    trackManagedFields(def, undefined, obj, sentManagedFields, ctx);
    // Admission (admission/chain.ts): the chain's mutating plugins, then the resource's own, validating after validation.
    const admission = admissionAttributes(def, 'CREATE', namespace, obj, undefined, ctx, this);
    // The name is generated here, before admission; upstream's BeforeCreate generates it after, so webhooks see none.
    if (nameGenerated) admission.nameGenerated = true;
    await admit(admission);
    def.prepareForCreate?.(obj, ctx);
    await def.admitCreate?.(obj, ctx, this);
    await admitWebhooks(admission, def.defaults && ((o) => def.defaults!(o)));
    const finish = await def.beginCreate?.(obj, ctx, this);
    let written = false;
    try {
      const out = await this.validateAndWrite(def, namespace, obj, admission, ctx);
      written = !ctx.dryRun;
      return out;
    } finally {
      finish?.(written);
    }
  }

  /** The rest of a create once admitted: validation, validating admission, and the write. */
  private async validateAndWrite<T>(def: ResourceDef<T>, namespace: string, obj: Stored<T>,
    admission: ReturnType<typeof admissionAttributes>, ctx: WriteContext): Promise<Stored<T>> {
    const meta = obj.metadata;
    const errs: FieldError[] = [];
    if (!meta.name) errs.push(field.required('metadata.name', 'name or generateName is required'));
    if (def.validate) errs.push(...def.validate(obj));
    if (errs.length) throw errors.invalid(def, meta.name ?? '', errs);
    def.warnCreate?.(obj, ctx);
    await validateAdmission(admission);
    if (ctx.dryRun) return obj;
    const stored = await this.toStored(def, obj);
    const text = encode(stored);
    this.writing.set(text, { def, obj: stored, shared: stored === obj && this.readOnlyResults.has(ctx) });
    const key = this.key(def, namespace, meta.name!);
    try {
      const kv = await this.storage.create(key, text);
      obj.metadata.resourceVersion = String(kv.modRevision);
      if (stored === obj) this.written.set(obj, text);
      return await this.readBack(def, obj, text, kv.modRevision);
    } catch (e) {
      if (e instanceof KeyExistsError) throw await this.createConflict(def, key, meta.generateName, meta.name!);
      throw e;
    } finally {
      this.writing.delete(text);
    }
  }

  /**
   * The AlreadyExists answer to a create (InterpretCreateError, then CheckGeneratedNameError): when the
   * object carried a generateName the message says the server could not find a unique name (even if
   * the name was given explicitly, as upstream only looks at generateName), and when the object in the
   * way is being deleted the message says so.
   */
  private async createConflict(def: ResourceDef, key: string, generateNameBase: string | undefined, name: string): Promise<StatusError> {
    const gr = groupResource(def);
    const err = generateNameBase ? errors.generateNameConflict(gr, name) : errors.alreadyExists(gr, name);
    const kv = await this.storage.get(key);
    if (!kv || !decode(def, kv).metadata.deletionTimestamp) return err;
    return new StatusError({ ...err.status, message: `object is being deleted: ${err.status.message}` });
  }

  /**
   * GuaranteedUpdate: reads the object, lets `mutate` produce the new one and
   * writes it if nobody wrote in between (retrying otherwise). A
   * resourceVersion set by the caller is a precondition.
   */
  async update<T>(
    def: ResourceDef<T>, namespace: string, name: string,
    mutate: (current: Stored<T>) => KObject | Promise<KObject>,
    ctx: WriteContext, subresource?: string,
  ): Promise<Stored<T>> {
    // Like GuaranteedUpdate, retry with the object as it is now for as long as others win the race
    // (each lost race is someone else's write, so this ends): a patch is applied to it again (and
    // carries its resourceVersion), while a resourceVersion or uid sent by the client fails the
    // precondition. Retries of one key take turns (KeyQueue).
    const attempt: UpdateAttempt = { written: false };
    try {
      const first = await this.updateOnce(def, namespace, name, mutate, ctx, subresource, attempt);
      if (first !== LOST_RACE) return first;
      return await this.retries.turn(this.key(def, namespace, name), async () => {
        for (;;) {
          const r = await this.updateOnce(def, namespace, name, mutate, ctx, subresource, attempt);
          if (r !== LOST_RACE) return r;
        }
      });
    } finally {
      attempt.finish?.(attempt.written);
    }
  }

  /** Writers of one key that lost a race and retry in turn. */
  private readonly retries = new KeyQueue();

  /** One GuaranteedUpdate attempt: the object written, or LOST_RACE when another write came first. */
  private async updateOnce<T>(
    def: ResourceDef<T>, namespace: string, name: string,
    mutate: (current: Stored<T>) => KObject | Promise<KObject>,
    ctx: WriteContext, subresource: string | undefined, last: UpdateAttempt,
  ): Promise<Stored<T> | typeof LOST_RACE> {
    const key = this.key(def, namespace, name);
    const gr = groupResource(def);
    const kv = await this.storage.get(key);
    if (!kv) throw errors.notFound(gr, name);
    // What is stored was a T when written, and what is written must decode as one (the patch and PUT paths check it).
    const current = await this.decodeOne(def, kv) as Stored<T>;
    let next = withTypeMeta(def, await mutate(cloneDecoded(current))) as Stored<T>;
    const m = (next.metadata ??= {});
    if (m.name !== undefined && m.name !== name) {
      throw errors.badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
    }
    if (def.namespaced && m.namespace && m.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    // Store.Update: a resourceVersion that parses as 0 ("0", as kubeadm writes on its Service) is no precondition, as an absent one;
    // kinds whose strategy refuses unconditional updates require one (the resource stands in for the kind in the error).
    const requestedRV = m.resourceVersion;
    if (def.allowUnconditionalUpdate === false && (!requestedRV || /^0+$/.test(requestedRV))) {
      throw errors.invalid({ group: def.group, kind: def.resource }, name,
        [field.invalid('metadata.resourceVersion', { goSyntax: '0x0' }, 'must be specified for an update')]);
    }
    if (requestedRV && !/^0+$/.test(requestedRV) && requestedRV !== current.metadata.resourceVersion) throw errors.objectModified(gr, name);
    if (m.uid && m.uid !== current.metadata.uid) {
      throw errors.conflict(gr, name, `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    next = this.keepSystemFields(def, next, current, subresource) as Stored<T>;
    const sentManagedFields = next.metadata.managedFields;
    def.defaults?.(next);
    trackManagedFields(def, current, next, sentManagedFields, ctx, subresource);
    const admission = admissionAttributes(def, 'UPDATE', namespace, next, current, ctx, this, subresource);
    await admit(admission);
    if (!subresource) def.prepareForUpdate?.(next, current, ctx);
    else def.prepareForSubresourceUpdate?.(subresource, next, current, ctx);
    if (!subresource) await def.admitUpdate?.(next, current, ctx, this);
    await admitWebhooks(admission, def.defaults && ((o) => def.defaults!(o)));
    // BeginUpdate: each attempt allocates afresh; what an attempt that was not stored took is given back.
    last.finish?.(false);
    last.finish = undefined;
    if (!subresource) last.finish = await def.beginUpdate?.(next, current, ctx, this);
    if (def.hasGeneration && subresource !== 'status') {
      const input = (o: Stored<T>): unknown => (def.generationInput ? def.generationInput(o) : specOf(o));
      next.metadata.generation = (current.metadata.generation ?? 1) +
        (deepEqual(input(next), input(current)) ? 0 : 1);
    }
    const errs = def.validateUpdate ? def.validateUpdate(next, current, subresource) : def.validate ? def.validate(next) : [];
    if (errs.length) throw errors.invalid(def, name, errs);
    if (!subresource) def.warnUpdate?.(next, current, ctx);
    await validateAdmission(admission);
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    // A new generation already tells the objects apart; only otherwise is the whole object compared. A value
    // stored with a key being rotated away from is rewritten even so (GuaranteedUpdate's stale check).
    if (!kv.stale && next.metadata.generation === current.metadata.generation && deepEqual(next, current)) return current;
    if (shouldDeleteNow(def, next)) {
      if (ctx.dryRun) return next;
      try {
        const { revision } = await this.storage.delete(key, kv.modRevision);
        next.metadata.resourceVersion = String(revision);
        return next;
      } catch (e) {
        if (e instanceof RevisionMismatchError) return LOST_RACE;
        if (e instanceof NotFoundError) throw errors.notFound(gr, name);
        throw e;
      }
    }
    if (ctx.dryRun) return next;
    const stored = await this.toStored(def, next);
    const text = encode(stored);
    this.writing.set(text, { def, obj: stored, shared: stored === next && this.readOnlyResults.has(ctx) });
    try {
      const res = await this.storage.update(key, text, kv.modRevision);
      next.metadata.resourceVersion = String(res.modRevision);
      if (stored === next) this.written.set(next, text);
      last.written = true;
      return await this.readBack(def, next, text, res.modRevision);
    } catch (e) {
      if (e instanceof RevisionMismatchError) return LOST_RACE;
      if (e instanceof NotFoundError) throw errors.notFound(gr, name);
      throw e;
    } finally {
      this.writing.delete(text);
    }
  }

  /** rest.BeforeUpdate: what a client may not change, and the spec/status split. */
  private keepSystemFields(def: ResourceDef, next: KObject, current: KObject, subresource?: string): KObject {
    const cm = current.metadata;
    if (subresource === 'status' && !def.statusWritesMetadata) {
      // Status writes change only status (ResetObjectMetaForStatus).
      const metadata = { ...cm };
      if (def.statusWritesAnnotations) {
        if (next.metadata.annotations === undefined) delete metadata.annotations; else metadata.annotations = next.metadata.annotations;
      }
      return { ...current, status: next.status, metadata } as KObject;
    }
    const m = next.metadata;
    m.name = cm.name;
    if (def.namespaced) m.namespace = cm.namespace; else delete m.namespace;
    m.uid = cm.uid;
    m.creationTimestamp = cm.creationTimestamp;
    for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (cm[k] === undefined) delete m[k]; else (m as Record<string, unknown>)[k] = cm[k];
    }
    delete m.selfLink;
    if (!m.managedFields && cm.managedFields) m.managedFields = cm.managedFields;
    if (def.hasStatusSubresource && !subresource) {
      if (current.status === undefined) delete next.status; else next.status = current.status;
    }
    return next;
  }

  async delete(def: ResourceDef, namespace: string, name: string, req: DeleteRequest, ctx: WriteContext):
  Promise<{ obj: KObject; deleted: boolean }> {
    const key = this.key(def, namespace, name);
    const gr = groupResource(def);
    let webhooksRan = false;
    for (;;) {
      const kv = await this.storage.get(key);
      if (!kv) throw errors.notFound(gr, name);
      const current = await this.decodeOne(def, kv);
      const cm = current.metadata;
      const pre = req.preconditions;
      if (pre?.uid && pre.uid !== cm.uid) {
        throw errors.conflict(gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cm.uid}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== cm.resourceVersion) {
        throw errors.conflict(gr, name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cm.resourceVersion}`);
      }
      def.admitDelete?.(current, ctx);
      if (!webhooksRan) {
        webhooksRan = true;
        const deleteOptions = {
          ...(req.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: req.gracePeriodSeconds } : {}),
          ...(req.preconditions ? { preconditions: req.preconditions } : {}),
          ...(req.propagationPolicy ? { propagationPolicy: req.propagationPolicy } : {}),
        };
        await admitDeleteWithWebhooks({ def, subresource: '', namespace: def.namespaced ? namespace : '', name, ctx, lookup: this }, current, deleteOptions);
      }
      const grace = def.gracePeriod ? def.gracePeriod(current, req.gracePeriodSeconds) : 0;
      const finalizers = [...(cm.finalizers ?? [])];
      const policyFinalizer = req.propagationPolicy === 'Foreground' ? 'foregroundDeletion'
        : req.propagationPolicy === 'Orphan' ? 'orphan' : undefined;
      if (policyFinalizer && !cm.deletionTimestamp && !finalizers.includes(policyFinalizer)) finalizers.push(policyFinalizer);
      const next = structuredClone(current);
      const keep = def.prepareForDelete?.(next) ?? false;
      if (cm.deletionTimestamp) {
        // Already being deleted: it goes once nothing holds it; otherwise only a shorter grace period changes anything.
        const pending = cm.deletionGracePeriodSeconds ?? 0;
        const held = keep || finalizers.length > 0;
        if (held || grace > 0) {
          if (grace >= pending) return { obj: current, deleted: false };
          next.metadata.deletionGracePeriodSeconds = grace;
          next.metadata.deletionTimestamp = rfc3339(new Date(ctx.now.getTime() + grace * 1000));
          const r = await this.writeDeletion(def, key, kv.modRevision, next, ctx, name);
          if (r) return r;
          continue;
        }
      } else if (grace > 0 || finalizers.length || keep) {
        // A strategy that marks the object itself (the CRD's REST Delete) adds its finalizers first
        // and leaves the generation, as markAsDeleting then finds a deletionTimestamp already set.
        const markedByStrategy = !!next.metadata.deletionTimestamp;
        const own = next.metadata.finalizers ?? [];
        if (finalizers.length) next.metadata.finalizers = [...own, ...finalizers.filter((f) => !own.includes(f))];
        next.metadata.deletionTimestamp = rfc3339(new Date(ctx.now.getTime() + grace * 1000));
        next.metadata.deletionGracePeriodSeconds = grace;
        if (def.hasGeneration && !markedByStrategy) next.metadata.generation = (cm.generation ?? 1) + 1;
        const r = await this.writeDeletion(def, key, kv.modRevision, next, ctx, name);
        if (r) return r;
        continue;
      }
      if (ctx.dryRun) return { obj: current, deleted: true };
      try {
        const { revision } = await this.storage.delete(key, kv.modRevision);
        current.metadata.resourceVersion = String(revision);
        return { obj: current, deleted: true };
      } catch (e) {
        if (e instanceof RevisionMismatchError) continue;
        if (e instanceof NotFoundError) throw errors.notFound(gr, name);
        throw e;
      }
    }
  }

  /** Writes an object marked for deletion; undefined means it changed meanwhile and the caller retries. */
  private async writeDeletion(def: ResourceDef, key: string, modRevision: number, next: KObject,
    ctx: WriteContext, name: string): Promise<{ obj: KObject; deleted: boolean } | undefined> {
    if (ctx.dryRun) return { obj: next, deleted: false };
    try {
      const stored = await this.toStored(def, next);
      const res = await this.storage.update(key, encode(stored), modRevision);
      next.metadata.resourceVersion = String(res.modRevision);
      return { obj: next, deleted: false };
    } catch (e) {
      if (e instanceof RevisionMismatchError) return undefined;
      if (e instanceof NotFoundError) throw errors.notFound(groupResource(def), name);
      throw e;
    }
  }

  /** The stored text of each object create and update returned, while the caller holds the object. */
  private readonly written = new WeakMap<KObject, string>();

  /**
   * The served JSON of an object create or update just returned, from the
   * text stored (the write's serialization, resourceVersion spliced in), or
   * undefined. Only for a caller that has not changed the object since.
   */
  writtenJSON(obj: KObject): string | undefined {
    const text = this.written.get(obj);
    return text === undefined ? undefined : withRevision(text, Number(obj.metadata.resourceVersion));
  }

  /** Decoded event objects, shared by every watcher of the same version (they only read them). */
  private readonly decodedEvents = new WeakMap<StorageEvent, Map<ResourceDef, KObject>>();

  /**
   * Objects being written, by the text stored: storage emits the write's
   * event before the write returns, and copying the object is cheaper than
   * decoding the text again.
   */
  private readonly writing = new Map<string, { def: ResourceDef; obj: KObject; shared: boolean }>();

  /** Write contexts whose caller only reads the object the write returns (see readOnlyResult). */
  private readonly readOnlyResults = new WeakSet<WriteContext>();

  /**
   * Declares that the caller of writes with this context never changes the
   * object create or update returns (the API handlers only serialize it):
   * the write's watch event then carries that very object, which watchers
   * only read, instead of a copy.
   */
  readOnlyResult(ctx: WriteContext): WriteContext {
    this.readOnlyResults.add(ctx);
    return ctx;
  }

  private eventObject(def: ResourceDef, ev: StorageEvent): KObject {
    let byDef = this.decodedEvents.get(ev);
    if (!byDef) this.decodedEvents.set(ev, byDef = new Map());
    let obj = byDef.get(def);
    if (!obj) {
      const w = ev.type === 'PUT' ? this.writing.get(ev.value!) : undefined;
      if (w?.shared && w.def === def) {
        // The write returns this object with this resourceVersion once the commit resolves it.
        w.obj.metadata.resourceVersion = String(ev.revision);
        obj = w.obj;
      }
      obj ??= (w?.def === def ? decodedCopy(def, w.obj, ev.revision) : undefined) ??
        decodeValue(def, ev.type === 'DELETE' ? ev.prevValue! : ev.value!, ev.revision);
      byDef.set(def, obj);
    }
    return obj;
  }

  /**
   * Watches one resource from a revision, with selectors applied the way the
   * watch cache does: an object leaving the selection is DELETED, one
   * entering it ADDED.
   */
  async watch(def: ResourceDef, namespace: string, fromRevision: number, req: ListRequest, sink: WatchSink, onEnd?: WatchEnd): Promise<WatchHandle> {
    if (def.convertFromStorage) return this.watchConverted(def, namespace, fromRevision, req, sink, onEnd);
    const filtered = isFiltered(req);
    return this.watchStorage(def, namespace, fromRevision, (ev) => {
      const obj = this.eventObject(def, ev);
      const type = this.watchEventType(def, ev, () => obj, req, filtered);
      if (type) sink(type, obj);
    }, onEnd);
  }

  /**
   * What a watcher with these selectors is sent for an event whose object `obj` gives: an object
   * leaving the selection is DELETED, one entering it ADDED, as the watch cache does.
   */
  private watchEventType(def: ResourceDef, ev: StorageEvent, obj: () => KObject, req: ListRequest, filtered: boolean): WatchEventType | undefined {
    if (ev.type === 'DELETE') return !filtered || this.matches(def, obj(), req) ? 'DELETED' : undefined;
    const created = ev.prevValue === undefined;
    if (!filtered) return created ? 'ADDED' : 'MODIFIED';
    const now = this.matches(def, obj(), req);
    const before = !created && this.matches(def, decodeValue(def, ev.prevValue!, ev.prevModRevision!), req);
    return now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
  }

  /** The storage watch of def's objects after `fromRevision` (a watch from a version not reached yet starts after it, as the cache's watchers do). */
  private async watchStorage(def: ResourceDef, namespace: string, fromRevision: number, onEvent: (ev: StorageEvent) => void,
    onEnd?: WatchEnd): Promise<WatchHandle> {
    try {
      return await this.storage.watch(this.prefix(def, namespace), fromRevision, (events) => {
        for (const ev of events) if (ev.revision > fromRevision) onEvent(ev);
      }, (err) => {
        // etcd3's watcher (interpretWatchError): a compaction met mid-stream ends the watch with a 410 to relist from.
        onEnd?.(err instanceof CompactedError ? errors.expired(WATCH_EXPIRED) : err);
      });
    } catch (e) {
      if (e instanceof CompactedError) throw errors.expired(`too old resource version: ${e.requested} (${e.compacted})`);
      throw e;
    }
  }

  /** Converted event objects, shared by the watchers of one version (they only read them). */
  private readonly convertedEvents = new WeakMap<StorageEvent, Map<ResourceDef, Promise<KObject>>>();

  private convertedEventObject(def: ResourceDef, ev: StorageEvent): Promise<KObject> {
    let byDef = this.convertedEvents.get(ev);
    if (!byDef) this.convertedEvents.set(ev, byDef = new Map());
    let obj = byDef.get(def);
    if (!obj) {
      const value = ev.type === 'DELETE' ? ev.prevValue! : ev.value!;
      obj = this.decodeOne(def, { key: ev.key, value, modRevision: ev.revision, createRevision: ev.revision });
      byDef.set(def, obj);
    }
    return obj;
  }

  /**
   * watch for a webhook-converted resource: each event converted before it is sent, in order (the
   * selectors read the stored form: conversion keeps names, namespaces and labels). A failed
   * conversion ends the watch, as upstream's watch handler stops when an event cannot be encoded.
   */
  private async watchConverted(def: ResourceDef, namespace: string, fromRevision: number, req: ListRequest,
    sink: WatchSink, onEnd?: WatchEnd): Promise<WatchHandle> {
    const filtered = isFiltered(req);
    let chain = Promise.resolve();
    let ended = false;
    let handle: WatchHandle | undefined;
    const send = (type: WatchEventType, ev: StorageEvent) => {
      const obj = this.convertedEventObject(def, ev);
      chain = chain.then(async () => {
        const converted = await obj;
        if (!ended) sink(type, converted);
      }).catch((e: unknown) => {
        if (ended) return;
        ended = true;
        handle?.cancel();
        onEnd?.(e instanceof Error ? e : new Error(String(e)));
      });
    };
    handle = await this.watchStorage(def, namespace, fromRevision, (ev) => {
      if (ended) return;
      const stored = () => decodeValue(def, ev.type === 'DELETE' ? ev.prevValue! : ev.value!, ev.revision);
      const type = this.watchEventType(def, ev, stored, req, filtered);
      if (type) send(type, ev);
    }, (err) => {
      // After the events already being converted.
      chain = chain.then(() => {
        if (ended) return;
        ended = true;
        onEnd?.(err);
      });
    });
    if (ended) handle.cancel();
    return {
      cancel: () => { ended = true; handle?.cancel(); },
    };
  }
}

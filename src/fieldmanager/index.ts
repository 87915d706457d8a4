/**
 * Field management as kube-apiserver does it
 * (k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager over
 * sigs.k8s.io/structured-merge-diff): every write records which manager set
 * which fields in metadata.managedFields, and server-side apply merges an
 * applied configuration by the schema's list and map types, removes what the
 * same manager applied before and no longer applies, and refuses to change
 * fields other managers own unless forced.
 */
import { StatusError, errors } from '../apimachinery/errors.js';
import { rfc3339 } from '../apimachinery/time.js';
import { apiVersionOf, type KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import {
  FieldSet, difference, intersection, isSubset, pathString, recursiveDifference, setFromPaths, union,
} from './fieldset.js';
import {
  capUpdateManagers, decodeManagedFields, encodeManagedFields, isResetManagedFields, ManagedFieldsError,
  managerIdentifier, type ManagedEntry, type Managers,
} from './managed.js';
import { builtinSchema, DEDUCED, type TypeNode } from './schema.js';
import {
  compare, deepEqual, dropNulls, ensureNamedFieldsAreMembers, formatValidationErrors, isMap, merge, removeItems,
  toFieldSet, validate, type Comparison,
} from './typed.js';

export { decodeManagedFields, encodeManagedFields } from './managed.js';

type Obj = Record<string, unknown>;

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** What upstream's stripMetaManager takes out of every manager's set. */
const STRIP = setFromPaths([
  ['f:apiVersion'], ['f:kind'], ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((f) => ['f:metadata', `f:${f}`]),
]);

interface Scope {
  type: TypeNode;
  version: string;
  /** Top-level fields the operation does not own (the strategy's reset fields). */
  skip: ReadonlySet<string> | undefined;
  ignored: FieldSet;
  /** The object as Go's zero value of its type serializes (what a create is compared with). Frozen. */
  zero: Obj;
}

const STATUS = new Set(['status']);
const SPEC = new Set(['spec']);
const scopes = new WeakMap<ResourceInfo, Map<string, Scope>>();
/** The types of resources not in the built-in data: custom resources, from their schema. */
const resourceTypes = new WeakMap<ResourceInfo, TypeNode>();

/** The type server-side apply walks for a resource the built-in data does not know (a custom resource's). */
export function setResourceType(def: ResourceInfo, type: TypeNode): void {
  resourceTypes.set(def, type);
  scopes.delete(def);
}

function scopeOf(def: ResourceInfo, subresource: string | undefined): Scope {
  let byDef = scopes.get(def);
  if (!byDef) scopes.set(def, byDef = new Map());
  const key = subresource ?? '';
  let s = byDef.get(key);
  if (!s) {
    const skip = subresource === 'status' ? SPEC : !subresource && def.hasStatusSubresource ? STATUS : undefined;
    s = {
      type: resourceTypes.get(def) ?? builtinSchema.kind(def.group, def.version, def.kind) ?? DEDUCED,
      version: apiVersionOf(def),
      skip,
      ignored: setFromPaths([...(skip ?? [])].map((f) => [`f:${f}`])),
      zero: deepFreeze({ apiVersion: apiVersionOf(def), kind: def.kind, ...(builtinSchema.zero(def.group, def.version, def.kind) ?? { metadata: {} }) }),
    };
    byDef.set(key, s);
  }
  return s;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

let lastNow: Date | undefined;
let lastTime = '';

/** rfc3339, remembered for the request's Date (every write of a request shares one). */
function timeOf(now: Date): string {
  if (now !== lastNow) { lastNow = now; lastTime = rfc3339(now); }
  return lastTime;
}

/** The object without its managedFields, which no comparison looks at. */
function withoutManagedFields(obj: KObject | Obj): Obj {
  const m = (obj as Obj).metadata;
  if (!isMap(m) || !('managedFields' in m)) return obj as Obj;
  const { managedFields: _mf, ...meta } = m;
  return { ...obj, metadata: meta };
}

function writeManaged(obj: KObject, managers: Managers): void {
  const entries = encodeManagedFields(managers);
  if (entries.length) obj.metadata.managedFields = entries as NonNullable<KObject['metadata']['managedFields']>;
  else delete obj.metadata.managedFields;
}

/** Upstream's Updater.update: others lose what changed (a conflict unless forced) and what was removed. */
function updateOthers(managers: Managers, self: string, c: Comparison, force: boolean): void {
  const changed = union(c.modified, c.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, e] of managers) {
    if (id === self) continue;
    const conflict = intersection(e.set, changed);
    if (!conflict.empty()) conflicts.set(id, conflict);
  }
  if (!force && conflicts.size) throw new ApplyConflicts(conflicts, managers);
  for (const [id, e] of managers) {
    if (id === self) continue;
    const set = difference(difference(e.set, changed), c.removed);
    if (set !== e.set) managers.set(id, { ...e, set });
  }
  for (const [id, e] of managers) if (e.set.empty()) managers.delete(id);
}

/**
 * Records an update (create, PUT or non-apply PATCH) by `manager` in
 * next.metadata.managedFields. `live` is the stored object (undefined for a
 * create); `sent` is the managedFields the request carried (a client may
 * write them; [] clears them).
 */
export function recordUpdate(def: ResourceInfo, live: KObject | undefined, next: KObject, sent: unknown,
  manager: string, subresource: string | undefined, now: Date): void {
  try {
    const scope = scopeOf(def, subresource);
    const liveManaged = live?.metadata.managedFields;
    let managers: Managers;
    if (subresource || isResetManagedFields(sent)) {
      managers = subresource ? decodeLive(live) : new Map();
    } else {
      managers = new Map();
      // What the request carried is most often the live managedFields again (a patch, or a PUT of what was read).
      if (sent !== undefined && sent !== null && sent !== liveManaged && !deepEqual(sent, liveManaged)) {
        try { managers = decodeManagedFields(sent, true); } catch (e) { if (!(e instanceof ManagedFieldsError)) throw e; }
      }
      if (managers.size === 0) managers = decodeLive(live);
    }
    const before = live ? withoutManagedFields(live) : scope.zero;
    const c = compare(scope.type, before, withoutManagedFields(next), scope.skip);
    let own = difference(union(c.modified, c.added), c.removed);
    own = difference(own, STRIP);
    const id = managerIdentifier(manager, 'Update', scope.version, subresource);
    const prev = managers.get(id);
    // Most often a manager's update changes only fields it already owns and removes none of them: its set
    // is then (prev − changed − removed) ∪ own = prev, kept as read (managed.ts readFrom writes it back as read).
    const unchanged = prev !== undefined && !own.empty() && isSubset(own, prev.set) &&
      intersection(prev.set, c.removed).empty() && intersection(prev.set, STRIP).empty();
    updateOthers(managers, unchanged ? id : '', c, true);
    if (!own.empty()) {
      const kept = managers.get(id);
      const set = unchanged ? prev.set : kept ? union(own, kept.set) : own;
      const entry: ManagedEntry = { manager, operation: 'Update', apiVersion: scope.version, set };
      entry.time = timeOf(now);
      if (subresource) entry.subresource = subresource;
      managers.set(id, entry);
    }
    capUpdateManagers(managers);
    writeManaged(next, managers);
  } catch (e) {
    // UpdateNoErrors: a failure never fails the write; the object just carries no managedFields.
    if (e instanceof ApplyConflicts) throw e;
    delete next.metadata.managedFields;
  }
}

/**
 * The live object's managers; none if its managedFields cannot be read.
 * (A cache of decoded sets per object was tried: a write almost always finds
 * a revision no earlier write decoded, and keeping the sets of the managers
 * it wrote costs about 15 KB per Deployment, so under round-robin updates of
 * many objects it missed and cost more than it saved.)
 */
function decodeLive(live: KObject | undefined): Managers {
  try { return decodeManagedFields(live?.metadata.managedFields); } catch (e) {
    if (e instanceof ManagedFieldsError) return new Map();
    throw e;
  }
}

// ---- apply ----

export interface ApplyOptions {
  manager: string;
  force: boolean;
  subresource?: string;
  now: Date;
}

/** The conflicts of an apply, by manager identifier. */
export class ApplyConflicts extends Error {
  constructor(readonly conflicts: Map<string, FieldSet>, readonly managers: Managers) {
    super('apply conflicts');
  }

  /** The conflicts as (manager, path) pairs, managers sorted, paths in set order. */
  list(): { id: string; entry: ManagedEntry; path: string[] }[] {
    const out: { id: string; entry: ManagedEntry; path: string[] }[] = [];
    for (const id of [...this.conflicts.keys()].sort()) {
      const entry = this.managers.get(id)!;
      this.conflicts.get(id)!.iterate((path) => out.push({ id, entry, path }));
    }
    return out;
  }

  without(allowed: FieldSet): ApplyConflicts {
    const left = new Map<string, FieldSet>();
    for (const [id, s] of this.conflicts) {
      const d = difference(s, allowed);
      if (!d.empty()) left.set(id, d);
    }
    return new ApplyConflicts(left, this.managers);
  }

  /** Upstream's 409 (NewConflictError). */
  status(): StatusError {
    const list = this.list();
    const who = (e: ManagedEntry) => {
      let s = JSON.stringify(e.manager);
      if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
      return e.operation === 'Update' ? `${s} using ${e.apiVersion}` : s;
    };
    let message: string;
    const [only] = list;
    if (only && list.length === 1) {
      message = `Apply failed with 1 conflict: conflict with ${who(only.entry)}: ${pathString(only.path)}`;
    } else {
      const lines: string[] = [];
      let last: string | undefined;
      for (const c of list) {
        if (c.id !== last) { lines.push(`conflicts with ${who(c.entry)}:`); last = c.id; }
        lines.push(`- ${pathString(c.path)}`);
      }
      message = `Apply failed with ${list.length} conflicts: ${lines.join('\n')}`;
    }
    return new StatusError({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict',
      details: { causes: list.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${who(c.entry)}`, field: pathString(c.path) })) },
      code: 409,
    });
  }
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const i = av.indexOf('/');
  const [group, version] = i < 0 ? ['', av] : [av.slice(0, i), av.slice(i + 1)];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** A plain (non-Status) error: upstream answers it as a 500 whose message is the error text. */
function internalError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

/**
 * Server-side apply of `config` (the parsed apply patch) by opts.manager to
 * `live` (undefined: the object does not exist yet). Returns the object to
 * store, its managedFields set; throws the Status upstream answers (409 for
 * conflicts).
 */
export function applyConfiguration(def: ResourceInfo, live: KObject | undefined, config: Obj, opts: ApplyOptions): KObject {
  if (config.apiVersion !== apiVersionOf(def) || config.kind !== def.kind) {
    throw errors.badRequest(`invalid object type: ${gvkString(config.apiVersion, config.kind)}`);
  }
  const cm = isMap(config.metadata) ? config.metadata : undefined;
  if (cm && cm.managedFields !== undefined && cm.managedFields !== null) throw errors.badRequest('metadata.managedFields must be nil');
  const scope = scopeOf(def, opts.subresource);
  const verrs = validate(scope.type, config);
  if (verrs.length) {
    const nn = `${typeof cm?.namespace === 'string' ? cm.namespace : ''}/${typeof cm?.name === 'string' ? cm.name : ''}`;
    throw internalError(`failed to create typed patch object (${nn}; ${gvkString(config.apiVersion, config.kind)}): ${formatValidationErrors(verrs)}`);
  }
  let managers: Managers;
  try {
    managers = decodeManagedFields(live?.metadata.managedFields);
  } catch (e) {
    if (e instanceof ManagedFieldsError) throw internalError(`failed to decode managed fields: ${e.message}`);
    throw e;
  }
  // (The merge shares unchanged parts of `before` with its result, which defaulting then edits: no frozen zero here.)
  const before = live ? withoutManagedFields(live) : structuredClone(scope.zero);
  const id = managerIdentifier(opts.manager, 'Apply', scope.version, opts.subresource);

  let result: { merged: unknown; managers: Managers };
  try {
    result = structuredApply(scope, before, config, managers, id, opts.force);
  } catch (e) {
    if (!(e instanceof ApplyConflicts)) throw e;
    // kubectl's first server-side apply after client-side ones: conflicts on fields it set itself are not conflicts.
    if (opts.manager !== 'kubectl') throw e.status();
    const allowed = allowedFromLastApplied(def, scope, live);
    if (!allowed) throw e.status();
    const left = e.without(allowed);
    if (left.conflicts.size) throw left.status();
    result = structuredApply(scope, before, config, managers, id, true);
  }

  const changed = !deepEqual(before, result.merged);
  const entry = result.managers.get(id);
  if (entry) {
    entry.apiVersion = scope.version;
    if (opts.subresource) entry.subresource = opts.subresource;
    if (changed) entry.time = timeOf(opts.now);
  }
  capUpdateManagers(result.managers);
  const obj = (changed ? dropNulls(result.merged) : structuredClone(before)) as KObject;
  obj.metadata ??= {};
  // Keep the client-side apply annotation in step when kubectl applies server-side (lastAppliedUpdater).
  const ann = obj.metadata.annotations;
  if (opts.manager === 'kubectl' && ann && typeof ann[LAST_APPLIED] === 'string' && ann[LAST_APPLIED]) {
    const value = lastAppliedValue(config);
    obj.metadata.annotations = { ...ann };
    if (Buffer.byteLength(JSON.stringify(obj.metadata.annotations)) - Buffer.byteLength(ann[LAST_APPLIED]) + value.length <= 256 * 1024) {
      obj.metadata.annotations[LAST_APPLIED] = value;
    } else {
      delete obj.metadata.annotations[LAST_APPLIED];
    }
  }
  writeManaged(obj, result.managers);
  return obj;
}

/** Upstream's Updater.Apply (merge, prune what the manager stopped applying, update ownership) and stripMeta. */
function structuredApply(scope: Scope, live: Obj, config: Obj, managersIn: Managers, id: string, force: boolean):
{ merged: unknown; managers: Managers } {
  const managers: Managers = new Map(managersIn);
  const t = scope.type;
  let merged = merge(t, live, config);
  const lastSet = managers.get(id)?.set;
  let set = toFieldSet(t, config);
  if (!scope.ignored.empty()) set = recursiveDifference(set, scope.ignored);
  const prev = managers.get(id);
  managers.set(id, { manager: prev?.manager ?? managerName(id), operation: 'Apply', apiVersion: scope.version, time: prev?.time, subresource: prev?.subresource, set });
  if (lastSet && !lastSet.empty()) merged = prune(t, merged, managers, lastSet);
  const c = compare(t, live, merged, scope.skip);
  updateOthers(managers, id, c, force);
  const own = managers.get(id);
  if (own) {
    const stripped = difference(own.set, STRIP);
    if (stripped.empty()) managers.delete(id); else managers.set(id, { ...own, set: stripped });
  }
  return { merged, managers };
}

function managerName(id: string): string {
  return (JSON.parse(id) as { manager?: string }).manager ?? '';
}

/** Removes what the applier applied last time and no longer applies, unless someone (or its new config) owns it. */
function prune(t: TypeNode, merged: unknown, managers: Managers, lastSet: FieldSet): unknown {
  const last = ensureNamedFieldsAreMembers(lastSet, t);
  let pruned = removeItems(t, merged, last);
  // addBackOwnedItems
  let managed = new FieldSet();
  for (const e of managers.values()) managed = union(managed, e.set);
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(t, merged), t);
  let prunedSet = ensureNamedFieldsAreMembers(toFieldSet(t, pruned), t);
  pruned = removeItems(t, merged, difference(mergedSet, union(prunedSet, ensureNamedFieldsAreMembers(managed, t))));
  // addBackDanglingItems
  prunedSet = ensureNamedFieldsAreMembers(toFieldSet(t, pruned), t);
  return removeItems(t, merged, intersection(difference(mergedSet, prunedSet), last));
}

/** The fields kubectl's last client-side apply set to what the object still holds (lastAppliedManager). */
function allowedFromLastApplied(def: ResourceInfo, scope: Scope, live: KObject | undefined): FieldSet | undefined {
  const raw = live?.metadata.annotations?.[LAST_APPLIED];
  if (!raw) return undefined;
  let last: unknown;
  try { last = JSON.parse(raw); } catch { return undefined; }
  if (!isMap(last) || last.apiVersion !== apiVersionOf(def)) return undefined;
  if (validate(scope.type, last).length) return undefined;
  const set = toFieldSet(scope.type, last);
  const c = compare(scope.type, last, withoutManagedFields(live!));
  return difference(difference(difference(set, c.modified), c.added), c.removed);
}

/** The annotation kubectl's client-side apply keeps: the configuration without it, keys sorted, as Go's encoder writes it. */
function lastAppliedValue(config: Obj): string {
  const copy = structuredClone(config);
  const meta = copy.metadata;
  if (isMap(meta) && isMap(meta.annotations)) {
    delete meta.annotations[LAST_APPLIED];
  }
  return `${sortedJSON(copy)}\n`;
}

function sortedJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJSON).join(',')}]`;
  if (isMap(v)) {
    return `{${Object.keys(v).sort().map((k) => `${goString(k)}:${sortedJSON(v[k])}`).join(',')}}`;
  }
  return v === undefined ? 'null' : typeof v === 'string' ? goString(v) : JSON.stringify(v);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

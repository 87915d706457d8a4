/**
 * metadata.managedFields as upstream reads and writes it
 * (k8s.io/apimachinery/pkg/util/managedfields/internal): one entry per
 * manager identity, which is the manager's name, the operation, the API
 * version (Update only) and the subresource.
 */
import { FieldSet, FieldsV1Error, fromFieldsV1, goJSON, toFieldsV1, union } from './fieldset.js';

export type Operation = 'Apply' | 'Update';

export interface ManagedEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

/** Entries keyed by their manager identifier. */
export type Managers = Map<string, ManagedEntry>;

export interface ManagedFieldsEntryJSON {
  manager?: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** Upstream's BuildManagerIdentifier: the entry as JSON without time and fields (and without apiVersion for appliers). */
export function managerIdentifier(manager: string, operation: Operation, apiVersion: string, subresource?: string): string {
  let s = '{';
  const parts: string[] = [];
  if (manager) parts.push(`"manager":${goJSON(manager)}`);
  parts.push(`"operation":${goJSON(operation)}`);
  if (operation === 'Update' && apiVersion) parts.push(`"apiVersion":${goJSON(apiVersion)}`);
  if (subresource) parts.push(`"subresource":${goJSON(subresource)}`);
  s += parts.join(',');
  return `${s}}`;
}

export function entryIdentifier(e: Pick<ManagedEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return managerIdentifier(e.manager, e.operation, e.apiVersion, e.subresource);
}

export class ManagedFieldsError extends Error {}

/**
 * The FieldsV1 each set read from a stored object was read from: a set an
 * update leaves as it was (most managers' on most writes) is written back as
 * that same value instead of being serialized again. Stored managedFields
 * are what encodeManagedFields wrote, so the value is what it would write.
 */
const readFrom = new WeakMap<FieldSet, Record<string, unknown>>();

/** managedFields of [] or [{}]: the client asks to drop all of them. */
export function isResetManagedFields(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  if (v.length === 0) return true;
  return v.length === 1 && v[0] !== null && typeof v[0] === 'object' && Object.keys(v[0] as object).length === 0;
}

/** Reads managedFields; canonical re-spells client-written path elements. Throws ManagedFieldsError as upstream refuses. */
export function decodeManagedFields(v: unknown, canonical = false): Managers {
  const out: Managers = new Map();
  if (v === undefined || v === null) return out;
  if (!Array.isArray(v)) throw new ManagedFieldsError('managedFields must be a list');
  v.forEach((raw, i) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    const e = raw as Partial<ManagedFieldsEntryJSON>;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1) throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === ('' as string)) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    let set: FieldSet;
    try {
      set = fromFieldsV1(e.fieldsV1 ?? {}, canonical);
      if (!canonical && e.fieldsV1) readFrom.set(set, e.fieldsV1);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new ManagedFieldsError(`error decoding versioned set: ${err.message}`);
      throw err;
    }
    const entry: ManagedEntry = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      set,
    };
    if (typeof e.time === 'string' && e.time) entry.time = e.time;
    if (typeof e.subresource === 'string' && e.subresource) entry.subresource = e.subresource;
    out.set(entryIdentifier(entry), entry);
  });
  return out;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The entries as upstream writes them: Apply before Update, then oldest first, then by manager, version, subresource. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntryJSON[] {
  const entries = [...managers.values()].filter((e) => !e.set.empty());
  entries.sort((p, q) => cmp(p.operation, q.operation) || seconds(p.time) - seconds(q.time) ||
    cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource ?? '', q.subresource ?? ''));
  return entries.map((e) => {
    const j: Partial<ManagedFieldsEntryJSON> = {};
    if (e.manager) j.manager = e.manager;
    j.operation = e.operation;
    j.apiVersion = e.apiVersion;
    if (e.time) j.time = e.time;
    j.fieldsType = 'FieldsV1';
    j.fieldsV1 = (readFrom.get(e.set) as ManagedFieldsEntryJSON['fieldsV1'] | undefined) ?? toFieldsV1(e.set);
    if (e.subresource) j.subresource = e.subresource;
    return j as ManagedFieldsEntryJSON;
  });
}

/** Upstream's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT = 'ancient-changes';

/** Merges the oldest Update entries beyond the cap into one "ancient-changes" entry per API version. */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managers.entries()].filter(([, e]) => e.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managers.get(a)!.time) - seconds(managers.get(b)!.time) || cmp(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (const id of updaters) {
    if (length <= max) break;
    const e = managers.get(id)!;
    const bucket = managerIdentifier(ANCIENT, 'Update', e.apiVersion);
    const first = firstOfVersion.get(e.apiVersion);
    if (first === undefined) { firstOfVersion.set(e.apiVersion, id); continue; }
    if (!managers.has(bucket)) {
      const f = managers.get(first)!;
      managers.delete(first);
      managers.set(bucket, { ...f, manager: ANCIENT, subresource: undefined });
    }
    const b = managers.get(bucket)!;
    managers.set(bucket, { ...b, set: union(e.set, b.set), time: e.time });
    managers.delete(id);
    length--;
  }
}

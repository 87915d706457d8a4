/**
 * What an admission plugin sees of a request (k8s.io/apiserver's
 * admission.Attributes), and the plugin interface: a mutating half (Admit)
 * and a validating half (Validate), as upstream's plugins have.
 */
import { errors } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { Lookup } from './lookup.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import type { WriteContext } from '../apimachinery/write-context.js';

export type Operation = 'CREATE' | 'UPDATE';

export interface AdmissionAttributes {
  operation: Operation;
  /** The resource as requested (group, version, plural, kind). */
  def: Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>;
  /** '' for the main resource, else "status", "scale", "binding", ... */
  subresource: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
  /** The object being written; mutating plugins change it in place. */
  object: KObject;
  /** The stored object, for updates. */
  oldObject?: KObject;
  ctx: WriteContext;
  lookup: Lookup;
  /** Per-request memo, so the two phases of a plugin share lookups. */
  memo: Map<string, unknown>;
  /** The server generated the object's name from generateName (upstream does it after admission: webhooks see no name). */
  nameGenerated?: boolean;
}

/** What ValidatingAdmissionPolicy reads of a request, DELETE included (no object then, the deleted one as oldObject). */
export type PolicyAttributes = Omit<AdmissionAttributes, 'operation' | 'object' | 'memo'> & {
  operation: Operation | 'DELETE';
  object: KObject | null;
  /** For DELETE: the DeleteOptions fields the request gave. */
  deleteOptions?: Record<string, unknown>;
};

export interface AdmissionPlugin {
  name: string;
  /** The mutating phase (MutationInterface.Admit); runs before the strategy's validation. */
  admit?(a: AdmissionAttributes): Promise<void> | void;
  /** The validating phase (ValidationInterface.Validate); runs after the strategy's validation. */
  validate?(a: AdmissionAttributes): Promise<void> | void;
}

/**
 * admission.NewForbidden: 403 naming the resource and object
 * (`pods "web" is forbidden: <why>`).
 */
export function forbidden(a: Pick<AdmissionAttributes, 'name' | 'def'> & { object: KObject | null }, why: string): Error {
  const name = a.name || a.object?.metadata?.name || a.object?.metadata?.generateName || 'Unknown';
  return errors.forbidden({ group: a.def.group, resource: a.def.resource }, name, why);
}

/** Memoized per-request lookup. */
export async function memoized<T>(a: AdmissionAttributes, key: string, load: () => Promise<T>): Promise<T> {
  if (a.memo.has(key)) return a.memo.get(key) as T;
  const v = await load();
  a.memo.set(key, v);
  return v;
}

/** Go's utilerrors.NewAggregate(errs).Error(): one message bare, several (deduplicated) in brackets. */
export function aggregateMessage(msgs: string[]): string {
  const seen: string[] = [];
  for (const m of msgs) if (!seen.includes(m)) seen.push(m);
  const [only] = seen;
  return only !== undefined && seen.length === 1 ? only : `[${seen.join(', ')}]`;
}

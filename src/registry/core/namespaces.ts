/**
 * core/v1 namespaces.
 *
 * Deletion (namespace REST Delete and NamespaceLifecycle admission): the
 * immortal namespaces cannot be deleted; the first DELETE marks the namespace
 * (deletionTimestamp, status.phase Terminating) and it stays while
 * spec.finalizers is non-empty; a DELETE meanwhile answers 409 until the
 * namespace controller has emptied spec.finalizers via the finalize
 * subresource.
 */
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { errors } from '../../apimachinery/errors.js';
import type { KObject } from '../../apimachinery/object.js';
import type { ResourceDef } from '../types.js';
import { isObject, normalizeMeta } from './decode.js';
import { metaValidators, nameIsDNSLabel } from '../../validation/object-meta.js';
import { validateNamespaceFinalizers, validateNamespaceSpec, validateNamespaceStatus } from '../../validation/namespace.js';

/** SetDefaults_Namespace + SetDefaults_NamespaceStatus (the label is also kept by Canonicalize on update). */
export function defaultNamespace(ns: Record<string, any>): void {
  normalizeMeta(ns);
  const name = ns.metadata?.name;
  if (name) (ns.metadata.labels ??= {})['kubernetes.io/metadata.name'] = name;
  // NamespaceSpec and NamespaceStatus are structs: Go always writes them.
  if (!isObject(ns.spec)) ns.spec = {};
  if (Array.isArray(ns.spec.finalizers) && ns.spec.finalizers.length === 0) delete ns.spec.finalizers;
  if (!isObject(ns.status)) ns.status = {};
  if (!ns.status.phase) ns.status.phase = 'Active';
}

/** PrepareForCreate: status Active and the "kubernetes" finalizer, which only the namespace controller removes. */
function prepareForCreate(ns: KObject): void {
  ns.status = { phase: 'Active' };
  const spec = (ns.spec ??= {}) as Record<string, any>;
  const finalizers: string[] = spec.finalizers ?? [];
  if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
}

/** PrepareForUpdate: a plain update changes neither spec.finalizers nor status. */
function prepareForUpdate(ns: KObject, old: KObject): void {
  const spec = (isObject(ns.spec) ? ns.spec : (ns.spec = {})) as Record<string, any>;
  const oldFinalizers = (old.spec as any)?.finalizers;
  if (oldFinalizers === undefined) delete spec.finalizers; else spec.finalizers = oldFinalizers;
  if (old.status === undefined) delete ns.status; else ns.status = old.status;
}

/** The finalize subresource's PrepareForUpdate: spec (finalizers) may change, status may not. */
export function prepareNamespaceFinalize(ns: KObject, old: KObject): void {
  if (old.status === undefined) delete ns.status; else ns.status = old.status;
}

/** NamespaceLifecycle's immortal namespaces. */
export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

const NAMESPACES = { group: '', resource: 'namespaces' };

/** Before any deletion: immortal namespaces are refused; a terminating one with finalizers left is a conflict. */
function admitDelete(ns: KObject): void {
  const name = ns.metadata.name ?? '';
  if (IMMORTAL_NAMESPACES.includes(name)) throw errors.forbidden(NAMESPACES, name, 'this namespace may not be deleted');
  if (ns.metadata.deletionTimestamp && ((ns.spec as any)?.finalizers ?? []).length) {
    throw errors.conflict(NAMESPACES, name, 'The system is ensuring all content is removed from this namespace.  ' +
      'Upon completion, this namespace will automatically be purged by the system.');
  }
}

/** Marks the namespace Terminating; it must stay while spec.finalizers remain. */
function prepareForDelete(ns: KObject): boolean {
  const status = (isObject(ns.status) ? ns.status : (ns.status = {})) as Record<string, any>;
  status.phase = 'Terminating';
  return ((ns.spec as any)?.finalizers ?? []).length > 0;
}

const meta = metaValidators({ namespaced: false, nameFn: nameIsDNSLabel });

export const namespaces: ResourceDef<Namespace> = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  // No deletecollection: namespaces are deleted one by one.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: [
    { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
    { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
  ],
  storageVersionHash: 'Q3oi5N2YM8M=',
  storagePrefix: '/core/namespaces',
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults: defaultNamespace,
  prepareForCreate,
  prepareForUpdate,
  validate: (obj) => [...meta.validate(obj), ...validateNamespaceSpec(obj)],
  // The strategy runs ValidateNamespace, then ValidateNamespaceUpdate; status and finalize have their own.
  validateUpdate: (obj, old, subresource) => {
    if (subresource === 'status') return [...meta.validateUpdate(obj, old), ...validateNamespaceStatus(obj)];
    if (subresource === 'finalize') return [...meta.validateUpdate(obj, old), ...validateNamespaceFinalizers(obj)];
    return [...meta.validate(obj), ...validateNamespaceSpec(obj), ...meta.validateUpdate(obj, old)];
  },
  admitDelete,
  prepareForDelete,
  fieldSelectors: {
    'status.phase': (ns) => ns.status?.phase ?? '',
  },
  returnDeletedObject: true,
};

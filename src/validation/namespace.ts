/**
 * Namespace validation as v1.32's ValidateNamespace: ObjectMeta (in the
 * registry) plus spec.finalizers, each a qualified name that, without a
 * prefix, must be a standard finalizer. The path carries no index, as upstream's.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { arr, qualifiedName, str, type Obj } from './common.js';

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** validateFinalizerName: apimachinery's qualified-name check, then core's standard-name check. */
export function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = qualifiedName(name, path);
  if (name.split('/').length === 1 && !STANDARD_FINALIZERS.has(name)) {
    errs.push(field.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/** ValidateNamespace without its ValidateObjectMeta. */
export function validateNamespaceSpec(ns: Obj): FieldError[] {
  return arr(ns.spec?.finalizers).flatMap((f) => validateFinalizerName(str(f), 'spec.finalizers'));
}

/** ValidateNamespaceStatusUpdate's phase rule (upstream spells the path "status.Phase"). */
export function validateNamespaceStatus(ns: Obj): FieldError[] {
  const phase = str(ns.status?.phase);
  if (!ns.metadata?.deletionTimestamp) {
    return phase === 'Active' ? [] : [field.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === 'Terminating' ? [] : [field.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

/** ValidateNamespaceFinalizeUpdate's finalizer rule (indexed paths here). */
export function validateNamespaceFinalizers(ns: Obj): FieldError[] {
  return arr(ns.spec?.finalizers).flatMap((f, i) => validateFinalizerName(str(f), `spec.finalizers[${i}]`));
}

/**
 * Validation of the options every write carries (k8s.io/apimachinery's
 * pkg/apis/meta/v1/validation: ValidateFieldManager, ValidateDryRun,
 * ValidateFieldValidation, ValidateCreateOptions, ValidateUpdateOptions,
 * ValidatePatchOptions), shared by the HTTP handlers and field management.
 */
import { errors } from '../apimachinery/errors.js';
import { field, type FieldError } from '../apimachinery/field-errors.js';

export const APPLY_PATCH = 'application/apply-patch+yaml';
const PATCH_TYPES = new Set(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', APPLY_PATCH]);

/** Upstream's FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX = 128;

/** Printable as Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX) errs.push(field.tooLong('fieldManager', FIELD_MANAGER_MAX));
  let i = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!;
      errs.push({
        type: 'FieldValueInvalid', field: 'fieldManager', value: manager,
        detail: `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})`,
      });
    }
    i += Buffer.byteLength(ch);
  }
  return errs;
}

/**
 * ValidatePatchOptions: an apply patch needs a fieldManager, other patches
 * may not say force. Called once the content type is known to be a patch type.
 */
export function checkPatchOptions(contentType: string, q: URLSearchParams): void {
  if (!PATCH_TYPES.has(contentType)) return;
  const errs: FieldError[] = [];
  const manager = q.get('fieldManager') ?? '';
  if (contentType !== APPLY_PATCH) {
    if (q.has('force')) errs.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
  } else if (!manager) {
    errs.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  }
  errs.push(...fieldManagerErrors(manager), ...dryRunErrors(q), ...fieldValidationErrors(q));
  if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs);
}

/** ValidateDryRun: every dryRun value must be "All" (the value printed as Go's %#v of a []string). */
export function dryRunErrors(q: URLSearchParams): FieldError[] {
  const values = q.getAll('dryRun');
  if (values.every((v) => v === 'All')) return [];
  return [field.notSupported('dryRun', { goSyntax: `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}` }, ['All'])];
}

/** ValidateFieldValidation: "", Ignore, Warn or Strict. */
export function fieldValidationErrors(q: URLSearchParams): FieldError[] {
  const v = q.get('fieldValidation') ?? '';
  return ['', 'Ignore', 'Strict', 'Warn'].includes(v) ? [] : [field.notSupported('fieldValidation', v, ['', 'Ignore', 'Strict', 'Warn'])];
}

/**
 * ValidateCreateOptions / ValidateUpdateOptions: fieldManager, dryRun and fieldValidation, all
 * their errors in one 422, before the body is read.
 */
export function validateWriteOptions(q: URLSearchParams, optionsKind: 'CreateOptions' | 'UpdateOptions'): void {
  const manager = q.get('fieldManager') ?? '';
  const errs = [...fieldManagerErrors(manager), ...dryRunErrors(q), ...fieldValidationErrors(q)];
  if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
}

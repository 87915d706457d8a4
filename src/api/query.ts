import { errors } from '../apimachinery/errors.js';
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { fieldManagerErrors } from '../fieldmanager/request.js';

/** strconv.ParseBool, which is what upstream uses for boolean query parameters. */
export function parseBool(v: string | null, name: string): boolean | undefined {
  if (v === null) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(v)) return false;
  throw errors.badRequest(`failed to parse "${name}": strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

export function parseIntParam(v: string | null, name: string): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`failed to parse "${name}": strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** dryRun must be absent or exactly "All" (per options kind, as upstream words it). */
export function parseDryRun(q: URLSearchParams, optionsKind: string): boolean {
  const values = q.getAll('dryRun');
  if (values.length === 0) return false;
  if (values.every((v) => v === 'All')) return true;
  const go = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [{
    type: 'FieldValueNotSupported', field: 'dryRun', value: { goSyntax: go }, detail: 'supported values: "All"',
  }]);
}

/** ValidateDryRun: every dryRun value must be "All" (the value printed as Go's %#v of a []string). */
export function dryRunErrors(q: URLSearchParams): FieldError[] {
  const values = q.getAll('dryRun');
  if (values.every((v) => v === 'All')) return [];
  return [field.notSupported('dryRun', { goSyntax: `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}` }, ['All'])];
}

/** ValidateFieldValidation: "", Ignore, Warn or Strict. */
export function fieldValidationErrors(q: URLSearchParams): FieldError[] {
  const v = q.getAll('fieldValidation')[0] ?? '';
  return ['', 'Ignore', 'Strict', 'Warn'].includes(v) ? [] : [field.notSupported('fieldValidation', v, ['', 'Ignore', 'Strict', 'Warn'])];
}

/**
 * ValidateCreateOptions / ValidateUpdateOptions: fieldManager, dryRun and fieldValidation, all
 * their errors in one 422, before the body is read.
 */
export function validateWriteOptions(q: URLSearchParams, optionsKind: 'CreateOptions' | 'UpdateOptions'): void {
  const manager = q.getAll('fieldManager')[0] ?? '';
  const errs = [...fieldManagerErrors(manager), ...dryRunErrors(q), ...fieldValidationErrors(q)];
  if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
}

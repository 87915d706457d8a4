import { errors } from '../apimachinery/errors.js';

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
/** The write options a query names, as CreateOptions/UpdateOptions decode them (omitempty fields left out). */
export function requestedOptions(q: URLSearchParams): { dryRun?: string[]; fieldManager?: string; fieldValidation?: string } {
  const out: { dryRun?: string[]; fieldManager?: string; fieldValidation?: string } = {};
  const dryRun = q.getAll('dryRun');
  if (dryRun.length) out.dryRun = dryRun;
  const manager = q.get('fieldManager');
  if (manager) out.fieldManager = manager;
  const validation = q.get('fieldValidation');
  if (validation) out.fieldValidation = validation;
  return out;
}

export function parseDryRun(q: URLSearchParams, optionsKind: string): boolean {
  const values = q.getAll('dryRun');
  if (values.length === 0) return false;
  if (values.every((v) => v === 'All')) return true;
  const go = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [{
    type: 'FieldValueNotSupported', field: 'dryRun', value: { goSyntax: go }, detail: 'supported values: "All"',
  }]);
}

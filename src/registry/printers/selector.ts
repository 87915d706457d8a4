/**
 * metav1.LabelSelector as upstream prints it: LabelSelectorAsSelector(sel).String(),
 * used raw by the Deployment printer and through metav1.FormatLabelSelector by the others.
 *
 * Kept here rather than using selectors/labels.ts formatLabelSelector, which orders
 * matchLabels before matchExpressions; upstream sorts all requirements by key and
 * renders unconvertible selectors as "<error>".
 */
import { isQualifiedName, isValidLabelValue } from '../../meta/names.js';
import { byteOrder } from './cells.js';

interface Req { key: string; op: string; values: string[] }

const OPS: Record<string, string> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** labels.NewRequirement's checks; false where it would return an error. */
function valid(r: Req): boolean {
  if (isQualifiedName(r.key).length) return false;
  switch (r.op) {
    case 'in': case 'notin': if (r.values.length === 0) return false; break;
    case '=': if (r.values.length !== 1) return false; break;
    default: if (r.values.length !== 0) return false;
  }
  return r.values.every((v) => isValidLabelValue(v).length === 0);
}

/** Requirement.String(). */
function render(r: Req): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(byteOrder).join(',');
  switch (r.op) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case '=': return `${r.key}=${values}`;
    default: return `${r.key} ${r.op} (${values})`;
  }
}

/** The selector's string; undefined where LabelSelectorAsSelector fails. Nil and empty give "". */
export function selectorString(sel: any): string | undefined {
  if (!sel) return '';
  const reqs: Req[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, op: '=', values: [String(v)] });
  for (const e of sel.matchExpressions ?? []) {
    const op = OPS[e?.operator];
    if (!op) return undefined;
    reqs.push({ key: String(e.key ?? ''), op, values: [...(e.values ?? [])].map(String) });
  }
  if (!reqs.every(valid)) return undefined;
  // Selector.Add sorts by key; Array.prototype.sort is stable, as Go's insertion sort is for these sizes.
  reqs.sort((a, b) => byteOrder(a.key, b.key));
  return reqs.map(render).join(',');
}

/** metav1.FormatLabelSelector: "<error>" when unconvertible, "<none>" when empty. */
export function formatLabelSelector(sel: any): string {
  const s = selectorString(sel);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

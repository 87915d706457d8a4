/**
 * Runs the rules over parsed manifests: rule selection (--enable/--disable),
 * suppression by annotation, and parse problems as findings.
 *
 * Suppression follows kube-linter's idea (an annotation on the object names
 * the checks to skip, `ignore-check.kube-linter.io/<check>`), with one key
 * listing several ids: `winkube.io/lint-ignore: WK101,WK105` (`*` for all).
 */
import { isObject } from '../meta/json.js';
import type { ParseProblem } from './parse-manifests.js';
import { PARSE_ERROR, RULES } from './rules/index.js';
import { objectRef } from './workload.js';
import type { ClusterDescription, Finding, Manifest, Rule } from './types.js';

export const IGNORE_ANNOTATION = 'winkube.io/lint-ignore';

export interface LintOptions {
  /** Only these rule ids (all when empty or absent). */
  enable?: readonly string[];
  disable?: readonly string[];
}

export class UnknownRuleError extends Error {}

export function selectRules(opts: LintOptions): Rule[] {
  const known = new Set(RULES.map((r) => r.id));
  for (const id of [...(opts.enable ?? []), ...(opts.disable ?? [])]) {
    if (!known.has(id) && id !== PARSE_ERROR.id) throw new UnknownRuleError(`unknown rule ${id} (rules: ${[...known].join(', ')})`);
  }
  const enable = new Set(opts.enable ?? []);
  const disable = new Set(opts.disable ?? []);
  return RULES.filter((r) => (enable.size === 0 || enable.has(r.id)) && !disable.has(r.id));
}

function ignored(m: Manifest): Set<string> {
  const v: unknown = isObject(m.obj.metadata) && isObject(m.obj.metadata.annotations) ? m.obj.metadata.annotations[IGNORE_ANNOTATION] : undefined;
  return new Set(typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);
}

const order = (a: Finding, b: Finding): number =>
  (a.source.file < b.source.file ? -1 : a.source.file > b.source.file ? 1 : 0) || a.source.line - b.source.line ||
  (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export function lint(manifests: readonly Manifest[], problems: readonly ParseProblem[], cluster: ClusterDescription, opts: LintOptions = {}): Finding[] {
  const rules = selectRules(opts);
  const ctx = { cluster, manifests };
  const out: Finding[] = [];
  if (!(opts.disable ?? []).includes(PARSE_ERROR.id)) {
    for (const p of problems) {
      out.push({ rule: PARSE_ERROR.id, severity: 'error', object: { kind: '', name: '' }, path: '', message: p.message, fix: 'fix the YAML or JSON syntax', source: p.source });
    }
  }
  for (const m of manifests) {
    const skip = ignored(m);
    if (skip.has('*')) continue;
    const object = objectRef(m.obj);
    for (const rule of rules) {
      if (skip.has(rule.id)) continue;
      for (const hit of rule.check(m, ctx)) {
        out.push({ rule: rule.id, severity: hit.severity ?? rule.severity, object, path: hit.path, message: hit.message, fix: hit.fix, source: m.source });
      }
    }
  }
  return out.sort(order);
}

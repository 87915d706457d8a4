/**
 * Matching shared by several plugins: tolerations (v1 Toleration.ToleratesTaint),
 * node selector terms (component-helpers nodeaffinity) and the pod's required
 * node affinity.
 */
import { toleratesTaint } from '../../meta/tolerations.js';
export function tolerationsTolerateTaint(tolerations: readonly any[], taint: any): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** v1helper.FindMatchingUntoleratedTaint with the given effects. */
export function findUntoleratedTaint(taints: readonly any[], tolerations: readonly any[], effects: readonly string[]): any {
  for (const taint of taints) {
    if (!effects.includes(taint?.effect)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

function parseInt64(v: string): number | undefined {
  return /^[+-]?\d+$/.test(v) ? Number(v) : undefined;
}

function requirementMatches(r: any, get: (key: string) => string | undefined): boolean {
  const v = get(r?.key);
  const values: string[] = Array.isArray(r?.values) ? r.values : [];
  switch (r?.operator) {
    case 'In': return v !== undefined && values.includes(v);
    case 'NotIn': return v === undefined || !values.includes(v);
    case 'Exists': return v !== undefined;
    case 'DoesNotExist': return v === undefined;
    case 'Gt': case 'Lt': {
      const [bound] = values;
      if (v === undefined || bound === undefined || values.length !== 1) return false;
      const a = parseInt64(v), b = parseInt64(bound);
      if (a === undefined || b === undefined) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default: return false;
  }
}

/** One NodeSelectorTerm: its expressions and fields all match; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: any, node: any): boolean {
  const exprs: any[] = term?.matchExpressions ?? [];
  const fields: any[] = term?.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels: Record<string, string> = node?.metadata?.labels ?? {};
  for (const e of exprs) if (!requirementMatches(e, (k) => (k in labels ? labels[k] : undefined))) return false;
  for (const f of fields) {
    if (!requirementMatches(f, (k) => (k === 'metadata.name' ? node?.metadata?.name : undefined))) return false;
  }
  return true;
}

/** A NodeSelector: any of its terms matches. */
export function nodeSelectorMatches(sel: any, node: any): boolean {
  for (const t of sel?.nodeSelectorTerms ?? []) if (nodeSelectorTermMatches(t, node)) return true;
  return false;
}

/** nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector and the required node affinity. */
export function requiredNodeAffinityMatches(pod: any, node: any): boolean {
  const selector: Record<string, string> | undefined = pod?.spec?.nodeSelector;
  if (selector) {
    const labels: Record<string, string> = node?.metadata?.labels ?? {};
    for (const k in selector) if (labels[k] !== selector[k]) return false;
  }
  const required = pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required != null) return nodeSelectorMatches(required, node);
  return true;
}

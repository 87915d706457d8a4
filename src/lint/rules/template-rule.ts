/**
 * What most rules share: they look at one pod template, knowing the OS it
 * targets.
 */
import { podTemplateOf, type PodTemplate } from '../workload.js';
import { podTarget, type PodTarget } from '../pod-os.js';
import type { Hit, Manifest, RuleContext } from '../types.js';

export type TemplateCheck = (t: PodTemplate, target: PodTarget, m: Manifest, ctx: RuleContext) => Hit[];

export function onTemplates(check: TemplateCheck): (m: Manifest, ctx: RuleContext) => Hit[] {
  return (m, ctx) => {
    const t = podTemplateOf(m);
    return t ? check(t, podTarget(t, ctx.manifests), m, ctx) : [];
  };
}

/** Only for templates that target Windows (pinned or inferred). */
export function onWindowsTemplates(check: TemplateCheck): (m: Manifest, ctx: RuleContext) => Hit[] {
  return onTemplates((t, target, m, ctx) => (target.os === 'windows' ? check(t, target, m, ctx) : []));
}

/**
 * A template with spec.os.name windows is refused by the API server for the
 * fields validateWindows forbids (reported as WK100), except a StatefulSet's:
 * v1.32 does not validate its template's spec.
 */
export const apiRefusesWindowsFields = (t: PodTemplate): boolean => t.spec.os?.name === 'windows' && t.kind !== 'StatefulSet';

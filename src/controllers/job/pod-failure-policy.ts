/** matchPodFailurePolicy (pkg/controller/job/pod_failure_policy.go). */
import type { KObject } from '../../apimachinery/object.js';

export interface PolicyMatch {
  /** The Job's failure message when a FailJob rule matched. */
  failJobMessage?: string;
  /** Whether the failure counts towards backoffLimit (false for Ignore). */
  countFailed: boolean;
  action?: string;
}

function matchingContainer(statuses: any[] | undefined, req: any): any {
  for (const cs of statuses ?? []) {
    const t = cs?.state?.terminated;
    if (!t) continue;
    if (req.containerName != null && req.containerName !== cs.name) continue;
    if (!t.exitCode) continue;
    const listed = (req.values ?? []).includes(t.exitCode);
    if (req.operator === 'In' ? listed : req.operator === 'NotIn' ? !listed : false) return cs;
  }
  return undefined;
}

/** The first rule a failed pod matches decides what its failure does. */
export function matchPodFailurePolicy(policy: any, pod: KObject & { status?: any }): PolicyMatch {
  if (!policy) return { countFailed: true };
  const ns = pod.metadata.namespace; const name = pod.metadata.name;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    let what: string | undefined;
    if (rule.onExitCodes) {
      const cs = matchingContainer(pod.status?.containerStatuses, rule.onExitCodes) ?? matchingContainer(pod.status?.initContainerStatuses, rule.onExitCodes);
      if (cs) what = `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${cs.state.terminated.exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const cond = (pod.status?.conditions ?? []).find((c: any) =>
        rule.onPodConditions.some((p: any) => p.type === c.type && (p.status ?? 'True') === c.status));
      if (cond) what = `Pod ${ns}/${name} has condition ${cond.type} matching ${rule.action} rule at index ${index}`;
    }
    if (what === undefined) continue;
    switch (rule.action) {
      case 'Ignore': return { countFailed: false, action: 'Ignore' };
      case 'Count': return { countFailed: true, action: 'Count' };
      case 'FailJob': return { failJobMessage: what, countFailed: true, action: 'FailJob' };
      default: continue; // FailIndex needs backoffLimitPerIndex, which this controller does not implement
    }
  }
  return { countFailed: true };
}

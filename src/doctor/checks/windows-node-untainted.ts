/**
 * The Windows user guide's advice for mixed clusters: taint the Windows
 * nodes (os=windows:NoSchedule) so Linux pods without an OS selector,
 * Helm charts' and operators' included, cannot land on them. A node's
 * condition taints (node.kubernetes.io/...) come and go and do not count.
 */
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts } from '../cluster-facts.js';
import { WINDOWS_USER_GUIDE_OS_WORKLOADS } from '../references.js';

export const windowsNodeUntainted: Check = {
  id: 'windows-node-untainted',
  title: 'Windows nodes without a NoSchedule taint on a cluster of Linux and Windows nodes',
  run(c) {
    const f = clusterFacts(c);
    if (!f.mixed) return [];
    const out: DoctorFinding[] = [];
    for (const n of f.windowsNodes) {
      const taints = n.taints.filter((t) => !t.key.startsWith('node.kubernetes.io/') && (t.effect === 'NoSchedule' || t.effect === 'NoExecute'));
      if (taints.length > 0) continue;
      out.push({
        check: this.id, severity: 'warning', object: { apiVersion: 'v1', kind: 'Node', name: n.name },
        evidence: [`spec.taints: ${n.taints.length ? n.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ') : 'none'}`],
        message: `Windows node ${n.name} has no NoSchedule taint: Linux pods without an OS selector can be scheduled onto it`,
        explanation: 'Linux pods without a kubernetes.io/os nodeSelector (many published charts and operators have none) are scheduled onto Windows nodes, where their Linux images do not run. '
          + 'Tainting the Windows nodes keeps every pod that does not tolerate the taint off them.',
        fix: `kubectl taint nodes ${n.name} os=windows:NoSchedule, and add the toleration {key: os, value: windows, effect: NoSchedule} to the Windows workloads (or to a RuntimeClass's scheduling.tolerations)`,
        reference: WINDOWS_USER_GUIDE_OS_WORKLOADS,
      });
    }
    return out;
  },
};

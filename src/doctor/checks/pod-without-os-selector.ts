/**
 * On a cluster with Linux and Windows nodes, a pod that nothing pins to an
 * OS (no spec.os, kubernetes.io/os nodeSelector or affinity, RuntimeClass)
 * is scheduled onto whichever node fits, and on the other OS its image does
 * not run. DaemonSet pods are judged with their DaemonSet, mirror pods
 * belong to their node.
 */
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts, isLivePod, nodeOfPod, ownerKind, podRef } from '../cluster-facts.js';
import { templateTarget } from '../pod-os-target.js';
import { WINDOWS_USER_GUIDE_OS_WORKLOADS } from '../references.js';

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

export const podWithoutOSSelector: Check = {
  id: 'pod-without-os-selector',
  title: 'pods without a kubernetes.io/os nodeSelector or RuntimeClass on a cluster of Linux and Windows nodes',
  run(c) {
    if (!clusterFacts(c).mixed) return [];
    const out: DoctorFinding[] = [];
    for (const pod of c.pods) {
      if (!isLivePod(pod) || ownerKind(pod) === 'DaemonSet' || pod.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) continue;
      const target = templateTarget(c, pod.spec, pod.metadata, 'spec', 'Pod');
      if (target.pinnedBy) continue;
      const node = nodeOfPod(c, pod);
      const owner = pod.metadata?.ownerReferences?.find((o) => o.controller);
      out.push({
        check: this.id, severity: 'warning', object: podRef(pod),
        evidence: [
          'spec.nodeSelector: no kubernetes.io/os', 'spec.runtimeClassName: none',
          ...(node ? [`spec.nodeName: ${node.name} (kubernetes.io/os: ${node.os})`] : []),
          ...(owner ? [`metadata.ownerReferences: ${owner.kind} ${owner.name}`] : []),
        ],
        message: `pod has no OS selector${node ? ` and runs on ${node.os === 'windows' ? 'Windows' : 'Linux'} node ${node.name}` : ''}`,
        explanation: 'Windows and Linux nodes are scheduled alike: without a kubernetes.io/os nodeSelector (or a RuntimeClass that sets one) a pod can land on a node of the other OS, where its containers do not start. '
          + 'Use a nodeSelector on kubernetes.io/os, taints on the Windows nodes with tolerations on the Windows pods, or RuntimeClasses to ensure OS-specific workloads land on the appropriate container host.',
        fix: `add nodeSelector kubernetes.io/os: ${target.os ?? 'linux'} to the ${owner ? `${owner.kind}'s pod template` : 'pod'}`,
        reference: WINDOWS_USER_GUIDE_OS_WORKLOADS,
      });
    }
    return out;
  },
};

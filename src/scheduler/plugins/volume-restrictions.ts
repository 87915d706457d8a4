import type { Plugin } from '../framework.js';
import { SKIP, unresolvable } from '../status.js';
import { podClaimNames } from './volumes.js';

export const ERR_REASON_RWOP_CONFLICT = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';

/** VolumeRestrictions: a ReadWriteOncePod claim already used by another pod makes the pod wait. */
export function volumeRestrictions(): Plugin {
  return {
    name: 'VolumeRestrictions',
    events: ['AssignedPodDelete', 'PvcChange'],
    podDependentPreFilter: true,
    preFilter(_state, pod, snap) {
      const rwop = podClaimNames(pod.pod).filter((n) => (snap.listers.pvc(pod.namespace, n)?.spec?.accessModes ?? []).includes('ReadWriteOncePod'));
      if (!rwop.length) return SKIP;
      for (const node of snap.nodes) {
        for (const p of node.pods.values()) {
          if (p.uid === pod.uid || p.namespace !== pod.namespace) continue;
          const used = podClaimNames(p.pod);
          if (rwop.some((n) => used.includes(n))) return unresolvable(ERR_REASON_RWOP_CONFLICT);
        }
      }
      return SKIP;
    },
  };
}

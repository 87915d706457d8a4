import type { Plugin } from '../framework.js';
import { SKIP, SUCCESS, unresolvable } from '../status.js';
import { nodeSelectorMatches } from './helpers.js';
import { podClaimNames } from './volumes.js';
import { findBestMatch, NOT_SUPPORTED_PROVISIONER } from '../../component-helpers/pv-helpers.js';

/**
 * FindPodVolumes for one node: each delayed claim takes the smallest free
 * volume that fits the node (volumes differ between claims); a claim no
 * volume fits needs a class that can provision. Returns the chosen volume
 * per claim name (undefined: to provision), or undefined when a claim can
 * be neither bound nor provisioned.
 */
export function matchDelayedClaims(delayed: { pvc: any; cls: any }[], pvs: Iterable<any>, node: any): Map<string, any> | undefined {
  const chosen = new Map<string, any>();
  const excluded = new Set<string>();
  const all = [...pvs];
  for (const { pvc, cls } of delayed) {
    const pv = findBestMatch(pvc, all, true, { fits: (v) => !v.spec?.nodeAffinity?.required || nodeSelectorMatches(v.spec.nodeAffinity.required, node), excluded });
    if (pv) { excluded.add(pv.metadata.name); chosen.set(pvc.metadata.name, pv); continue; }
    if (!cls.provisioner || cls.provisioner === NOT_SUPPORTED_PROVISIONER) return undefined;
    chosen.set(pvc.metadata.name, undefined);
  }
  return chosen;
}

export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ERR_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

interface State { bound: string[]; delayed: any[] }

/**
 * VolumeBinding for pods with PersistentVolumeClaims: missing, deleted and
 * unbound Immediate claims make the pod unschedulable everywhere; a bound
 * volume's node affinity restricts the nodes. Claims of WaitForFirstConsumer
 * classes pass where a free volume fits the node, or where the class can
 * provision; PreBind (the scheduler's binding cycle) then binds or provisions.
 */
export function volumeBinding(): Plugin {
  return {
    name: 'VolumeBinding',
    events: ['NodeAdd', 'NodeUpdate', 'PvcChange', 'PvChange', 'StorageClassChange'],
    preFilter(state, pod, snap) {
      const names = podClaimNames(pod.pod);
      if (!names.length) return SKIP;
      const s: State = { bound: [], delayed: [] };
      let unboundImmediate = false;
      for (const name of names) {
        const pvc = snap.listers.pvc(pod.namespace, name);
        if (!pvc) return unresolvable(`persistentvolumeclaim "${name}" not found`);
        if (pvc.metadata?.deletionTimestamp) return unresolvable(`persistentvolumeclaim "${name}" is being deleted`);
        if (pvc.spec?.volumeName) { s.bound.push(pvc.spec.volumeName); continue; }
        const cls = pvc.spec?.storageClassName ? snap.listers.storageClass(pvc.spec.storageClassName) : undefined;
        if (cls?.volumeBindingMode === 'WaitForFirstConsumer') s.delayed.push({ pvc, cls });
        else unboundImmediate = true;
      }
      if (unboundImmediate) return unresolvable(ERR_UNBOUND_IMMEDIATE);
      state.set('VolumeBinding', s);
      return SUCCESS;
    },
    filter(state, _pod, node, snap) {
      const s = state.get('VolumeBinding') as State;
      for (const pvName of s.bound) {
        const pv = snap.listers.pv(pvName);
        if (!pv) return unresolvable(ERR_REASON_PV_NOT_EXIST);
        const required = pv.spec?.nodeAffinity?.required;
        if (required && !nodeSelectorMatches(required, node.node)) return unresolvable(ERR_REASON_NODE_CONFLICT);
      }
      if (s.delayed.length && !matchDelayedClaims(s.delayed, snap.listers.pvs?.() ?? [], node.node)) return unresolvable(ERR_REASON_BIND_CONFLICT);
      return SUCCESS;
    },
  };
}

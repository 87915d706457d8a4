/**
 * /mutate (opt-in): places pods of Windows images on Windows nodes. A pod
 * whose images are Windows images and that says nothing about its OS
 * (no kubernetes.io/os nodeSelector or node affinity, no spec.os, no
 * RuntimeClass) gets the `kubernetes.io/os: windows` nodeSelector and the
 * toleration of the `os=windows:NoSchedule` taint that the Kubernetes docs
 * ("Guide for scheduling Windows containers") suggest for Windows nodes.
 * Pods that mix Windows and Linux images are left alone: no placement fits
 * them, and /validate says so.
 */
import type { Toleration } from 'kubernetes-types/core/v1.js';
import { isObject } from '../meta/json.js';
import { imageOS } from '../lint/image-os.js';
import { podTarget } from '../lint/pod-os.js';
import { containersOf, podTemplateOf } from '../lint/workload.js';
import type { Obj } from '../lint/types.js';
import type { AdmissionRequest, Decision, JSONPatchOp } from './admission-review.js';

export const WINDOWS_TOLERATION: Toleration = { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' };

/** RFC 6901: `~` and `/` escaped in a JSON pointer token. */
const pointerToken = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

function imagesAreWindows(pod: Obj): boolean {
  const t = podTemplateOf({ obj: pod, source: { file: 'admission', line: 0 } });
  if (!t) return false;
  const oses = containersOf(t).map((c) => (typeof c.container.image === 'string' ? imageOS(c.container.image) : undefined));
  return oses.some((o) => o?.windows === true && !o.linux) && !oses.some((o) => o?.linux === true && !o.windows);
}

const tolerates = (tolerations: unknown[]): boolean => tolerations.some((t) => isObject(t)
  && ((t.operator === 'Exists' && (t.key === undefined || t.key === '' || t.key === 'os'))
    || (t.key === 'os' && t.value === 'windows' && (t.operator ?? 'Equal') === 'Equal'))
  && (t.effect === undefined || t.effect === '' || t.effect === 'NoSchedule'));

/** The JSON patch that pins a Windows-image pod to Windows nodes, empty when it needs none. */
export function windowsPlacementPatch(pod: Obj): JSONPatchOp[] {
  const t = podTemplateOf({ obj: pod, source: { file: 'admission', line: 0 } });
  if (!t || t.kind !== 'Pod' || !imagesAreWindows(pod)) return [];
  if (podTarget(t, []).pinnedBy !== undefined) return [];
  const spec = t.spec;
  const ops: JSONPatchOp[] = isObject(spec.nodeSelector)
    ? [{ op: 'add', path: `/spec/nodeSelector/${pointerToken('kubernetes.io/os')}`, value: 'windows' }]
    : [{ op: 'add', path: '/spec/nodeSelector', value: { 'kubernetes.io/os': 'windows' } }];
  const tolerations: unknown = spec.tolerations;
  if (!Array.isArray(tolerations)) ops.push({ op: 'add', path: '/spec/tolerations', value: [WINDOWS_TOLERATION] });
  else if (!tolerates(tolerations)) ops.push({ op: 'add', path: '/spec/tolerations/-', value: WINDOWS_TOLERATION });
  return ops;
}

export function mutateRequest(req: AdmissionRequest): Decision {
  if (req.operation !== 'CREATE' || req.subResource || req.kind !== 'Pod' || !req.object) return { allowed: true };
  const patch = windowsPlacementPatch(req.object);
  return patch.length ? { allowed: true, patch } : { allowed: true };
}

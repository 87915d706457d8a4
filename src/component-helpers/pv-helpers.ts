/**
 * The binding rules of kube-controller-manager's persistentvolume-binder
 * (pkg/controller/volume/persistentvolume/pv_controller.go, index.go and
 * component-helpers/storage/volume): which volume a claim may bind to, and
 * the fields and annotations a binding writes on both objects. Shared with
 * the scheduler's VolumeBinding plugin, as upstream's component-helpers are.
 */
import { cmpQuantity, parseQuantity } from '../apimachinery/quantity.js';
import { fromLabelSelector } from '../selectors/labels.js';

type Obj = any;

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';

/** GetPersistentVolumeClaimClass: spec.storageClassName, else the beta annotation. */
export function claimClass(claim: Obj): string {
  return claim.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? claim.spec?.storageClassName ?? '';
}

/** GetPersistentVolumeClass. */
export function volumeClass(pv: Obj): string {
  return pv.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? pv.spec?.storageClassName ?? '';
}

/** IsVolumeBoundToClaim: the claimRef names the claim, and its UID (when set) is the claim's. */
export function isVolumeBoundToClaim(pv: Obj, claim: Obj): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** CheckAccessModes: every mode the claim requests is one the volume offers. */
function accessModesMatch(claim: Obj, pv: Obj): boolean {
  const offered = new Set<string>(pv.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((m: string) => offered.has(m));
}

/** CheckVolumeModeMismatches: Filesystem is the default on both sides. */
function volumeModeMatches(claim: Obj, pv: Obj): boolean {
  return (claim.spec?.volumeMode ?? 'Filesystem') === (pv.spec?.volumeMode ?? 'Filesystem');
}

const requested = (claim: Obj) => parseQuantity(claim.spec?.resources?.requests?.storage ?? '0');
const capacity = (pv: Obj) => parseQuantity(pv.spec?.capacity?.storage ?? '0');

/**
 * FindMatchingVolume: a volume pre-bound to the claim wins; on the
 * controller's path (no node) under delayed binding nothing else does (the
 * scheduler or a provisioner decides); otherwise the smallest Available
 * volume of the claim's class with the requested access modes, volume mode,
 * capacity and labels (selector).
 */
export function findBestMatch(claim: Obj, volumes: Iterable<Obj>, delayBinding: boolean,
  /** The scheduler's path: the node's labels satisfy the volume's node affinity; volumes already chosen for the pod's other claims. */
  node?: { fits(pv: Obj): boolean; excluded: ReadonlySet<string> }): Obj {
  const want = requested(claim);
  const cls = claimClass(claim);
  const selector = claim.spec?.selector ? fromLabelSelector(claim.spec.selector) : undefined;
  let best: Obj;
  for (const pv of volumes) {
    if (node?.excluded.has(pv.metadata.name)) continue;
    if (cmpQuantity(capacity(pv), want) < 0) continue;
    if (!volumeModeMatches(claim, pv)) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    const fits = node ? node.fits(pv) : true;
    // A volume pre-bound to the claim is its only candidate: on a node it does not fit, nothing matches.
    if (isVolumeBoundToClaim(pv, claim)) return fits ? pv : undefined;
    if (!fits) continue;
    if (!node && delayBinding) continue;
    if (pv.status?.phase !== 'Available') continue;
    if (pv.spec?.claimRef) continue;
    if (selector && !selector.matches(pv.metadata?.labels)) continue;
    if (volumeClass(pv) !== cls) continue;
    if (!accessModesMatch(claim, pv)) continue;
    if (!best || cmpQuantity(capacity(pv), capacity(best)) < 0) best = pv;
  }
  return best;
}

/** checkVolumeSatisfyClaim: why a volume the user named cannot serve the claim, or undefined. */
export function volumeSatisfyError(pv: Obj, claim: Obj): string | undefined {
  if (cmpQuantity(capacity(pv), requested(claim)) < 0) return 'requested PV is too small';
  if (volumeClass(pv) !== claimClass(claim)) return 'storageClassName does not match';
  if (!volumeModeMatches(claim, pv)) return 'incompatible volumeMode';
  if (!accessModesMatch(claim, pv)) return 'incompatible accessMode';
  return undefined;
}

/** GetReference of a claim: the claimRef a volume bound or pre-bound to it carries. */
export function claimReference(claim: Obj): Obj {
  return {
    kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name,
    uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion,
  };
}

/**
 * bindVolumeToClaim: the volume's claimRef names the claim with its UID
 * (GetReference, with the claim's resourceVersion); a claimRef written
 * here, not by the user, gets bound-by-controller. Returns undefined when
 * nothing changes.
 */
export function bindVolumeToClaim(pv: Obj, claim: Obj): Obj {
  const ref = pv.spec?.claimRef;
  if (ref && ref.uid === claim.metadata.uid && ref.name === claim.metadata.name && ref.namespace === claim.metadata.namespace) return undefined;
  const out = structuredClone(pv);
  out.spec.claimRef = claimReference(claim);
  if (!ref) (out.metadata.annotations ??= {})[ANN_BOUND_BY_CONTROLLER] = 'yes';
  return out;
}

/**
 * bindClaimToVolume: spec.volumeName, bound-by-controller when the user did
 * not name the volume, and bind-completed. Undefined when nothing changes.
 */
export function bindClaimToVolume(claim: Obj, pv: Obj): Obj {
  const ann = claim.metadata?.annotations ?? {};
  const nameSet = claim.spec?.volumeName === pv.metadata.name;
  if (nameSet && ann[ANN_BIND_COMPLETED] === 'yes') return undefined;
  const out = structuredClone(claim);
  const a = (out.metadata.annotations ??= {});
  if (!nameSet) {
    out.spec.volumeName = pv.metadata.name;
    a[ANN_BOUND_BY_CONTROLLER] = 'yes';
  }
  a[ANN_BIND_COMPLETED] = 'yes';
  return out;
}

/** updateClaimStatus(Bound, volume): the phase, and the volume's access modes and capacity. */
export function boundClaimStatus(claim: Obj, pv: Obj): Obj {
  return { ...(claim.status ?? {}), phase: 'Bound', accessModes: [...(pv.spec?.accessModes ?? [])], capacity: { ...(pv.spec?.capacity ?? {}) } };
}

/** Whether a claim is bound for the scheduler's PreBind wait (checkBindings): named volume and bind-completed. */
export function claimBindingCompleted(claim: Obj): boolean {
  return !!claim?.spec?.volumeName && claim.metadata?.annotations?.[ANN_BIND_COMPLETED] !== undefined;
}

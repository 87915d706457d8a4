/**
 * The Secrets and ConfigMaps a pod names (pkg/api/v1/pod/util.go
 * VisitPodSecretNames and VisitPodConfigmapNames, all containers): what the
 * Node authorizer lets a kubelet read for the pods bound to it, and what a
 * node may not put in the mirror pods it creates.
 */
import type { Container, EphemeralContainer, PodSpec, Volume } from 'kubernetes-types/core/v1.js';

/** api.MirrorPodAnnotationKey: set on the API's copy of a kubelet's static pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

type AnyContainer = Container | EphemeralContainer;

function containersOf(spec: PodSpec): AnyContainer[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

/** A (validated, so single) volume source's secret; projected sources are visited one by one. */
function volumeSecret(v: Volume): string | undefined {
  if (v.azureFile) return v.azureFile.secretName;
  if (v.cephfs) return v.cephfs.secretRef?.name;
  if (v.cinder) return v.cinder.secretRef?.name;
  if (v.flexVolume) return v.flexVolume.secretRef?.name;
  if (v.rbd) return v.rbd.secretRef?.name;
  if (v.secret) return v.secret.secretName;
  if (v.scaleIO) return v.scaleIO.secretRef.name;
  if (v.iscsi) return v.iscsi.secretRef?.name;
  if (v.storageos) return v.storageos.secretRef?.name;
  if (v.csi) return v.csi.nodePublishSecretRef?.name;
  return undefined;
}

/** Every Secret name the pod references, empty names skipped (duplicates kept, in upstream's visiting order). */
export function podSecretNames(spec: PodSpec): string[] {
  const out: (string | undefined)[] = (spec.imagePullSecrets ?? []).map((r) => r.name);
  for (const c of containersOf(spec)) {
    for (const e of c.envFrom ?? []) out.push(e.secretRef?.name);
    for (const e of c.env ?? []) out.push(e.valueFrom?.secretKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    if (v.projected) {
      for (const s of v.projected.sources ?? []) out.push(s.secret?.name);
    } else {
      out.push(volumeSecret(v));
    }
  }
  return out.filter((n): n is string => !!n);
}

/** Every ConfigMap name the pod references, empty names skipped. */
export function podConfigMapNames(spec: PodSpec): string[] {
  const out: (string | undefined)[] = [];
  for (const c of containersOf(spec)) {
    for (const e of c.envFrom ?? []) out.push(e.configMapRef?.name);
    for (const e of c.env ?? []) out.push(e.valueFrom?.configMapKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    if (v.projected) {
      for (const s of v.projected.sources ?? []) out.push(s.configMap?.name);
    } else if (v.configMap) {
      out.push(v.configMap.name);
    }
  }
  return out.filter((n): n is string => !!n);
}

/**
 * The PersistentVolumeClaims the pod's volumes use: a claim by name, and a
 * generic ephemeral volume's claim `<pod>-<volume>` (ephemeral.VolumeClaimName).
 */
export function podClaimNames(podName: string, spec: PodSpec): string[] {
  const out: string[] = [];
  for (const v of spec.volumes ?? []) {
    if (v.persistentVolumeClaim) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) out.push(`${podName}-${v.name}`);
  }
  return out.filter((n) => n !== '');
}

/** Helpers the PersistentVolume and PersistentVolumeClaim printers share (pkg/apis/core/helper). */

const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
export function accessModes(modes: string[] | undefined): string {
  const have = new Set(modes ?? []);
  const out: string[] = [];
  for (const [mode, short] of [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']] as const) {
    if (have.has(mode)) out.push(short);
  }
  return out.join(',');
}

/** GetPersistentVolume(Claim)Class: the beta annotation, when present, outranks spec.storageClassName. */
export function storageClass(obj: any): string {
  const annotations = obj?.metadata?.annotations ?? {};
  if (Object.prototype.hasOwnProperty.call(annotations, BETA_STORAGE_CLASS)) return annotations[BETA_STORAGE_CLASS];
  return obj?.spec?.storageClassName ?? '';
}

/** The phase, or Terminating once deletion has begun. */
export function volumePhase(obj: any): string {
  return obj?.metadata?.deletionTimestamp ? 'Terminating' : obj?.status?.phase ?? '';
}

/** The claims a pod's volumes name: persistentVolumeClaim and generic ephemeral volumes (`<pod>-<volume>`). */
export function podClaimNames(pod: any): string[] {
  const out: string[] = [];
  for (const v of pod?.spec?.volumes ?? []) {
    if (v?.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
    else if (v?.ephemeral) out.push(`${pod.metadata?.name}-${v.name}`);
  }
  return out;
}

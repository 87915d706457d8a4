/** Taints and tolerations (core/v1), and the one matching rule the scheduler, the DaemonSet controller and taint eviction share. */
export interface Taint { key: string; value?: string; effect: string; timeAdded?: string }
export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }

/** v1 Toleration.ToleratesTaint. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t?.effect && t.effect !== taint.effect) return false;
  if (t?.key && t.key !== taint.key) return false;
  switch (t?.operator ?? '') {
    case '': case 'Equal': return (t?.value ?? '') === (taint.value ?? '');
    case 'Exists': return true;
    default: return false;
  }
}

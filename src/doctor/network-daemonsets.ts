/**
 * The node networking DaemonSets the Windows guides deploy: kube-proxy and
 * the CNI (flannel, Calico), each as a Linux DaemonSet and a Windows
 * (HostProcess) one. A DaemonSet is recognised by its name, its k8s-app
 * label or its containers' images, and its OS by its pod template.
 */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { templateTarget } from './pod-os-target.js';
import type { ClusterSnapshot } from './types.js';

export type NetworkComponent = 'kube-proxy' | 'flannel' | 'calico';
export const NETWORK_COMPONENTS: readonly NetworkComponent[] = ['kube-proxy', 'flannel', 'calico'];

const PATTERN: Record<NetworkComponent, RegExp> = {
  'kube-proxy': /kube-proxy/,
  flannel: /flannel/,
  calico: /calico-node/,
};

export function componentOf(ds: DaemonSet): NetworkComponent | undefined {
  const words = [ds.metadata?.name ?? '', ds.metadata?.labels?.['k8s-app'] ?? '',
    ...(ds.spec?.template.spec?.containers ?? []).map((c) => c.image ?? '')];
  return NETWORK_COMPONENTS.find((c) => words.some((w) => PATTERN[c].test(w)));
}

/** The OS a DaemonSet's pods run on: its template's pin, else both (a DaemonSet without one covers every node). */
export function daemonSetOS(c: ClusterSnapshot, ds: DaemonSet): 'linux' | 'windows' | 'any' {
  const t = templateTarget(c, ds.spec?.template.spec, ds.spec?.template.metadata, 'spec.template.spec', 'DaemonSet');
  return t.pinnedBy && t.os ? t.os : 'any';
}

export const dsRef = (ds: DaemonSet) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: ds.metadata?.namespace ?? 'default', name: ds.metadata?.name ?? '' });

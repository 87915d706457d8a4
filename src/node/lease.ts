/**
 * The node heartbeat Lease (pkg/kubelet/nodelease via
 * component-helpers/apimachinery/lease): `kube-node-lease/<node>`, owned by
 * the Node, held by the node name for 40 s and renewed every 10 s
 * (a quarter of the duration).
 */
import { rfc3339Micro } from '../apimachinery/time.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40;
export const NODE_LEASE_RENEW_INTERVAL_MS = 10_000;
/** KubeletConfiguration nodeStatusReportFrequency: a status is posted this often when nothing changed. */
export const NODE_STATUS_REPORT_FREQUENCY_MS = 5 * 60_000;



/** The kubelet renews at a quarter of nodeLeaseDurationSeconds (pkg/kubelet: renewIntervalFraction 0.25). */
export function leaseRenewIntervalMs(leaseDurationSeconds: number): number {
  return leaseDurationSeconds * 1000 * 0.25;
}

export function nodeLease(nodeName: string, nodeUID: string, now: Date, durationSeconds = NODE_LEASE_DURATION_SECONDS): Record<string, any> {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: nodeName,
      namespace: NODE_LEASE_NAMESPACE,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUID }],
    },
    spec: { holderIdentity: nodeName, leaseDurationSeconds: durationSeconds, renewTime: rfc3339Micro(now) },
  };
}

/**
 * A NodePort (or LoadBalancer) Service with backends on Windows nodes:
 * informational, because the troubleshooting guide's known limitation
 * surprises everyone who tests it from the node itself.
 */
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Check, DoctorFinding } from '../types.js';
import { isLivePod, nodeOfPod } from '../cluster-facts.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

export function selects(svc: Service, pod: Pod): boolean {
  const sel = svc.spec?.selector;
  if (!sel || Object.keys(sel).length === 0) return false;
  if ((pod.metadata?.namespace ?? 'default') !== (svc.metadata?.namespace ?? 'default')) return false;
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

export const windowsNodePortFromNode: Check = {
  id: 'windows-nodeport-from-node',
  title: 'NodePort Services with Windows backends (not reachable from the Windows node itself)',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const svc of c.services) {
      const type = svc.spec?.type;
      if (type !== 'NodePort' && type !== 'LoadBalancer') continue;
      const backends = c.pods.filter((p) => isLivePod(p) && selects(svc, p) && nodeOfPod(c, p)?.os === 'windows');
      if (backends.length === 0) continue;
      const ports = (svc.spec?.ports ?? []).map((p) => p.nodePort).filter((p): p is number => p !== undefined);
      out.push({
        check: this.id, severity: 'info',
        object: { apiVersion: 'v1', kind: 'Service', namespace: svc.metadata?.namespace ?? 'default', name: svc.metadata?.name ?? '' },
        evidence: [`spec.type: ${type}${ports.length ? `, nodePort ${ports.join(', ')}` : ''}`,
          `Windows backends: ${backends.map((p) => `${p.metadata?.name ?? ''} (${p.spec?.nodeName ?? ''})`).join(', ')}`],
        message: 'the Service\'s NodePort is not reachable from a Windows node itself',
        explanation: 'My Windows node cannot access NodePort type Services: Local NodePort access from the node itself fails. This is a known limitation. NodePort access works from other nodes or external clients.',
        fix: 'test the NodePort from another node or from outside the cluster, not from the Windows node that hosts it',
        reference: WINDOWS_DEBUGGING_TIPS,
      });
    }
    return out;
  },
};

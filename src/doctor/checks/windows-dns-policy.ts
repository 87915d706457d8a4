/**
 * DNS on Windows nodes, as "DNS for Services and Pods" lists it:
 * ClusterFirstWithHostNet is not supported there, and a Windows pod has a
 * single DNS suffix (its namespace's), so extra search domains are not
 * searched.
 */
import type { Check, DoctorFinding } from '../types.js';
import { isLivePod, nodeOfPod, podRef } from '../cluster-facts.js';
import { DNS_WINDOWS } from '../references.js';

export const windowsDNSPolicy: Check = {
  id: 'windows-dns-policy',
  title: 'Windows pods with dnsPolicy ClusterFirstWithHostNet, or search domains Windows does not use',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const pod of c.pods) {
      const node = nodeOfPod(c, pod);
      if (node?.os !== 'windows' || !isLivePod(pod)) continue;
      const ns = pod.metadata?.namespace ?? 'default';
      if (pod.spec?.dnsPolicy === 'ClusterFirstWithHostNet') {
        out.push({
          check: this.id, severity: 'warning', object: podRef(pod),
          evidence: ['spec.dnsPolicy: ClusterFirstWithHostNet', `spec.nodeName: ${node.name} (kubernetes.io/os: windows)`],
          message: `dnsPolicy ClusterFirstWithHostNet is not supported for pods on Windows node ${node.name}`,
          explanation: 'ClusterFirstWithHostNet is not supported for Pods that run on Windows nodes. Windows treats all names with a `.` as a FQDN and skips FQDN resolution.',
          fix: 'use dnsPolicy ClusterFirst (the default), and fully qualified names (<service>.<namespace>.svc.cluster.local) for Services in other namespaces',
          reference: DNS_WINDOWS,
        });
      }
      const searches = pod.spec?.dnsConfig?.searches ?? [];
      if (searches.length > 0) {
        out.push({
          check: this.id, severity: 'info', object: podRef(pod),
          evidence: [`spec.dnsConfig.searches: ${searches.join(', ')}`, `spec.nodeName: ${node.name} (kubernetes.io/os: windows)`],
          message: 'the pod sets DNS search domains, but a Windows pod resolves with one DNS suffix only',
          explanation: 'On Linux, you have a DNS suffix list, which is used after resolution of a name as fully qualified has failed. '
            + `On Windows, you can only have 1 DNS suffix, which is the DNS suffix associated with that Pod's namespace (example: ${ns}.svc.cluster.local).`,
          fix: 'use fully qualified names for anything outside the pod\'s namespace instead of relying on extra search domains',
          reference: DNS_WINDOWS,
        });
      }
    }
    return out;
  },
};

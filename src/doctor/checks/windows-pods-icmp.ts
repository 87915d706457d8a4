/**
 * Pods on Windows nodes cannot ping outside the cluster: informational,
 * once per cluster that runs pod-network pods on Windows nodes.
 */
import type { Check } from '../types.js';
import { isLivePod, nodeOfPod } from '../cluster-facts.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

export const windowsPodsICMP: Check = {
  id: 'windows-pods-icmp',
  title: 'pods on Windows nodes: no outbound ICMP',
  run(c) {
    const pods = c.pods.filter((p) => isLivePod(p) && !p.spec?.hostNetwork && nodeOfPod(c, p)?.os === 'windows');
    if (pods.length === 0) return [];
    return [{
      check: this.id, severity: 'info', object: { kind: '', name: '' },
      evidence: [`${pods.length} pod${pods.length === 1 ? '' : 's'} on the pod network of Windows nodes`],
      message: 'ping from Windows pods to resources outside the cluster gets no answer',
      explanation: 'My Windows Pods cannot ping external resources: Windows Pods do not have outbound rules programmed for the ICMP protocol. However, TCP/UDP is supported. '
        + 'When trying to demonstrate connectivity to resources outside of the cluster, substitute ping <IP> with corresponding curl <IP> commands.',
      fix: 'test outside connectivity from Windows pods with curl (TCP) rather than ping; if TCP fails too, check the ExceptionList of the node\'s cni.conf',
      reference: WINDOWS_DEBUGGING_TIPS,
    }];
  },
};

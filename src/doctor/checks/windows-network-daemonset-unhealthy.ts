/**
 * kube-proxy, flannel or Calico DaemonSets meant for Windows nodes that are
 * scheduled nowhere, or whose pods on Windows nodes are not ready (crashing,
 * stuck creating, or on a node that stopped reporting).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts, containersWithPaths, nodeOfPod } from '../cluster-facts.js';
import { componentOf, daemonSetOS, dsRef } from '../network-daemonsets.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

const isReady = (p: Pod) => p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') === true;

function podState(p: Pod): string {
  const waiting = containersWithPaths(p).find((x) => x.waiting?.reason);
  if (waiting?.waiting?.reason) return `${waiting.name} ${waiting.waiting.reason}${waiting.waiting.message ? `: ${waiting.waiting.message}` : ''}`;
  const restarts = (p.status?.containerStatuses ?? []).reduce((n, s) => n + s.restartCount, 0);
  const ready = p.status?.conditions?.find((x) => x.type === 'Ready');
  return `${p.status?.phase ?? 'Unknown'}, Ready ${ready?.status ?? 'Unknown'}${ready?.reason ? ` (${ready.reason})` : ''}${restarts ? `, ${restarts} restarts` : ''}`;
}

export const windowsNetworkDaemonSetUnhealthy: Check = {
  id: 'windows-network-daemonset-unhealthy',
  title: 'kube-proxy, flannel or Calico DaemonSets not scheduled, or not ready, on Windows nodes',
  run(c) {
    if (clusterFacts(c).windowsNodes.length === 0) return [];
    const out: DoctorFinding[] = [];
    for (const ds of c.daemonSets) {
      const component = componentOf(ds);
      if (!component || daemonSetOS(c, ds) === 'linux') continue;
      const uid = ds.metadata?.uid;
      const pods = c.pods.filter((p) => p.metadata?.ownerReferences?.some((o) => o.uid === uid) && nodeOfPod(c, p)?.os === 'windows');
      const desired = ds.status?.desiredNumberScheduled ?? 0;
      const base = { check: this.id, severity: 'error' as const, object: dsRef(ds), reference: WINDOWS_DEBUGGING_TIPS };
      if (desired === 0 && daemonSetOS(c, ds) === 'windows') {
        out.push({
          ...base,
          evidence: [`status.desiredNumberScheduled: 0`, `spec.template.spec.nodeSelector: ${JSON.stringify(ds.spec?.template.spec?.nodeSelector ?? {})}`],
          message: `${component} DaemonSet is scheduled on no Windows node`,
          explanation: `The DaemonSet's node selector, affinity or tolerations match none of the Windows nodes, so no Windows node runs ${component}.`,
          fix: 'compare the template\'s nodeSelector, affinity and tolerations with the Windows nodes\' labels and taints (kubectl get nodes --show-labels)',
        });
        continue;
      }
      const notReady = pods.filter((p) => !isReady(p));
      if (notReady.length === 0) continue;
      out.push({
        ...base,
        evidence: [`status: desiredNumberScheduled ${desired}, numberReady ${ds.status?.numberReady ?? 0}`,
          ...notReady.map((p) => `pod ${p.metadata?.name ?? ''} on ${p.spec?.nodeName ?? ''}: ${podState(p)}`)],
        message: `${component} is not ready on Windows node${notReady.length > 1 ? 's' : ''} ${notReady.map((p) => p.spec?.nodeName ?? '').join(', ')}`,
        explanation: `Without a running ${component} on a Windows node, ${component === 'kube-proxy' ? 'Services are not programmed into HNS there' : 'pods there get no network'}. `
          + (component === 'flannel' ? 'Flanneld stuck in "Waiting for the Network to be created", or a missing /run/flannel/subnet.env, are the troubleshooting guide\'s known causes. ' : '')
          + 'A node that stopped reporting leaves its pods not ready too.',
        fix: `kubectl -n ${ds.metadata?.namespace ?? ''} logs and describe the pods listed; on the node, check the HNS network (Get-HnsNetwork) and the node's services`,
      });
    }
    return out;
  },
};

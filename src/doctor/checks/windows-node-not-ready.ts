/**
 * A Windows node whose Ready condition is not True: the kubelet (or its
 * runtime or network) is down, the node takes no new pods, and after the
 * eviction timeout its pods are evicted.
 */
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts } from '../cluster-facts.js';
import { DEBUG_CLUSTER } from '../references.js';

export const windowsNodeNotReady: Check = {
  id: 'windows-node-not-ready',
  title: 'Windows nodes whose Ready condition is not True',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const n of clusterFacts(c).windowsNodes) {
      const ready = n.node.status?.conditions?.find((x) => x.type === 'Ready');
      if (ready?.status === 'True') continue;
      const evidence = ready
        ? `status.conditions[Ready]: ${ready.status}${ready.reason ? ` (${ready.reason})` : ''}${ready.message ? `: ${ready.message}` : ''}`
        : 'status.conditions: no Ready condition';
      const taints = (n.node.spec?.taints ?? []).filter((t) => t.key.startsWith('node.kubernetes.io/'))
        .map((t) => `spec.taints: ${t.key}:${t.effect}`);
      out.push({
        check: this.id, severity: 'error', object: { apiVersion: 'v1', kind: 'Node', name: n.name },
        evidence: [evidence, ...taints],
        message: `Windows node ${n.name} is not Ready`,
        explanation: 'The kubelet on the node has not posted a Ready status: no new pods start there, and its pods are evicted once the unreachable taint\'s toleration runs out. '
          + 'Stopped services (kubelet, containerd, kube-proxy, flanneld), a full disk or memory, or a virtual network that was not created (no network adapter found when starting the kubelet) all show this way.',
        fix: `on ${n.name}: Get-Service kubelet, containerd, kube-proxy, flanneld; start the stopped ones and read their logs (C:\\var\\log\\kubelet, C:\\k); check Get-HnsNetwork; kubectl describe node ${n.name}`,
        reference: DEBUG_CLUSTER,
      });
    }
    return out;
  },
};

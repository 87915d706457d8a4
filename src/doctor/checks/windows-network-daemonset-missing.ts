/**
 * kube-proxy or the CNI runs as a DaemonSet on the Linux nodes but no
 * DaemonSet of it covers the Windows nodes: unless the nodes run it as a
 * Windows service (as AKS, EKS and GKE install kube-proxy), Windows pods
 * get no pod network or no Services.
 */
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts } from '../cluster-facts.js';
import { componentOf, daemonSetOS, dsRef, NETWORK_COMPONENTS } from '../network-daemonsets.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

const WHAT: Record<string, string> = {
  'kube-proxy': 'Services (ClusterIP, NodePort, LoadBalancer) do not work from Windows pods and nodes',
  flannel: 'Windows pods get no pod network (their sandboxes fail for want of /run/flannel/subnet.env)',
  calico: 'Windows pods get no pod network',
};

export const windowsNetworkDaemonSetMissing: Check = {
  id: 'windows-network-daemonset-missing',
  title: 'kube-proxy, flannel or Calico DaemonSets that cover the Linux nodes but no Windows node',
  run(c) {
    if (clusterFacts(c).windowsNodes.length === 0) return [];
    const out: DoctorFinding[] = [];
    for (const component of NETWORK_COMPONENTS) {
      const sets = c.daemonSets.filter((ds) => componentOf(ds) === component).map((ds) => ({ ds, os: daemonSetOS(c, ds) }));
      const linux = sets.filter((s) => s.os === 'linux');
      if (linux.length === 0 || sets.some((s) => s.os !== 'linux')) continue;
      const [first] = linux;
      if (!first) continue;
      out.push({
        check: this.id, severity: 'warning', object: dsRef(first.ds),
        evidence: linux.map((s) => `DaemonSet ${s.ds.metadata?.namespace ?? ''}/${s.ds.metadata?.name ?? ''} spec.template.spec.nodeSelector: kubernetes.io/os=linux`)
          .concat(`no ${component} DaemonSet selects kubernetes.io/os=windows`),
        message: `${component} runs as a DaemonSet on the Linux nodes only: no ${component} DaemonSet covers the Windows nodes`,
        explanation: `Each Windows node needs its own ${component}; without it ${WHAT[component] ?? ''}. `
          + 'sig-windows-tools deploys it as a HostProcess DaemonSet; managed clusters (AKS, EKS, GKE) install kube-proxy on Windows nodes as a Windows service, which the API does not show.',
        fix: `deploy a Windows ${component} DaemonSet (kubernetes-sigs/sig-windows-tools hostprocess/), or check that ${component} runs as a service on every Windows node`,
        reference: WINDOWS_DEBUGGING_TIPS,
      });
    }
    return out;
  },
};

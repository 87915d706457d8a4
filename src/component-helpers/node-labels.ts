/**
 * The labels a kubelet may set on its own Node (k8s.io/kubelet/pkg/apis
 * IsKubeletLabel) and those NodeRestriction refuses it (getForbiddenLabels):
 * the admission plugin checks them, and the emulated kubelets register with
 * only the first kind, leaving the rest to the cluster's administrator, as
 * kubeadm applies node-role.kubernetes.io/control-plane after registration.
 */

/** v1.LabelNamespaceNodeRestriction. */
const NODE_RESTRICTION_LABELS = 'node-restriction.kubernetes.io';

/** kubeletapis.KubeletLabels and KubeletLabelNamespaces. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type',
  'kubernetes.io/os', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inDomain = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => inDomain(labelNamespace(key), d));
}

/** Whether a node may not add, remove or change the label: node-restriction labels, kubernetes.io and k8s.io ones not the kubelet's. */
export function isNodeForbiddenLabel(key: string): boolean {
  const ns = labelNamespace(key);
  if (inDomain(ns, NODE_RESTRICTION_LABELS)) return true;
  return (inDomain(ns, 'kubernetes.io') || inDomain(ns, 'k8s.io')) && !isKubeletLabel(key);
}

/**
 * Whether NetworkPolicy (networking.k8s.io/v1) lets a new connection
 * through, as Calico's Felix enforces the Kubernetes policies it converts
 * (libcalico-go's k8s conversion), judged once at the first packet: the
 * replies and the rest of the connection ride on connection tracking.
 *
 * - A pod is isolated for ingress (egress) when some policy of its own
 *   namespace selects it (spec.podSelector) and lists Ingress (Egress) in
 *   policyTypes (defaulted: Ingress, plus Egress when egress rules are
 *   given). An isolated pod takes (sends) only what one of those policies'
 *   rules allow; the rules of all the policies add up, none denies.
 * - Both ends must allow: the source's egress and the destination's
 *   ingress. A Service connection is judged after kube-proxy's DNAT, so
 *   against the backend pod and its port.
 * - A rule matches when one of its peers matches the other end (no peers:
 *   every address) and one of its ports matches (no ports: every port and
 *   protocol, ICMP included, as Calico's rule then has no protocol).
 * - A peer's podSelector alone: pods of the policy's namespace; its
 *   namespaceSelector alone: every pod of the matching namespaces; both in
 *   one peer: the pods matching both (AND); separate peers add up (OR).
 *   These match pods only (Calico workload endpoints), never a node or an
 *   address outside the cluster.
 * - ipBlock: Calico turns cidr/except into `nets`/`notNets` on the packet's
 *   address, whatever owns it, so it matches pod addresses as well as
 *   outside ones (upstream only says the CIDRs "should be cluster-external
 *   IPs"; which addresses it catches is the plugin's choice).
 * - A named port is resolved on the destination pod's containers'
 *   containerPorts (name and protocol); a destination that is not a pod has
 *   no named ports. endPort widens a numeric port to a range.
 */
import type { Container, ContainerPort, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, NetworkPolicyIngressRule, NetworkPolicyEgressRule } from 'kubernetes-types/networking/v1.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import { ipv4InCIDR } from './ipv4-cidr.js';

export type FlowProtocol = 'TCP' | 'UDP' | 'SCTP' | 'ICMP';

/** One end of a connection: its address, and the pod that has it (none for a node, the API server, an outside host). */
export interface FlowEnd { ip: string; pod?: Pod }

/** A new connection (or a datagram, or an echo request) after DNAT. `port` is unused for ICMP. */
export interface Flow { src: FlowEnd; dst: FlowEnd; protocol: FlowProtocol; port: number }

/** What the decision reads of the cluster. */
export interface PolicyView {
  /** The NetworkPolicies of a namespace. */
  policies(namespace: string): readonly NetworkPolicy[];
  /** A namespace's labels (kubernetes.io/metadata.name among them); undefined for an unknown namespace. */
  namespaceLabels(namespace: string): Readonly<Record<string, string>> | undefined;
}

/** Which side's policy drops the flow, if any. */
export type Verdict = 'allowed' | 'denied-by-egress' | 'denied-by-ingress';

type Direction = 'Ingress' | 'Egress';

/** The verdict on a flow; `enforced` says which side's node enforces policy (Felix runs on the source's and the destination's node). */
export function judgeFlow(flow: Flow, view: PolicyView, enforced: { egress: boolean; ingress: boolean } = { egress: true, ingress: true }): Verdict {
  if (enforced.egress && !egressAllowed(flow, view)) return 'denied-by-egress';
  if (enforced.ingress && !ingressAllowed(flow, view)) return 'denied-by-ingress';
  return 'allowed';
}

/** Whether the source pod's egress policies let the flow out (always, for a source that is not a pod or is not isolated). */
export function egressAllowed(flow: Flow, view: PolicyView): boolean {
  const pod = flow.src.pod;
  if (!pod) return true;
  const policies = isolating(pod, 'Egress', view);
  if (!policies.length) return true;
  return policies.some((p) => (p.spec?.egress ?? []).some((rule: NetworkPolicyEgressRule) =>
    peersMatch(rule.to, namespaceOf(p), flow.dst, view) && portsMatch(rule.ports, flow)));
}

/** Whether the destination pod's ingress policies let the flow in (always, for a destination that is not a pod or is not isolated). */
export function ingressAllowed(flow: Flow, view: PolicyView): boolean {
  const pod = flow.dst.pod;
  if (!pod) return true;
  const policies = isolating(pod, 'Ingress', view);
  if (!policies.length) return true;
  return policies.some((p) => (p.spec?.ingress ?? []).some((rule: NetworkPolicyIngressRule) =>
    peersMatch(rule.from, namespaceOf(p), flow.src, view) && portsMatch(rule.ports, flow)));
}

/** The policies of the pod's namespace that select it for the direction. */
export function isolating(pod: Pod, direction: Direction, view: PolicyView): NetworkPolicy[] {
  const ns = namespaceOf(pod);
  return view.policies(ns).filter((p) => namespaceOf(p) === ns && policyTypes(p).includes(direction)
    && (fromLabelSelector(p.spec?.podSelector ?? {})?.matches(pod.metadata?.labels) ?? false));
}

/** spec.policyTypes, or SetDefaults_NetworkPolicy's value for a policy stored without them. */
export function policyTypes(p: NetworkPolicy): readonly string[] {
  const types = p.spec?.policyTypes;
  if (types?.length) return types;
  return p.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

function peersMatch(peers: readonly NetworkPolicyPeer[] | undefined, policyNamespace: string, end: FlowEnd, view: PolicyView): boolean {
  if (!peers?.length) return true;
  return peers.some((peer) => peerMatches(peer, policyNamespace, end, view));
}

function peerMatches(peer: NetworkPolicyPeer, policyNamespace: string, end: FlowEnd, view: PolicyView): boolean {
  if (peer.ipBlock) {
    return ipv4InCIDR(end.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => ipv4InCIDR(end.ip, c));
  }
  const pod = end.pod;
  if (!pod || (!peer.podSelector && !peer.namespaceSelector)) return false;
  const ns = namespaceOf(pod);
  if (peer.namespaceSelector) {
    const nsLabels = view.namespaceLabels(ns);
    if (!nsLabels || !(fromLabelSelector(peer.namespaceSelector)?.matches(nsLabels) ?? false)) return false;
  } else if (ns !== policyNamespace) {
    return false;
  }
  return !peer.podSelector || (fromLabelSelector(peer.podSelector)?.matches(pod.metadata?.labels) ?? false);
}

function portsMatch(ports: readonly NetworkPolicyPort[] | undefined, flow: Flow): boolean {
  if (!ports?.length) return true;
  return ports.some((p) => portMatches(p, flow));
}

function portMatches(p: NetworkPolicyPort, flow: Flow): boolean {
  const protocol = p.protocol ?? 'TCP';
  if (protocol !== flow.protocol) return false;
  if (p.port === undefined) return true;
  if (typeof p.port === 'number') return p.endPort !== undefined ? flow.port >= p.port && flow.port <= p.endPort : flow.port === p.port;
  const name = p.port;
  return containerPortsOf(flow.dst.pod).some((c) => c.name === name && (c.protocol ?? 'TCP') === protocol && c.containerPort === flow.port);
}

/** The pod's containers' declared ports (Calico's workload endpoint takes its named ports from spec.containers). */
function containerPortsOf(pod: Pod | undefined): ContainerPort[] {
  return (pod?.spec?.containers ?? []).flatMap((c: Container) => c.ports ?? []);
}

const namespaceOf = (o: { metadata?: { namespace?: string } }): string => o.metadata?.namespace ?? 'default';

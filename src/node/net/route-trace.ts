/**
 * The hops of a connection through the network model as `winkube`'s own
 * trace shows them: where it leaves (a pod's veth or HNS endpoint, a node's
 * host network, the outside), the kube-proxy rule it meets on which node
 * (the iptables chains by their real names, or the node's HNS load
 * balancer), and the backend or the rule that stopped it.
 */
import type { CNIPlugin, NetworkMode } from '../network.js';
import { hnsNetworkName } from './hns-network.js';
import { endpointChain, serviceChain } from './iptables-chains.js';
import type { NetNode } from './net-node.js';
import type { Frontend, ProxyDecision } from './proxy-decision.js';

export interface NetTrace { hops: string[]; result: 'connected' | 'refused' | 'timeout' | 'outside' }

/** An ICMP echo's trace: answered, or lost (ping prints nothing back and times out). */
export interface EchoTrace { hops: string[]; result: 'reply' | 'timeout' }

const osText = (n: NetNode) => (n.os === 'windows' ? `windows 10.0.${n.build ?? '?'}` : 'linux');

export function podSourceHop(pod: { namespace: string; name: string } | undefined, ip: string, node: NetNode, net: { plugin: CNIPlugin; mode: NetworkMode }): string {
  const who = pod ? `pod ${pod.namespace}/${pod.name} ${ip}` : `pod address ${ip}`;
  const where = node.name ? ` on ${node.name} (${osText(node)})` : '';
  const link = node.os === 'windows' ? `HNS endpoint on ${hnsNetworkName(net.plugin, net.mode)}` : 'veth';
  return `${who}${where}: ${link}`;
}

export const hostSourceHop = (node: NetNode): string => `node ${node.name} ${node.internalIP} (${osText(node)}): host network`;

export const outsideSourceHop = (ip: string, entry: NetNode | undefined): string =>
  `${ip} outside the cluster${entry ? ` → node ${entry.name} ${entry.internalIP}` : ''}`;

/** The rule the packet meets: the iptables chain it jumps to, or the node's HNS load balancer. */
export function ruleHop(node: NetNode, frontend: Frontend, spn: string, vip: string, port: number, d: ProxyDecision, localOnly: boolean): string {
  if (node.os === 'windows') {
    if (d.kind !== 'balance') return `${node.name} VFP: ${d.rule}`;
    return `${node.name} VFP: HNS load balancer ${vip}:${port}/tcp → ${d.endpoints.length} endpoint${d.endpoints.length === 1 ? '' : 's'}`
      + (d.snat ? ', source VIP' : ', DSR');
  }
  const entry = frontend === 'nodePort' ? `KUBE-NODEPORTS :${port}/tcp` : `KUBE-SERVICES ${vip}:${port}/tcp`;
  if (d.kind !== 'balance') return `${node.name} iptables: ${entry} → ${d.rule}`;
  const chain = frontend === 'clusterIP' ? (localOnly ? 'KUBE-SVL' : 'KUBE-SVC') : 'KUBE-EXT';
  return `${node.name} iptables: ${entry} → ${serviceChain(chain, spn, 'TCP')} (${spn})`;
}

/** The endpoint picked, and the source the backend will see. */
export function endpointHop(node: NetNode, spn: string, ip: string, port: number, client: string, rewritten: boolean): string {
  const dnat = node.os === 'windows' ? `→ ${ip}:${port}` : `${endpointChain(spn, 'TCP', `${ip}:${port}`)}: DNAT to ${ip}:${port}`;
  return `${dnat}${rewritten ? `, source ${client}` : ''}`;
}

export const stopHop = (why: string): string => `stopped: ${why}`;

/** What to do instead, for the limits the Windows networking docs list. */
export const fixHop = (fix: string): string => `fix: ${fix}`;

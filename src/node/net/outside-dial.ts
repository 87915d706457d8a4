/**
 * A TCP connection from outside the cluster (this machine, through
 * `winkube up --expose`) to a node's address and a nodePort, or to a
 * LoadBalancer ingress IP and a Service port.
 *
 * The network model routes it through the entry node's kube-proxy rules
 * (externalTrafficPolicy, Windows DSR, the client address the backend
 * sees); the client is this machine, which the nodes see as the gateway of
 * their network. A network that does not know the node (no Node objects)
 * falls back to the Service's ClusterIP and port, from the node's address,
 * as kube-proxy masquerades external traffic with externalTrafficPolicy
 * Cluster.
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { ConnectResult } from '../shell/net-types.js';
import type { ClusterNetwork } from './cluster-network.js';

/** The Service address a node port or LoadBalancer address and port stands for; undefined when no Service has it. */
export function outsideServiceAddress(services: readonly Service[], nodeIPs: ReadonlySet<string>, ip: string, port: number): { ip: string; port: number } | undefined {
  for (const svc of services) {
    const clusterIP = svc.spec?.clusterIP;
    if (!clusterIP || clusterIP === 'None') continue;
    const tcp = (svc.spec?.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP');
    if (svc.spec?.type === 'LoadBalancer' && (svc.status?.loadBalancer?.ingress ?? []).some((i) => i.ip === ip)) {
      const p = tcp.find((x) => x.port === port);
      if (p) return { ip: clusterIP, port: p.port };
    }
    if ((svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer') && nodeIPs.has(ip)) {
      const p = tcp.find((x) => x.nodePort === port);
      if (p) return { ip: clusterIP, port: p.port };
    }
  }
  return undefined;
}

/** This machine as the nodes see it: the gateway of the machines' network 172.18.0.0/16 (node-object.ts). */
export const OUTSIDE_CLIENT = '172.18.0.1';

/** Connects from `nodeIP` (the node the connection entered by) to ip:port as an outside client's packets go. */
export function dialFromOutside(network: ClusterNetwork, services: readonly Service[], nodeIPs: ReadonlySet<string>,
  nodeIP: string, ip: string, port: number): ConnectResult {
  if (network.knowsNode(nodeIP)) return network.connectFromOutside(nodeIP, OUTSIDE_CLIENT, ip, port);
  const to = outsideServiceAddress(services, nodeIPs, ip, port);
  // No rule for the address: the packets are dropped.
  if (!to) return { kind: 'timeout' };
  return network.connect(nodeIP, to.ip, to.port);
}

/**
 * The pod's network as the tools inside its container show it (ipconfig,
 * nslookup, Get-NetIPAddress): its address, the node's /24 pod subnet, and
 * the DNS servers and search list the kubelet configures for the pod's
 * dnsPolicy (pkg/kubelet/network/dns: ClusterFirst → the cluster DNS and
 * `<ns>.svc.<domain> svc.<domain> <domain>`; Default and hostNetwork's
 * ClusterFirst → the node's; None → only dnsConfig), plus dnsConfig.
 */
import { CLUSTER_DNS_IP, DNS_DOMAIN } from '../network.js';
import type { KObject } from '../../apimachinery/object.js';
import type { PodNetwork } from '../shell/windows-net.js';

interface PodDNSFields {
  spec?: { dnsPolicy?: string; hostNetwork?: boolean; dnsConfig?: { nameservers?: string[]; searches?: string[] } };
  status?: { podIP?: string; podIPs?: { ip?: string }[] };
}

export function podNetwork(pod: KObject): PodNetwork {
  const { spec = {}, status = {} } = pod as KObject & PodDNSFields;
  const ns = pod.metadata.namespace ?? 'default';
  const policy = spec.dnsPolicy ?? 'ClusterFirst';
  const cluster = policy === 'ClusterFirstWithHostNet' || (policy === 'ClusterFirst' && !spec.hostNetwork);
  const servers: string[] = cluster ? [CLUSTER_DNS_IP] : [];
  const searches: string[] = cluster ? [`${ns}.svc.${DNS_DOMAIN}`, `svc.${DNS_DOMAIN}`, DNS_DOMAIN] : [];
  for (const s of spec.dnsConfig?.nameservers ?? []) if (!servers.includes(s)) servers.push(s);
  for (const s of spec.dnsConfig?.searches ?? []) if (!searches.includes(s)) searches.push(s);
  const podIP = status.podIP ?? status.podIPs?.[0]?.ip;
  return { ...(podIP ? { podIP } : {}), prefixLength: 24, dnsServers: servers, searches };
}

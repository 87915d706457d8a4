/**
 * The /etc/hosts the kubelet writes for a pod and bind-mounts into each of
 * its Linux containers (pkg/kubelet/kubelet_pods.go: makeHostsMount,
 * managedHostsFileContent, nodeHostsFileContent, hostsEntriesFromHostAliases).
 * A container that mounts a volume at /etc/hosts itself keeps that one, and a
 * pod without an IP yet gets none.
 */
import type { Container, HostAlias, Pod } from 'kubernetes-types/core/v1.js';
import { DNS_DOMAIN } from '../network.js';
import { podHostname } from './env.js';
import type { KObject } from '../../apimachinery/object.js';

export const ETC_HOSTS = '/etc/hosts';
const MANAGED_HEADER = '# Kubernetes-managed hosts file.\n';
const MANAGED_HEADER_HOST_NETWORK = '# Kubernetes-managed hosts file (host network).\n';

/**
 * The emulated Linux node's own /etc/hosts, as Debian's installer writes it
 * (the node's name on 127.0.1.1): what hostNetwork pods and hostPath mounts
 * of /etc/hosts read.
 */
export function nodeHostsFile(nodeName: string): string {
  return `127.0.0.1\tlocalhost\n127.0.1.1\t${nodeName}\n\n# The following lines are desirable for IPv6 capable hosts\n`
    + '::1     localhost ip6-localhost ip6-loopback\nff02::1 ip6-allnodes\nff02::2 ip6-allrouters\n';
}

function hostAliasEntries(aliases: readonly HostAlias[]): string {
  if (!aliases.length) return '';
  return '\n# Entries added by HostAliases.\n' + aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`).join('');
}

/** managedHostsFileContent: localhost entries, the pod's IPs with its hostname (and FQDN with a subdomain), then the aliases. */
export function managedHostsFile(podIPs: readonly string[], hostName: string, hostDomain: string, aliases: readonly HostAlias[]): string {
  let out = MANAGED_HEADER + '127.0.0.1\tlocalhost\n' + '::1\tlocalhost ip6-localhost ip6-loopback\n'
    + 'fe00::0\tip6-localnet\n' + 'fe00::0\tip6-mcastprefix\n' + 'fe00::1\tip6-allnodes\n' + 'fe00::2\tip6-allrouters\n';
  for (const ip of podIPs) out += hostDomain ? `${ip}\t${hostName}.${hostDomain}\t${hostName}\n` : `${ip}\t${hostName}\n`;
  return out + hostAliasEntries(aliases);
}

/** nodeHostsFileContent: the node's file under its own header, then the aliases. */
export function hostNetworkHostsFile(nodeHosts: string, aliases: readonly HostAlias[]): string {
  return MANAGED_HEADER_HOST_NETWORK + nodeHosts + hostAliasEntries(aliases);
}

/** The file the kubelet mounts at /etc/hosts of this container; undefined when it mounts none. */
export function kubeletEtcHosts(pod: KObject, container: Container, podIPs: readonly string[], nodeHosts: string): string | undefined {
  if (!podIPs.length) return undefined;
  if ((container.volumeMounts ?? []).some((m) => m.mountPath.replace(/\/+$/, '') === ETC_HOSTS)) return undefined;
  const spec = (pod as Pod).spec;
  const aliases = spec?.hostAliases ?? [];
  if (spec?.hostNetwork) return hostNetworkHostsFile(nodeHosts, aliases);
  const domain = spec?.subdomain ? `${spec.subdomain}.${pod.metadata.namespace ?? 'default'}.svc.${DNS_DOMAIN}` : '';
  return managedHostsFile(podIPs, podHostname(pod), domain, aliases);
}

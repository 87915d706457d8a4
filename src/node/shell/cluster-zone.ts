/**
 * What the bind9 tools need to know of the cluster DNS zone: CoreDNS
 * answers names under the cluster domain authoritatively (the AA flag),
 * and forwards the rest upstream, whose answers are not authoritative
 * (nslookup's `Non-authoritative answer:`). The pod's resolv.conf tells the
 * domain: the kubelet's first search suffix is `<namespace>.svc.<domain>`.
 */
import type { PodNetAccess } from './net-types.js';
import type { ShellContext } from './types.js';

export function clusterDomain(ctx: Pick<ShellContext, 'network'>): string | undefined {
  for (const s of ctx.network?.searches ?? []) {
    const m = /^[^.]+\.svc\.(.+)$/.exec(s);
    if (m) return m[1];
  }
  return undefined;
}

/** Whether the cluster DNS answers a fully qualified name (without its trailing dot) as the zone's authority. */
export function answeredAuthoritatively(fqdn: string, ctx: Pick<ShellContext, 'network'>): boolean {
  const domain = clusterDomain(ctx);
  const name = fqdn.replace(/\.$/, '');
  return domain !== undefined && (name === domain || name.endsWith(`.${domain}`) || name.endsWith('.in-addr.arpa'));
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The PTR query name of an IPv4 address, as bind's tools build it (absolute: trailing dot); undefined for anything else. */
export function reverseQueryName(text: string): string | undefined {
  const m = IPV4.exec(text);
  return m ? `${m.slice(1).reverse().join('.')}.in-addr.arpa.` : undefined;
}

/**
 * The server a query tool asks (the one named, else resolv.conf's first)
 * and, when it is the cluster DNS, the network that answers for it. Only
 * the cluster DNS answers: another server (or no network model) never
 * replies, and the tools wait out their retries.
 */
export function queryServer(ctx: Pick<ShellContext, 'network' | 'net'>, named: string | undefined): { server: string; net?: PodNetAccess } {
  const servers = ctx.network?.dnsServers ?? [];
  const server = named ?? servers[0] ?? '127.0.0.1';
  return { server, ...(ctx.net && servers.includes(server) ? { net: ctx.net } : {}) };
}

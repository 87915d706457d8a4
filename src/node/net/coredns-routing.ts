/**
 * Where CoreDNS sends a query, given its Corefile (dnsserver's ServeDNS and
 * the plugins' order in plugin.cfg, not the Corefile's):
 *
 * 1. the port-53 plain-DNS server block with the longest zone the name is
 *    in; none: REFUSED;
 * 2. its `kubernetes` plugin, for names in the plugin's zones: the cluster
 *    records; a name it does not have goes on only where `fallthrough`
 *    covers it (kubeadm's: `in-addr.arpa ip6.arpa`);
 * 3. its `forward` plugin, for names under FROM and not under an `except`
 *    zone: the first upstream that answers, its answer passed back as it
 *    is (flags and TTLs included); when none answers, SERVFAIL after the
 *    plugin's 5 s deadline (forward.go defaultTimeout);
 * 4. nothing handled it: SERVFAIL (plugin.NextOrFailure).
 */
import type { QType, ZoneAnswer } from './dns-records.js';
import type { CorefileConfig, ServerBlock } from './corefile.js';

/** The forward plugin gives up on its upstreams after this long (forward.go defaultTimeout). */
export const FORWARD_TIMEOUT_MS = 5000;

/** An answer, and how long CoreDNS takes to give it when that is its upstreams' timeout. */
export interface CoreDNSAnswer extends ZoneAnswer { delayMs?: number }

/** A DNS server's answer at ip:port; undefined when nothing answers there. */
export type UpstreamQuery = (ip: string, port: number, name: string, qtype: QType) => ZoneAnswer | undefined;

const under = (name: string, zone: string) => zone === '.' || name === zone || name.endsWith(`.${zone}`);

const failure = (rcode: 'SERVFAIL' | 'REFUSED', delayMs?: number): CoreDNSAnswer => ({
  rcode, authoritative: false, answer: [], authority: [], additional: [], ...(delayMs ? { delayMs } : {}),
});

/** The server block a name goes to; undefined when no block's zone holds it. */
export function serverBlockFor(name: string, config: CorefileConfig): ServerBlock | undefined {
  let best: { block: ServerBlock; length: number } | undefined;
  for (const block of config.servers) {
    if (!block.plainDNS || block.port !== 53) continue;
    for (const z of block.zones) {
      if (!under(name, z)) continue;
      const length = z === '.' ? 0 : z.length;
      if (!best || length > best.length) best = { block, length };
    }
  }
  return best?.block;
}

/** CoreDNS's answer to (name, qtype). `cluster` is the kubernetes plugin's. */
export function coreDNSAnswer(fqdn: string, qtype: QType, config: CorefileConfig, cluster: (name: string) => ZoneAnswer, upstream: UpstreamQuery): CoreDNSAnswer {
  const name = fqdn.toLowerCase().replace(/\.$/, '') || '.';
  const block = serverBlockFor(name, config);
  if (!block) return failure('REFUSED');
  const k = block.kubernetes;
  if (k && k.zones.some((z) => under(name, z))) {
    const a = cluster(name);
    // The record model answers SERVFAIL for an address it has no PTR of: the plugin's NXDOMAIN.
    const missing = a.rcode === 'NXDOMAIN' || (a.rcode === 'SERVFAIL' && /\.(in-addr|ip6)\.arpa$/.test(name));
    const fallsThrough = missing && k.fallthrough !== undefined && (k.fallthrough.length === 0 || k.fallthrough.some((z) => under(name, z)));
    if (!fallsThrough) return a;
  }
  const f = block.forward;
  if (f && under(name, f.from) && !f.except.some((z) => under(name, z))) {
    for (const u of f.to) {
      if (u.kind !== 'dns') continue;
      const a = upstream(u.ip, u.port, name, qtype);
      if (a) return a;
    }
    return failure('SERVFAIL', FORWARD_TIMEOUT_MS);
  }
  return failure('SERVFAIL');
}

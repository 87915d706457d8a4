/**
 * CoreDNS as the cluster runs it: the Corefile of the kube-system/coredns
 * ConfigMap (read through an informer cache), the cluster records for its
 * `kubernetes` zones, and the outside world for what it forwards.
 *
 * A changed Corefile applies as soon as the cache has it (the reload
 * plugin would notice it within its 30 s interval, after the kubelet
 * refreshed the mounted file: up to about a minute and a half in all; the
 * model does not make you wait). One that does not parse leaves the last
 * good one in force and is logged as the reload plugin logs it.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { DNS_DOMAIN } from '../network.js';
import { answerQuery, type QType, type RecordSources, type ZoneAnswer } from './dns-records.js';
import { CorefileError, parseCorefile, type CorefileConfig } from './corefile.js';
import { coreDNSAnswer, type CoreDNSAnswer } from './coredns-routing.js';
import { NODE_RESOLVER, type OutsideWorld } from './outside-world.js';

/** The CoreDNS pods' /etc/resolv.conf is the node's (dnsPolicy Default). */
export function nodeResolvConf(path: string): string[] | undefined {
  return path === '/etc/resolv.conf' ? [NODE_RESOLVER] : undefined;
}

/** What CoreDNS runs with before it has read a ConfigMap: kubeadm's Corefile, as far as routing goes. */
const KUBEADM_ROUTING = parseCorefile(`.:53 {
    kubernetes ${DNS_DOMAIN} in-addr.arpa ip6.arpa {
       fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    reload
}
`, nodeResolvConf);

export class CoreDNS {
  private config: CorefileConfig = KUBEADM_ROUTING;
  private seenText: string | undefined;

  constructor(private readonly configMap: () => ConfigMap | undefined, private readonly outside: OutsideWorld,
    private readonly log: (line: string) => void = () => {}) {}

  /** The Corefile in force (re-read when the ConfigMap's text changed). */
  current(): CorefileConfig {
    const text = this.configMap()?.data?.Corefile;
    if (text === undefined || text === this.seenText) return this.config;
    this.seenText = text;
    try {
      this.config = parseCorefile(text, nodeResolvConf);
    } catch (e) {
      if (!(e instanceof CorefileError)) throw e;
      this.log(`[ERROR] plugin/reload: Corefile changed but reload failed: ${e.message}`);
    }
    return this.config;
  }

  /** The answer to (name, qtype) of a query to the cluster DNS. */
  answer(name: string, qtype: QType, sources: RecordSources, dnsIP?: string): CoreDNSAnswer {
    return coreDNSAnswer(name, qtype, this.current(), (n) => answerQuery(n, qtype, sources, DNS_DOMAIN, dnsIP),
      (ip, port, n, t) => (port === 53 ? this.outside.dns(ip, n, t) : undefined));
  }

  /** The A records of a fully qualified name as a pod's resolver gets them (CNAMEs not followed); undefined when there are none. */
  addresses(fqdn: string, sources: RecordSources): string[] | undefined {
    const a: ZoneAnswer = this.answer(fqdn, 'A', sources);
    const ips = a.answer.flatMap((r) => (r.type === 'A' ? [r.address] : []));
    return ips.length ? ips : undefined;
  }
}

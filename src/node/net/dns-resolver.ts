/**
 * A pod's stub resolver: which names it asks the cluster DNS for, in which
 * order, for a name a program looks up.
 *
 * Linux (glibc and musl with the kubelet's resolv.conf: the pod's search
 * list and `options ndots:5`): a name ending in `.` is asked as it is; a
 * name with at least ndots dots is asked as it is first, then with each
 * search suffix; any other name with each suffix first, then as it is.
 *
 * Windows (dns-pod-service.md, "DNS resolution on Windows nodes"): one
 * suffix only, the pod's namespace's (`<ns>.svc.cluster.local`, the first
 * of the search list), and a name containing a `.` is taken as fully
 * qualified and asked as it is: `kubernetes` and
 * `kubernetes.default.svc.cluster.local` resolve, `kubernetes.default`
 * does not.
 */
export interface ResolverConfig {
  os: 'linux' | 'windows';
  searches: readonly string[];
  /** resolv.conf's ndots (the kubelet writes 5; dnsConfig.options may change it). */
  ndots?: number;
}

/** The names asked, in order. */
export function candidates(name: string, cfg: ResolverConfig): string[] {
  if (name.endsWith('.')) return [name];
  if (cfg.os === 'windows') {
    if (name.includes('.')) return [name];
    const [suffix] = cfg.searches;
    return suffix ? [`${name}.${suffix}`] : [name];
  }
  const dots = name.split('.').length - 1;
  const searched = cfg.searches.map((s) => `${name}.${s}`);
  return dots >= (cfg.ndots ?? 5) ? [name, ...searched] : [...searched, name];
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The addresses of `name` (an IP literal is itself); undefined when no candidate exists. */
export function resolveName(name: string, cfg: ResolverConfig, lookup: (fqdn: string) => string[] | undefined): string[] | undefined {
  return answerName(name, cfg, lookup)?.addresses;
}

/** The candidate that answered and its addresses (an IP literal answers for itself); undefined when none does. */
export function answerName(name: string, cfg: ResolverConfig, lookup: (fqdn: string) => string[] | undefined): { name: string; addresses: string[] } | undefined {
  if (IPV4.test(name) || name.includes(':')) return { name, addresses: [name] };
  for (const c of candidates(name, cfg)) {
    const found = lookup(c);
    if (found?.length) return { name: c, addresses: found };
  }
  return undefined;
}

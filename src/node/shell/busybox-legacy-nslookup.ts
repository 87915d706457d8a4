/**
 * busybox's nslookup applet up to 1.28 (networking/nslookup.c before the
 * 1.29 rewrite), the one the DNS debugging docs pinned busybox:1.28 for.
 * It has no resolver of its own: it prints the server and then the name
 * through libc's getaddrinfo, so resolv.conf's search list and ndots apply
 * (`nslookup kubernetes.default` works), and names each address by a
 * reverse lookup (getnameinfo with NI_NAMEREQD: nothing when there is no
 * PTR record). print_host's `%-10s %s` header, then `Address N: IP[ NAME]`:
 *
 *   Server:    10.96.0.10
 *   Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local
 *
 *   Name:      kubernetes.default
 *   Address 1: 10.96.0.1 kubernetes.default.svc.cluster.local
 *
 * A name getaddrinfo cannot resolve is bb_error_msg's `nslookup: can't
 * resolve 'NAME'` on stderr (VERBOSE_RESOLUTION_ERRORS is off in the
 * defconfig), exit 1.
 */
import { queryServer } from './cluster-zone.js';
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

/** uclibc's resolver: 2 attempts of 5 s at the one server before getaddrinfo gives up (a guess at its defaults). */
const UNANSWERED_MS = 10_000;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function* busyboxLegacyNslookup(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const [name, serverArg] = args;
  if (name === undefined || name.startsWith('-') || args.length > 2) {
    yield* io.err('BusyBox v1.28.4 (2018-05-22 17:00:17 UTC) multi-call binary.\n\nUsage: nslookup [HOST] [SERVER]\n\nQuery the nameserver for the IP address of the given HOST\noptionally using a specified DNS server\n');
    return 1;
  }
  const { server, net } = queryServer(io.ctx, serverArg);
  const addressLines = (ips: readonly string[]) => ips.map((ip, i) => {
    const host = net?.reverse?.(ip);
    return `Address ${i + 1}: ${ip}${host ? ` ${host}` : ''}\n`;
  }).join('');
  // The server line's reverse lookup goes to that server too: unanswered, it waits out the resolver.
  if (!net) yield { kind: 'sleep', ms: UNANSWERED_MS };
  yield* io.out(`${'Server:'.padEnd(10)} ${server}\n${addressLines([server])}\n`);
  const ips = IPV4.test(name) ? [name] : net?.lookup(name)?.addresses;
  if (!ips) {
    if (!net) yield { kind: 'sleep', ms: UNANSWERED_MS };
    yield* io.err(`nslookup: can't resolve '${name}'\n`);
    return 1;
  }
  yield* io.out(`${'Name:'.padEnd(10)} ${name}\n${addressLines(ips)}`);
  return 0;
}

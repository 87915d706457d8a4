/**
 * bind9's nslookup (bin/dig/nslookup.c over dighost.c, BIND 9.9 as Debian
 * jessie's dnsutils ships it) against the pod's DNS server, in its
 * one-shot form `nslookup NAME [SERVER]`. Unlike busybox's since 1.29 it
 * uses resolv.conf's search list by ndots as the libc resolver does, so
 * `nslookup kubernetes.default` finds `kubernetes.default.svc.cluster.local`
 * (dighost asks the suffixed names first while the name has fewer than
 * ndots dots, the name as it is first otherwise). It asks for A records only:
 *
 *   Server:\t\t10.96.0.10          (the server as given, or resolv.conf's first)
 *   Address:\t10.96.0.10#53
 *
 *   Name:\tkubernetes.default.svc.cluster.local
 *   Address: 10.96.0.1
 *
 * and main()'s closing puts("") adds a blank line. A candidate's NXDOMAIN
 * moves on to the next; only the last one prints, naming what was typed:
 * `** server can't find NAME: NXDOMAIN`, exit 1. An answer from outside
 * the cluster zone (CoreDNS forwarded it) is headed `Non-authoritative
 * answer:`. An address is a PTR query of its in-addr.arpa name.
 */
import { answeredAuthoritatively, queryServer, reverseQueryName } from './cluster-zone.js';
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

/** dighost's defaults: 3 tries of 5 s before giving up on the server. */
const UNANSWERED_MS = 15_000;

export function* bindNslookup(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const [name, serverArg] = args.filter((a) => !a.startsWith('-'));
  if (name === undefined) {
    // Interactive mode: the prompt, then end of input (exec without a terminal gives none).
    yield* io.err('> ');
    yield* io.out('\n');
    return 0;
  }
  const { server, net } = queryServer(io.ctx, serverArg);
  if (!net) {
    yield { kind: 'sleep', ms: UNANSWERED_MS };
    yield* io.out(';; connection timed out; no servers could be reached\n\n');
    return 1;
  }
  const head = `Server:\t\t${server}\nAddress:\t${server}#53\n\n`;
  const ptr = reverseQueryName(name);
  if (ptr) {
    const target = net.reverse?.(name);
    if (!target) { yield* io.out(`${head}** server can't find ${ptr}: NXDOMAIN\n\n`); return 1; }
    yield* io.out(`${head}${ptr.slice(0, -1)}\tname = ${target}.\n\n`);
    return 0;
  }
  const answer = net.lookup(name);
  if (!answer) { yield* io.out(`${head}** server can't find ${name}: NXDOMAIN\n\n`); return 1; }
  const fqdn = answer.name.replace(/\.$/, '');
  const aa = answeredAuthoritatively(fqdn, io.ctx) ? '' : 'Non-authoritative answer:\n';
  yield* io.out(head + aa + answer.addresses.map((ip) => `Name:\t${fqdn}\nAddress: ${ip}\n`).join('') + '\n');
  return 0;
}

/**
 * busybox nslookup (networking/nslookup.c, the resolver of its own since
 * 1.30) against the pod's DNS server. It reads resolv.conf's search list
 * but applies it only to a name without a dot: `nslookup kubernetes` asks
 * `kubernetes.<each suffix>`, `nslookup kubernetes.default` asks that name
 * as it is (and fails: the suffixes are not tried), the behaviour change
 * that made the DNS debugging docs pin busybox:1.28. It sends an A and an
 * AAAA query per name and prints each reply as it comes:
 *
 *   Server:\t\t10.96.0.10
 *   Address:\t10.96.0.10:53
 *
 *   Name:\tkubernetes.default.svc.cluster.local      (an answer)
 *   Address: 10.96.0.1
 *
 *   ** server can't find x.svc.cluster.local: NXDOMAIN   (a failure)
 *
 * A name that exists without AAAA records (NODATA) prints only the blank
 * line. Any failed query makes the exit code 1. An address is a PTR query.
 *
 * A name the cluster zone does not hold is forwarded upstream by CoreDNS;
 * the model has no upstream, and nslookup reports it as a real cluster's
 * upstream answers an unknown name, NXDOMAIN.
 */
import { queryServer } from './cluster-zone.js';
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** nslookup.c's defaults: 2 tries of 5 s each before `no servers could be reached`. */
const UNANSWERED_MS = 10_000;

export function* busyboxNslookup(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const [name, serverArg] = args.filter((a) => !a.startsWith('-'));
  if (name === undefined) {
    yield* io.err('BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n');
    return 1;
  }
  const { server, net } = queryServer(io.ctx, serverArg);
  if (!net) {
    yield { kind: 'sleep', ms: UNANSWERED_MS };
    yield* io.out(';; connection timed out; no servers could be reached\n\n');
    return 1;
  }
  let out = `Server:\t\t${server}\nAddress:\t${server}:53\n\n`;
  let code = 0;
  const ptr = IPV4.exec(name);
  if (ptr) {
    const query = `${ptr.slice(1).reverse().join('.')}.in-addr.arpa`;
    const target = net.reverse?.(name);
    if (target) out += `${query}\tname = ${target}\n\n`;
    else { out += `** server can't find ${query}: NXDOMAIN\n\n`; code = 1; }
    yield* io.out(out);
    return code;
  }
  const search = io.ctx.network?.searches ?? [];
  const fqdn = name.replace(/\.$/, '');
  const names = name.includes('.') || !search.length ? [fqdn] : search.map((s) => `${name}.${s}`);
  const answers = names.map((n) => net.lookup(`${n}.`));
  for (const [i, n] of names.entries()) {
    const a = answers[i];
    if (a) out += a.addresses.map((ip) => `Name:\t${n}\nAddress: ${ip}\n`).join('') + '\n';
    else { out += `** server can't find ${n}: NXDOMAIN\n\n`; code = 1; }
  }
  // The AAAA queries: the cluster has no IPv6 records, so a name that exists is NODATA.
  for (const [i, n] of names.entries()) {
    if (answers[i]) out += '\n';
    else out += `** server can't find ${n}: NXDOMAIN\n\n`;
  }
  yield* io.out(out);
  return code;
}

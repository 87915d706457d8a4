/**
 * bind9's host (bin/dig/host.c, BIND 9.9) against the pod's DNS server:
 * `host NAME [SERVER]`. Like nslookup it uses resolv.conf's search list by
 * ndots; unlike nslookup it names the record's owner, the candidate that
 * answered: `kubernetes.default.svc.cluster.local has address 10.96.0.1`.
 * Its default A lookup is followed by AAAA and MX lookups, which print
 * nothing for a cluster name (no such records). NXDOMAIN prints `Host NAME
 * not found: 3(NXDOMAIN)` with the name as typed and exits 1; an address is
 * a PTR query (`... domain name pointer NAME.`). A SERVER argument is
 * announced first (`Using domain server:`).
 */
import { queryServer, reverseQueryName } from './cluster-zone.js';
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

/** host's UDP wait: 2 tries of 5 s (a guess at host.c's defaults) before giving up on the server. */
const UNANSWERED_MS = 10_000;

export function* bindHost(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const [name, serverArg] = operands(args);
  if (name === undefined) {
    yield* io.err(USAGE);
    return 1;
  }
  const { server, net } = queryServer(io.ctx, serverArg);
  if (!net) {
    yield { kind: 'sleep', ms: UNANSWERED_MS };
    yield* io.out(';; connection timed out; no servers could be reached\n');
    return 1;
  }
  const head = serverArg === undefined ? '' : `Using domain server:\nName: ${server}\nAddress: ${server}#53\nAliases: \n\n`;
  const ptr = reverseQueryName(name);
  if (ptr) {
    const target = net.reverse?.(name);
    if (!target) { yield* io.out(`${head}Host ${ptr} not found: 3(NXDOMAIN)\n`); return 1; }
    yield* io.out(`${head}${ptr.slice(0, -1)} domain name pointer ${target}.\n`);
    return 0;
  }
  const answer = net.lookup(name);
  if (!answer) { yield* io.out(`${head}Host ${name} not found: 3(NXDOMAIN)\n`); return 1; }
  const owner = answer.name.replace(/\.$/, '');
  yield* io.out(head + answer.addresses.map((ip) => `${owner} has address ${ip}\n`).join(''));
  return 0;
}

/** The options that take a value (`-t A`, `-W 2`): their values are not operands. */
const WITH_VALUE = new Set(['-c', '-N', '-t', '-W', '-R', '-m']);

function operands(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) out.push(a);
  }
  return out;
}

const USAGE = `Usage: host [-aCdlriTwv] [-c class] [-N ndots] [-t type] [-W time]
            [-R number] [-m flag] hostname [server]
       -a is equivalent to -v -t ANY
       -c specifies query class for non-IN data
       -C compares SOA records on authoritative nameservers
       -d is equivalent to -v
       -l lists all hosts in a domain, using AXFR
       -i IP6.INT reverse lookups
       -N changes the number of dots allowed before root lookup is done
       -r disables recursive processing
       -R specifies number of retries for UDP packets
       -s a SERVFAIL response should stop query
       -t specifies the query type
       -T enables TCP/IP mode
       -v enables verbose output
       -w specifies to wait forever for a reply
       -W specifies how long to wait for a reply
       -4 use IPv4 query transport only
       -6 use IPv6 query transport only
       -m set memory debugging flag (trace|record|usage)
`;

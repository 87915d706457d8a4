/**
 * bind9's dig (bin/dig/dig.c, BIND 9.9) in its short form: `dig +short
 * NAME`, `dig +short -x ADDRESS`, `dig +short +search NAME`, `@SERVER`.
 * dig does not use resolv.conf's search list unless told (+search): `dig
 * +short kubernetes.default` asks `kubernetes.default.` and prints nothing
 * for the NXDOMAIN, exit 0 (dig exits non-zero only when it gets no
 * reply). +short prints the answer records' data one a line: addresses,
 * a PTR's target with its trailing dot.
 */
import { reverseQueryName } from './cluster-zone.js';
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

/** dig's defaults: 3 tries of 5 s (+tries=3, +time=5) before `no servers could be reached`, exit 9. */
const UNANSWERED_MS = 15_000;

interface DigQuery { name?: string; reverse?: string; server?: string; short: boolean; search: boolean }

function parse(args: readonly string[]): DigQuery {
  const q: DigQuery = { short: false, search: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '+short') q.short = true;
    else if (a === '+noshort') q.short = false;
    else if (a === '+search') q.search = true;
    else if (a === '+nosearch') q.search = false;
    else if (a === '-x') q.reverse = args[++i];
    else if (a.startsWith('@')) q.server = a.slice(1);
    else if (!a.startsWith('+') && !a.startsWith('-') && !/^(A|IN)$/i.test(a)) q.name ??= a;
  }
  return q;
}

export function* bindDig(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const q = parse(args);
  const servers = io.ctx.network?.dnsServers ?? [];
  const server = q.server ?? servers[0] ?? '127.0.0.1';
  const net = io.ctx.net;
  if (!net || !servers.includes(server)) {
    yield { kind: 'sleep', ms: UNANSWERED_MS };
    yield* io.out(';; connection timed out; no servers could be reached\n');
    return 9;
  }
  const ptr = q.reverse !== undefined ? reverseQueryName(q.reverse) : undefined;
  let data: string[];
  if (ptr) {
    const target = net.reverse?.(q.reverse!);
    data = target ? [`${target}.`] : [];
  } else {
    // Without a name dig asks for the root's NS records; the model has no root zone to answer them.
    const name = q.name ?? '.';
    const asked = q.search ? name : name.endsWith('.') ? name : `${name}.`;
    data = net.lookup(asked)?.addresses ?? [];
  }
  if (q.short) yield* io.out(data.map((d) => `${d}\n`).join(''));
  return 0;
}

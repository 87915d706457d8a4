/**
 * nslookup.exe through the cluster network. It is its own resolver, not the
 * DNS client service: it names its server by a PTR query of the server's
 * address (`UnKnown` when that fails), and for a name without a trailing
 * dot it appends each suffix of the adapter's DNS suffix search list
 * (ipconfig /all's list) itself, dots or not, before asking the name as it
 * is (nslookup's `set search`, on by default). That is why `nslookup
 * kubernetes.default` answers in a Windows pod (as
 * kubernetes.default.svc.cluster.local) although the DNS client, which
 * takes a dotted name as fully qualified, does not resolve it
 * (Resolve-DnsName, ping, curl.exe).
 *
 *   Server:  kube-dns.kube-system.svc.cluster.local
 *   Address:  10.96.0.10
 *
 *   Name:    kubernetes.default.svc.cluster.local
 *   Address:  10.96.0.1
 *
 * A name no candidate answers: `*** <server> can't find <name>:
 * Non-existent domain` on stderr. A server other than the cluster DNS, or a
 * container without the network model, never answers: each query times out
 * after 2 s.
 */
import type { ShellContext, Step } from './types.js';

type Out = (s: string) => Generator<Step, void, void>;

const QUERY_TIMEOUT_MS = 2000;

function* timedOut(out: Out): Generator<Step, void, void> {
  yield { kind: 'sleep', ms: QUERY_TIMEOUT_MS };
  yield* out('DNS request timed out.\r\n    timeout was 2 seconds.\r\n');
}

/** The names nslookup asks for `name`, in order. */
export function nslookupCandidates(name: string, searches: readonly string[]): string[] {
  if (name.endsWith('.')) return [name.slice(0, -1)];
  return [...searches.map((s) => `${name}.${s}`), name];
}

export function* windowsNslookup(args: string[], ctx: ShellContext, out: Out, err: Out): Generator<Step, number, void> {
  const names = args.filter((a) => !a.startsWith('-'));
  const servers = ctx.network?.dnsServers ?? [];
  const server = names[1] ?? servers[0];
  if (!server) {
    yield* out('*** Default servers are not available\r\n');
    return 1;
  }
  const net = ctx.net;
  if (!net || !servers.includes(server)) {
    // The PTR query of the server's own address comes first, and names it "UnKnown" when it fails.
    yield* timedOut(out);
    yield* out(`Server:  UnKnown\r\nAddress:  ${server}\r\n\r\n`);
    if (!names[0]) return 0;
    for (let i = 0; i < 4; i++) yield* timedOut(out);
    yield* out('*** Request to UnKnown timed-out\r\n');
    return 1;
  }
  const serverName = net.reverse?.(server) ?? 'UnKnown';
  yield* out(`Server:  ${serverName}\r\nAddress:  ${server}\r\n\r\n`);
  const [name] = names;
  if (name === undefined) return 0;
  for (const candidate of nslookupCandidates(name, ctx.network?.searches ?? [])) {
    const a = net.lookup(`${candidate}.`);
    if (!a) continue;
    const [first, ...rest] = a.addresses;
    yield* out(`Name:    ${candidate}\r\n${rest.length ? `Addresses:  ${first}\r\n${rest.map((ip) => `\t  ${ip}\r\n`).join('')}` : `Address:  ${first}\r\n`}\r\n`);
    return 0;
  }
  yield* err(`*** ${serverName} can't find ${name}: Non-existent domain\r\n`);
  return 1;
}

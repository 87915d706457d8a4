/**
 * Resolve-DnsName through the cluster network: the DNS client's rules (the
 * pod's one suffix for a name without a dot; a dotted name is fully
 * qualified and asked as it is, so `kubernetes` resolves and
 * `kubernetes.default` does not), its DnsRecord_A objects, and their
 * default table (DnsClient's format: Name, Type, TTL, Section, IPAddress).
 *
 * A name that does not resolve is DNS_ERROR_RCODE_NAME_ERROR's `DNS name
 * does not exist`. A name outside the cluster zone is forwarded upstream
 * by CoreDNS; the model has none, and the cmdlet reports it as a real
 * cluster's upstream answers an unknown name.
 */
import { display, type PsObject } from './ps-values.js';
import type { PodNetAccess } from './net-types.js';

/** kubeadm's Corefile: `ttl 30`; the DNS client shows the TTL of a fresh answer. */
const RECORD_TTL = 30;

/** The table columns of DnsRecord_A with the widths its view gives them (the last one unbounded). */
const COLUMNS: [string, number][] = [['Name', 46], ['Type', 6], ['TTL', 5], ['Section', 10], ['IPAddress', 0]];

export type ResolveOutcome =
  | { kind: 'records'; records: PsObject[] }
  | { kind: 'error'; message: string; category: string; exception: string; fqid: string };

/** Format-Table's cell: padded to the width, cut with `...` when longer (Windows PowerShell 5.1). */
function cell(text: string, width: number): string {
  if (!width) return text;
  return text.length > width ? `${text.slice(0, width - 3)}...` : text.padEnd(width);
}

const tableView = (group: PsObject[]): string => {
  const row = (vals: string[]) => vals.map((v, i) => cell(v, COLUMNS[i]![1])).join(' ').trimEnd();
  const header = row(COLUMNS.map(([n]) => n));
  const rule = row(COLUMNS.map(([n]) => '-'.repeat(n.length)));
  const rows = group.map((o) => row(COLUMNS.map(([n]) => display(o.props[n] ?? null))));
  return `\r\n${header}\r\n${rule}\r\n${rows.join('\r\n')}\r\n\r\n`;
};

export function resolveDnsName(name: string, net: PodNetAccess): ResolveOutcome {
  const answer = net.lookup(name);
  if (!answer) {
    return {
      kind: 'error', message: `${name} : DNS name does not exist`, category: 'ResourceUnavailable', exception: 'Win32Exception',
      fqid: 'DNS_ERROR_RCODE_NAME_ERROR,Microsoft.DnsClient.Commands.ResolveDnsName',
    };
  }
  const owner = answer.name.replace(/\.$/, '');
  return {
    kind: 'records',
    records: answer.addresses.map((ip) => ({
      kind: 'object', typeName: 'Microsoft.DnsClient.Commands.DnsRecord_A',
      props: { Name: owner, Type: 'A', TTL: RECORD_TTL, Section: 'Answer', IPAddress: ip, __string: owner },
      view: tableView,
    })),
  };
}

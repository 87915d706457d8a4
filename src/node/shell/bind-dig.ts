/**
 * bind9's dig (bin/dig/dig.c, BIND 9.9 as Debian jessie ships it in the
 * jessie-dnsutils image): `dig [@SERVER] [-t TYPE | TYPE] [-x ADDRESS]
 * [+short] [+search] NAME`. dig does not use resolv.conf's search list
 * unless told (+search): `dig kubernetes.default` asks `kubernetes.default.`
 * and prints the NXDOMAIN reply, exit 0 (dig exits non-zero only when it
 * gets no reply: 9). Without +short it prints the whole reply: header,
 * flags (CoreDNS answers its zone with AA and without RA, hence the
 * recursion warning), the EDNS0 pseudo-section, the sections in
 * master-file columns, and the statistics; +short prints only the answer
 * records' data, one a line.
 */
import { queryServer, reverseQueryName } from './cluster-zone.js';
import { unixDate } from './format.js';
import type { ToolIO } from './http-tools.js';
import type { DNSReply, PresentedRecord, QueryType } from './net-types.js';
import type { Step } from './types.js';

/** The version line's release: jessie's bind9 package (jessie-dnsutils installs dnsutils from it). */
const DIG_VERSION = '9.9.5-9+deb8u19-Debian';
/** dig's defaults: 3 tries of 5 s (+tries=3, +time=5) before `no servers could be reached`. */
const TRY_MS = 5_000;
const UNANSWERED_MS = 3 * TRY_MS;

const TYPES: ReadonlySet<string> = new Set<QueryType>(['A', 'AAAA', 'SRV', 'CNAME', 'TXT', 'SOA', 'NS', 'PTR', 'ANY']);

interface DigQuery { name?: string; type?: QueryType; reverse?: string; server?: string; short: boolean; search: boolean }

function parse(args: readonly string[]): DigQuery {
  const q: DigQuery = { short: false, search: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '+short') q.short = true;
    else if (a === '+noshort') q.short = false;
    else if (a === '+search') q.search = true;
    else if (a === '+nosearch') q.search = false;
    else if (a === '-x') q.reverse = args[++i];
    else if (a === '-t') q.type = queryType(args[++i]) ?? q.type;
    else if (a.startsWith('@')) q.server = a.slice(1);
    else if (a.startsWith('+') || a.startsWith('-') || /^IN$/i.test(a)) continue;
    else if (queryType(a) && (q.name !== undefined || q.type === undefined)) q.type = queryType(a);
    else q.name ??= a;
  }
  return q;
}

const queryType = (word: string | undefined): QueryType | undefined =>
  word !== undefined && TYPES.has(word.toUpperCase()) ? (word.toUpperCase() as QueryType) : undefined;

export function* bindDig(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const q = parse(args);
  const { server, net } = queryServer(io.ctx, q.server);
  const banner = `\n; <<>> DiG ${DIG_VERSION} <<>> ${args.join(' ')}\n${q.server !== undefined ? '; (1 server found)\n' : ''};; global options: +cmd\n`;
  const ptr = q.reverse !== undefined ? reverseQueryName(q.reverse) : undefined;
  // Without a name dig asks for the root's NS records.
  const typed = ptr ?? q.name ?? '.';
  const fqdn = q.search && !ptr ? (net?.lookup(typed)?.name ?? typed) : typed;
  const asked = fqdn.endsWith('.') ? fqdn : `${fqdn}.`;
  const type: QueryType = q.type ?? (ptr ? 'PTR' : q.name === undefined ? 'NS' : 'A');
  const reply = net?.query?.(asked, type);
  if (!reply || reply.delayMs >= TRY_MS) {
    yield { kind: 'sleep', ms: UNANSWERED_MS };
    yield* io.out(`${q.short ? '' : banner};; connection timed out; no servers could be reached\n`);
    return 9;
  }
  if (reply.delayMs) yield { kind: 'sleep', ms: reply.delayMs };
  if (q.short) {
    yield* io.out(reply.answer.map((r) => `${r.data}\n`).join(''));
    return 0;
  }
  const now = (io.ctx.now ?? (() => new Date()))();
  yield* io.out(`${banner};; Got answer:\n${header(reply)}\n;; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 4096\n`
    + `;; QUESTION SECTION:\n${questionLine(asked, type)}\n\n`
    + section('ANSWER', reply.answer) + section('AUTHORITY', reply.authority) + section('ADDITIONAL', reply.additional)
    + `;; Query time: ${reply.delayMs} msec\n;; SERVER: ${server}#53(${server})\n;; WHEN: ${unixDate(now)}\n;; MSG SIZE  rcvd: ${reply.size}\n\n`);
  return 0;
}

function header(r: DNSReply): string {
  const flags = ['qr', ...(r.aa ? ['aa'] : []), 'rd', ...(r.ra ? ['ra'] : [])].join(' ');
  const id = Math.floor(Math.random() * 65536);
  return `;; ->>HEADER<<- opcode: QUERY, status: ${r.status}, id: ${id}\n`
    + `;; flags: ${flags}; QUERY: 1, ANSWER: ${r.answer.length}, AUTHORITY: ${r.authority.length}, ADDITIONAL: ${r.additional.length + 1}\n`
    + (r.ra ? '' : ';; WARNING: recursion requested but not available\n');
}

function section(title: string, records: readonly PresentedRecord[]): string {
  return records.length ? `;; ${title} SECTION:\n${records.map(recordLine).join('')}\n` : '';
}

/** dig's columns (masterdump.c's debug style): TTL at 24, class at 32, type at 40, data at 48; tabs 8 wide. */
const COLUMNS = { ttl: 24, class: 32, type: 40, data: 48 } as const;

function recordLine(r: PresentedRecord): string {
  return columns([[r.name, 0], [String(r.ttl), COLUMNS.ttl], ['IN', COLUMNS.class], [r.type, COLUMNS.type], [r.data, COLUMNS.data]]) + '\n';
}

function questionLine(name: string, type: QueryType): string {
  return columns([[`;${name}`, 0], ['IN', COLUMNS.class], [type, COLUMNS.type]]);
}

/** Fields placed at their columns as masterdump.c's indent() does: tabs to the last stop, then spaces; always at least one. */
function columns(fields: ReadonlyArray<readonly [string, number]>): string {
  let out = '';
  let at = 0;
  for (const [text, column] of fields) {
    if (out) {
      const to = Math.max(column, at + 1);
      const tabs = Math.floor(to / 8) - Math.floor(at / 8);
      const from = tabs > 0 ? Math.floor(to / 8) * 8 : at;
      out += '\t'.repeat(tabs) + ' '.repeat(to - from);
      at = to;
    }
    out += text;
    at += text.length;
  }
  return out;
}

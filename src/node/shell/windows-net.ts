/**
 * The network tools of a Windows container (ping.exe, ipconfig.exe,
 * nslookup.exe, curl.exe) with the real programs' output, shared by cmd and
 * PowerShell.
 *
 * ping.exe and curl.exe reach the cluster network model (src/node/net)
 * when the container has it, nslookup.exe too (windows-nslookup.ts).
 * Without the model only what the container itself decides is answered
 * (loopback and the pod's own address reply); everything else gets what a
 * host whose packets go unanswered prints: a ping times out, a name cannot
 * be resolved because the DNS server never answers, a TCP connection times
 * out. Nothing reports a success that did not happen.
 */
import { curl as networkCurl } from './http-tools.js';
import type { ShellContext, Step } from './types.js';

type Out = (s: string) => Generator<Step, void, void>;

/** The pod's network as its container sees it (from the pod status and DNS policy). */
export interface PodNetwork {
  podIP?: string;
  /** Prefix length of the node's pod subnet (24 for flannel and Calico's Windows blocks here). */
  prefixLength?: number;
  dnsServers?: string[];
  searches?: string[];
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
export const isIPv4 = (s: string) => IPV4.test(s) && s.split('.').every((o) => Number(o) <= 255);
const isLoopback = (s: string) => /^127\./.test(s) || s === '::1';

/** What a name resolves to without a DNS answer: only local names. */
export function resolveLocally(host: string, ctx: ShellContext): string | undefined {
  if (isIPv4(host) || host.includes(':')) return host;
  if (/^localhost$/i.test(host)) return '::1';
  if (host.toLowerCase() === ctx.hostname.toLowerCase()) return ctx.network?.podIP ?? '::1';
  return undefined;
}

/** Whether an address answers from inside the container itself. */
export function isLocalAddress(addr: string, ctx: ShellContext): boolean {
  return isLoopback(addr) || (!!ctx.network?.podIP && addr === ctx.network.podIP);
}

/**
 * The address ping.exe and Test-NetConnection use for a name, and the name
 * they show: the DNS client's answer (the pod's single suffix; a dotted name
 * is fully qualified) names the candidate that answered.
 */
export function pingTarget(host: string, ctx: ShellContext): { addr: string; shown: string } | undefined {
  const local = resolveLocally(host, ctx);
  if (local !== undefined || !ctx.net) return local === undefined ? undefined : { addr: local, shown: host === 'localhost' ? ctx.hostname : host };
  const a = ctx.net.lookup(host);
  const addr = a?.addresses[0];
  return a && addr !== undefined ? { addr, shown: a.name.replace(/\.$/, '') } : undefined;
}

/** Whether an echo request to the address comes back: the cluster network decides, else only the container's own addresses answer. */
export function echoAnswered(addr: string, ctx: ShellContext): boolean {
  if (ctx.net && !isLoopback(addr)) return ctx.net.ping(addr).kind === 'reply';
  return isLocalAddress(addr, ctx);
}

/** ping.exe: `Reply from` for an answered echo, `Request timed out.` (4 s each) otherwise; exit 1 when nothing came back. */
export function* ping(args: string[], ctx: ShellContext, out: Out): Generator<Step, number, void> {
  const forever = args.some((a) => /^[-/]t$/i.test(a));
  const ni = args.findIndex((a) => /^[-/]n$/i.test(a));
  const count = ni !== -1 ? Number(args[ni + 1]) : 4;
  const host = args.filter((a, i) => !/^[-/]/.test(a) && (ni === -1 || i !== ni + 1)).pop();
  if (!host) {
    yield* out('\r\nUsage: ping [-t] [-a] [-n count] [-l size] [-f] [-i TTL] [-v TOS]\r\n' +
      '            [-r count] [-s count] [[-j host-list] | [-k host-list]]\r\n' +
      '            [-w timeout] [-R] [-S srcaddr] [-c compartment] [-p]\r\n            [-4] [-6] target_name\r\n');
    return 1;
  }
  const target = pingTarget(host, ctx);
  if (target === undefined) {
    yield* out(`Ping request could not find host ${host}. Please check the name and try again.\r\n`);
    return 1;
  }
  const { addr, shown } = target;
  const named = addr !== host;
  yield* out(named ? `\r\nPinging ${shown} [${addr}] with 32 bytes of data:\r\n` : `\r\nPinging ${addr} with 32 bytes of data:\r\n`);
  const answers = echoAnswered(addr, ctx);
  const reply = addr.includes(':') ? `Reply from ${addr}: time<1ms\r\n` : `Reply from ${addr}: bytes=32 time<1ms TTL=128\r\n`;
  let sent = 0;
  for (let i = 0; forever || i < count; i++) {
    sent++;
    if (answers) {
      if (i > 0) yield { kind: 'sleep', ms: 1000 };
      yield* out(reply);
    } else {
      yield { kind: 'sleep', ms: 4000 };
      yield* out('Request timed out.\r\n');
    }
  }
  const received = answers ? sent : 0;
  yield* out(`\r\nPing statistics for ${addr}:\r\n    Packets: Sent = ${sent}, Received = ${received}, Lost = ${sent - received} (${Math.round((sent - received) * 100 / sent)}% loss),\r\n` +
    (received ? 'Approximate round trip times in milli-seconds:\r\n    Minimum = 0ms, Maximum = 0ms, Average = 0ms\r\n' : ''));
  return received ? 0 : 1;
}

function mask(prefix: number): string {
  const m = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (m >>> s) & 255).join('.');
}

/** The gateway of the pod's subnet: its first address, where flannel and Calico put the HNS network's gateway. */
function gateway(ip: string, prefix: number): string {
  const n = ip.split('.').reduce((a, o) => (a << 8) + Number(o), 0) >>> 0;
  const net = (n & ((0xffffffff << (32 - prefix)) >>> 0)) >>> 0;
  const g = net + 1;
  return [24, 16, 8, 0].map((s) => (g >>> s) & 255).join('.');
}

/** A stable link-local address and MAC for the container's adapter, derived from its IPv4 address. */
export function linkLocal(ip: string): { ll: string; mac: string; ifIndex: number } {
  const [o0 = 0, o1 = 0, o2 = 0, o3 = 0] = ip.split('.').map(Number);
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  return {
    // IPv6 text drops each group's leading zeros.
    ll: `fe80::${[((o0 ^ 0x5d) << 8) | o1, (o2 << 8) | 0xff, 0xfe00 | o3, ((o2 ^ o3) << 8) | o1].map((g) => g.toString(16)).join(':')}`,
    mac: `00-15-5D-${hex(o1).toUpperCase()}-${hex(o2).toUpperCase()}-${hex(o3).toUpperCase()}`,
    ifIndex: 10 + (o3 % 40),
  };
}

/** The container's one adapter, named as HNS names a container endpoint's vNIC. */
export const ADAPTER_NAME = 'vEthernet (Ethernet)';

/** ipconfig.exe and `ipconfig /all`. */
export function ipconfig(args: string[], ctx: ShellContext): string {
  const all = args.some((a) => /^[-/]all$/i.test(a));
  const net = ctx.network ?? {};
  const searches = net.searches ?? [];
  // The labels are ipconfig's resource strings (some end in spaces); dots fill the even columns up to 34.
  const line = (label: string, value: string) => {
    let field = label;
    for (let p = label.length; p < 34; p++) field += p % 2 === 0 ? '.' : ' ';
    return `   ${field}: ${value}`;
  };
  let out = '\r\nWindows IP Configuration\r\n\r\n';
  if (all) {
    out += [
      line('Host Name', ctx.hostname),
      line('Primary Dns Suffix  ', ''),
      line('Node Type', 'Hybrid'),
      line('IP Routing Enabled', 'No'),
      line('WINS Proxy Enabled', 'No'),
      ...searches.map((s, i) => (i === 0 ? line('DNS Suffix Search List', s) : `${' '.repeat(39)}${s}`)),
    ].join('\r\n') + '\r\n';
  }
  if (!net.podIP || !isIPv4(net.podIP)) return out;
  const prefix = net.prefixLength ?? 24;
  const { ll, mac, ifIndex } = linkLocal(net.podIP);
  out += `\r\nEthernet adapter ${ADAPTER_NAME}:\r\n\r\n`;
  const rows = all ? [
    line('Connection-specific DNS Suffix  ', searches[0] ?? ''),
    line('Description', 'Hyper-V Virtual Ethernet Container Adapter'),
    line('Physical Address', mac),
    line('DHCP Enabled', 'No'),
    line('Autoconfiguration Enabled ', 'Yes'),
    line('Link-local IPv6 Address ', `${ll}%${ifIndex}(Preferred)`),
    line('IPv4 Address', `${net.podIP}(Preferred)`),
    line('Subnet Mask ', mask(prefix)),
    line('Default Gateway ', gateway(net.podIP, prefix)),
    ...(net.dnsServers ?? []).map((s, i) => (i === 0 ? line('DNS Servers ', s) : `${' '.repeat(39)}${s}`)),
    line('NetBIOS over Tcpip', 'Disabled'),
  ] : [
    line('Connection-specific DNS Suffix  ', searches[0] ?? ''),
    line('Link-local IPv6 Address ', `${ll}%${ifIndex}`),
    line('IPv4 Address', net.podIP),
    line('Subnet Mask ', mask(prefix)),
    line('Default Gateway ', gateway(net.podIP, prefix)),
  ];
  return out + rows.join('\r\n') + '\r\n';
}

/** curl.exe's URL target: host and port. */
function target(url: string): { host: string; port: number } | undefined {
  const m = /^(?:(https?):\/\/)?(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?/i.exec(url);
  const [, scheme, host, port] = m ?? [];
  if (host === undefined) return undefined;
  return { host: host.replace(/^\[|\]$/g, ''), port: port ? Number(port) : scheme?.toLowerCase() === 'https' ? 443 : 80 };
}

/** Windows gives up a TCP connect after its SYN retransmissions (about 21 s). */
export const CONNECT_TIMEOUT_MS = 21_000;

/**
 * curl.exe: through the cluster network when the container has one
 * (http-tools.ts); otherwise name resolution and connection as a container
 * without answers sees them.
 */
export function* curl(args: string[], ctx: ShellContext, out: Out, err: Out): Generator<Step, number, void> {
  if (ctx.net) {
    return yield* networkCurl(args, {
      ctx, out, err, eol: '\r\n',
      writeFile: (path, content) => ctx.fs.write(ctx.fs.resolve(path, ctx.cwd ?? 'C:\\'), content) === 'ok',
      readFile: (path) => ctx.fs.read(ctx.fs.resolve(path, ctx.cwd ?? 'C:\\')),
    }, true);
  }
  const silent = args.some((a) => /^-[a-zA-Z]*s[a-zA-Z]*$/.test(a) && !/S/.test(a));
  const url = args.filter((a, i) => !a.startsWith('-') && !/^-(o|H|d|X|m|u|A|e|w)$/.test(args[i - 1] ?? '')).pop();
  if (!url) {
    yield* err('curl: try \'curl --help\' for more information\r\n');
    return 2;
  }
  const t = target(url);
  if (!t) { yield* err(`curl: (3) URL rejected: Malformed input to a URL function\r\n`); return 3; }
  const addr = resolveLocally(t.host, ctx);
  if (addr === undefined) {
    yield { kind: 'sleep', ms: 10_000 };
    if (!silent) yield* err(`curl: (6) Could not resolve host: ${t.host}\r\n`);
    return 6;
  }
  if (isLocalAddress(addr, ctx)) {
    yield { kind: 'sleep', ms: 2000 };
    if (!silent) yield* err(`curl: (7) Failed to connect to ${t.host} port ${t.port} after 2000 ms: Couldn't connect to server\r\n`);
    return 7;
  }
  yield { kind: 'sleep', ms: CONNECT_TIMEOUT_MS };
  if (!silent) yield* err(`curl: (28) Failed to connect to ${t.host} port ${t.port} after ${CONNECT_TIMEOUT_MS} ms: Timed out\r\n`);
  return 28;
}

/** netstat.exe: the container's listening sockets (the RPC endpoint mapper) with -a; no connections are ever established here. */
export function netstat(args: string[], ctx: ShellContext): string {
  const flags = args.filter((a) => /^[-/]/.test(a)).map((a) => a.slice(1).toLowerCase()).join('');
  const all = flags.includes('a');
  const numeric = flags.includes('n');
  const host = ctx.hostname.toUpperCase();
  const row = (proto: string, local: string, foreign: string, state: string) => `  ${proto.padEnd(7)}${local.padEnd(23)}${foreign.padEnd(23)}${state}`;
  const rows = all ? [
    row('TCP', numeric ? '0.0.0.0:135' : '0.0.0.0:epmap', numeric ? '0.0.0.0:0' : `${host}:0`, 'LISTENING'),
    row('TCP', numeric ? '[::]:135' : '[::]:epmap', numeric ? '[::]:0' : `${host}:0`, 'LISTENING'),
  ] : [];
  return `\r\nActive Connections\r\n\r\n  Proto  Local Address          Foreign Address        State\r\n${rows.map((r) => r + '\r\n').join('')}`;
}

/** whoami.exe: `domain\user` of the process's account, lower-cased (from USERDOMAIN and USERNAME; upper-cased keys). */
export function whoami(env: ReadonlyMap<string, string>): string {
  return `${env.get('USERDOMAIN') ?? 'User Manager'}\\${env.get('USERNAME') ?? 'ContainerAdministrator'}`.toLowerCase();
}

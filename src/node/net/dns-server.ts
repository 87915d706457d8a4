/**
 * The cluster DNS as a real DNS server: UDP and TCP (RFC 1035 4.2, the TCP
 * message prefixed by its two-byte length, RFC 7766) on one address and
 * port, answering from dns-records.ts as the pods' resolvers see it.
 *
 * Over UDP a response larger than the requestor's payload size (512, or its
 * EDNS0 OPT size) is cut to its header and question with TC set, so the
 * resolver asks again over TCP (miekg/dns's Truncate, which CoreDNS uses,
 * keeps whole records that fit; a bare TC is what glibc and c-ares need).
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import { answerQuery, type QType, type RecordSources } from './dns-records.js';
import { decodeQuery, encodeResponse, MalformedMessage, RCODE, TYPE, type Query, type Response } from './dns-wire.js';
import { DNS_DOMAIN } from '../network.js';
import type { CoreDNS } from './coredns.js';
import type { CoreDNSAnswer } from './coredns-routing.js';

export interface DNSServerOptions {
  host: string;
  port: number;
  sources: RecordSources;
  domain?: string;
  /** The cluster DNS Service's address: the A record of ns.dns.<zone>. */
  dnsIP?: string;
  /** CoreDNS's Corefile and the outside world: where names outside the cluster zone go. Without it they are SERVFAIL. */
  coreDNS?: CoreDNS;
}

export interface RunningDNSServer {
  /** The UDP and TCP port (the same; the one picked when 0 was asked). */
  port: number;
  close(): Promise<void>;
}

const QTYPES = new Map<number, QType>(Object.entries(TYPE).filter(([k]) => k !== 'OPT').map(([k, v]) => [v, k as QType]));

/**
 * Encoded answers by question, transport and the query's flags, valid while
 * the sources' generation stays the same: a repeated question costs a copy
 * (the role kubeadm's Corefile gives CoreDNS's `cache 30`, except that a
 * change is seen at once, as the pods' in-process lookups see it).
 */
export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();
  private generation = NaN;
  constructor(private readonly max = 10_000) {}

  /** The key of a query's answer: everything of the message but its ID. */
  static key(msg: Buffer, udp: boolean): string {
    return `${udp ? 'u' : 't'}${msg.toString('latin1', 2)}`;
  }

  get(key: string, generation: number): Buffer | undefined {
    if (generation !== this.generation) { this.entries.clear(); this.generation = generation; return undefined; }
    return this.entries.get(key);
  }

  set(key: string, generation: number, wire: Buffer): void {
    if (generation !== this.generation) return;
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, Buffer.from(wire));
  }
}

/** The response to a raw query (over UDP: cut to fit); undefined when it cannot be answered at all (not even an ID to echo). */
export function respond(msg: Buffer, opts: Omit<DNSServerOptions, 'host' | 'port'>, udp = false, cache?: AnswerCache): Buffer | undefined {
  return respondLater(msg, opts, udp, cache).wire;
}

/** The response and how long the server takes to send it (a forward whose upstreams never answer). */
export function respondLater(msg: Buffer, opts: Omit<DNSServerOptions, 'host' | 'port'>, udp = false, cache?: AnswerCache): { wire: Buffer | undefined; delayMs: number } {
  const generation = opts.sources.generation?.();
  const key = cache && generation !== undefined && msg.length >= 12 && msg.length <= 512 ? AnswerCache.key(msg, udp) : undefined;
  if (key !== undefined) {
    const hit = cache!.get(key, generation!);
    if (hit) {
      const out = Buffer.allocUnsafe(hit.length);
      hit.copy(out);
      out[0] = msg[0]!;
      out[1] = msg[1]!;
      return { wire: out, delayMs: 0 };
    }
  }
  const late = { delayMs: 0 };
  const out = answer(msg, opts, udp, late);
  // A timed-out forward is asked again next time, as CoreDNS's cache does not keep it.
  if (out && key !== undefined && !late.delayMs) cache!.set(key, generation!, out);
  return { wire: out, delayMs: late.delayMs };
}

function answer(msg: Buffer, opts: Omit<DNSServerOptions, 'host' | 'port'>, udp: boolean, late: { delayMs: number }): Buffer | undefined {
  let q: Query;
  try {
    q = decodeQuery(msg);
  } catch (e) {
    if (!(e instanceof MalformedMessage) || msg.length < 2) return undefined;
    return encodeResponse({ id: msg.readUInt16BE(0), opcode: 0, rd: false, aa: false, rcode: RCODE.FORMERR, answer: [], authority: [], additional: [] });
  }
  const base = { id: q.id, opcode: q.opcode, rd: q.rd, ...(q.question ? { question: q.question } : {}), ...(q.ednsUdpSize !== undefined ? { ednsUdpSize: Math.max(512, q.ednsUdpSize) } : {}) };
  let res: Response;
  if (q.opcode !== 0) res = { ...base, aa: false, rcode: RCODE.NOTIMP, answer: [], authority: [], additional: [] };
  else if (!q.question) res = { ...base, aa: false, rcode: RCODE.FORMERR, answer: [], authority: [], additional: [] };
  else {
    const qtype = QTYPES.get(q.question.type) ?? 'OTHER';
    const z: CoreDNSAnswer = opts.coreDNS
      ? opts.coreDNS.answer(q.question.name, qtype, opts.sources, opts.dnsIP)
      : answerQuery(q.question.name, qtype, opts.sources, opts.domain ?? DNS_DOMAIN, opts.dnsIP);
    late.delayMs = z.delayMs ?? 0;
    res = { ...base, aa: z.authoritative, ...(z.recursionAvailable ? { ra: true } : {}), rcode: RCODE[z.rcode], answer: z.answer, authority: z.authority, additional: z.additional };
  }
  const wire = encodeResponse(res);
  if (!udp) return wire;
  const limit = Math.max(512, q.ednsUdpSize ?? 512);
  return wire.length <= limit ? wire : encodeResponse({ ...res, tc: true, answer: [], authority: [], additional: [] });
}

/** Serves the cluster zone on host:port over UDP and TCP. */
export async function startDNSServer(opts: DNSServerOptions): Promise<RunningDNSServer> {
  const answerOpts = { sources: opts.sources, ...(opts.domain ? { domain: opts.domain } : {}), ...(opts.dnsIP ? { dnsIP: opts.dnsIP } : {}), ...(opts.coreDNS ? { coreDNS: opts.coreDNS } : {}) };
  const timers = new Set<NodeJS.Timeout>();
  const later = (delayMs: number, send: () => void) => {
    if (!delayMs) { send(); return; }
    const t = setTimeout(() => { timers.delete(t); send(); }, delayMs);
    timers.add(t);
  };
  const cache = new AnswerCache();
  const tcp: Server = createServer((sock) => serveTcp(sock, answerOpts, cache, later));
  const tcpSockets = new Set<TcpSocket>();
  tcp.on('connection', (s) => { tcpSockets.add(s); s.once('close', () => tcpSockets.delete(s)); });
  await new Promise<void>((resolve, reject) => { tcp.once('error', reject); tcp.listen(opts.port, opts.host, () => { tcp.off('error', reject); resolve(); }); });
  const port = (tcp.address() as { port: number }).port;
  const udp: Socket = createSocket(opts.host.includes(':') ? 'udp6' : 'udp4');
  udp.on('message', (msg, rinfo) => {
    const { wire, delayMs } = respondLater(msg, answerOpts, true, cache);
    if (wire) later(delayMs, () => udp.send(wire, rinfo.port, rinfo.address));
  });
  // A failed send (the requestor gone) is the requestor's loss, not the server's.
  udp.on('error', () => {});
  try {
    await new Promise<void>((resolve, reject) => { udp.once('error', reject); udp.bind(port, opts.host, () => { udp.off('error', reject); resolve(); }); });
  } catch (e) {
    tcp.close();
    throw e;
  }
  return {
    port,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of tcpSockets) s.destroy();
      await Promise.all([new Promise<void>((r) => tcp.close(() => r())), new Promise<void>((r) => udp.close(() => r()))]);
    },
  };
}

/** Length-prefixed messages, answered in order, on one connection (RFC 7766 pipelining). */
function serveTcp(sock: TcpSocket, opts: Omit<DNSServerOptions, 'host' | 'port'>, cache: AnswerCache, later: (delayMs: number, send: () => void) => void): void {
  let pending = Buffer.alloc(0);
  sock.setNoDelay(true);
  sock.on('error', () => sock.destroy());
  sock.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 2) {
      const len = pending.readUInt16BE(0);
      if (pending.length < 2 + len) break;
      const msg = pending.subarray(2, 2 + len);
      pending = pending.subarray(2 + len);
      const { wire: out, delayMs } = respondLater(msg, opts, false, cache);
      if (!out) { sock.destroy(); return; }
      const head = Buffer.allocUnsafe(2);
      head.writeUInt16BE(out.length);
      later(delayMs, () => { if (!sock.destroyed) sock.write(Buffer.concat([head, out])); });
    }
  });
}

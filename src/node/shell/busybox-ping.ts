/**
 * busybox ping (networking/ping.c) through the cluster network: one echo
 * request a second; a reply prints `64 bytes from IP: seq=N ttl=64 time=T
 * ms`; after -c requests the statistics block, and exit 1 when nothing
 * came back. With nothing answering, ping waits -W seconds (MAXWAIT, 10)
 * after the last request before it gives up.
 *
 * The reply's TTL is a Linux stack's initial 64 and the round trip a
 * constant (no clock of the model measures one).
 */
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

const DATA_BYTES = 56;
const MAX_WAIT_S = 10;
/** The round trip shown, in microseconds (ping.c prints it as ms with three decimals). */
const RTT_US = 84;
const LINUX_TTL = 64;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const ms = (us: number) => `${Math.floor(us / 1000)}.${String(us % 1000).padStart(3, '0')}`;

interface PingArgs { host?: string; count?: number; waitS: number; quiet: boolean }

function parse(args: readonly string[]): PingArgs | string {
  const out: PingArgs = { waitS: MAX_WAIT_S, quiet: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^-([cWwsIit])(.*)$/.exec(a);
    if (m) {
      const v = m[2] || args[++i];
      if (v === undefined) return `ping: option requires an argument -- '${m[1]}'`;
      if (m[1] === 'c') out.count = Number(v);
      if (m[1] === 'W') out.waitS = Number(v);
      continue;
    }
    if (a === '-q') { out.quiet = true; continue; }
    if (/^-[46]$/.test(a)) continue;
    out.host = a;
  }
  return out;
}

/** The address a name resolves to (the first of the answer), as getaddrinfo gives it to ping. */
function address(host: string, io: ToolIO): string | undefined {
  if (IPV4.test(host)) return host;
  if (host === 'localhost') return '127.0.0.1';
  if (host === io.ctx.hostname) return io.ctx.net?.podIP ?? io.ctx.network?.podIP;
  return io.ctx.net?.lookup(host)?.addresses[0];
}

export function* busyboxPing(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const p = parse(args);
  if (typeof p === 'string') { yield* io.err(p + '\n'); return 1; }
  if (p.host === undefined) { yield* io.err('BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: ping [OPTIONS] HOST\n'); return 1; }
  const ip = address(p.host, io);
  if (ip === undefined) { yield* io.err(`ping: bad address '${p.host}'\n`); return 1; }
  const answered = () => {
    if (io.ctx.net) return io.ctx.net.ping(ip).kind === 'reply';
    return /^127\./.test(ip) || ip === io.ctx.network?.podIP;
  };
  yield* io.out(`PING ${p.host} (${ip}): ${DATA_BYTES} data bytes\n`);
  let received = 0;
  let sent = 0;
  for (; p.count === undefined || sent < p.count; sent++) {
    if (sent > 0) yield { kind: 'sleep', ms: 1000 };
    if (answered()) {
      received++;
      if (!p.quiet) yield* io.out(`${DATA_BYTES + 8} bytes from ${ip}: seq=${sent} ttl=${LINUX_TTL} time=${ms(RTT_US)} ms\n`);
    }
  }
  if (received < sent) yield { kind: 'sleep', ms: p.waitS * 1000 };
  yield* io.out(`\n--- ${p.host} ping statistics ---\n${sent} packets transmitted, ${received} packets received, ${Math.floor((sent - received) * 100 / sent)}% packet loss\n` +
    (received ? `round-trip min/avg/max = ${ms(RTT_US)}/${ms(RTT_US)}/${ms(RTT_US)} ms\n` : ''));
  return received ? 0 : 1;
}

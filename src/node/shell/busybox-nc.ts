/**
 * busybox nc (nc_bloaty.c, netcat 1.10's options) as a TCP client of the
 * cluster network: `nc [-z] [-v[v]] [-w SECS] HOST PORT`.
 *
 * - connected: with -v `HOST (IP:PORT) open` on stderr; -z ends there with
 *   0, otherwise the connection stays open until nc is stopped.
 * - refused: exit 1, silent unless -vv (`nc: HOST (IP:PORT): Connection
 *   refused`), as nc 1.10 keeps refusals quiet while scanning.
 * - unanswered: after -w seconds (else the kernel's SYN retries) `nc: HOST
 *   (IP:PORT): Connection timed out` with -v; exit 1.
 * - -vv ends with ` sent 0, rcvd 0`.
 * - a name that does not resolve: `nc: bad address 'HOST'`, exit 1.
 * - -u: standard input as one datagram, each datagram that comes back
 *   written to stdout as it is, then -w seconds without input before it
 *   exits 0; an ICMP port unreachable ends it with 1, silently. agnhost's
 *   netcat-openbsd behaves the same for `echo X | nc -w 1 -u HOST PORT`.
 */
import { LINUX_CONNECT_TIMEOUT_MS, type ToolIO } from './http-tools.js';
import type { Step } from './types.js';

interface NcArgs { zero: boolean; verbose: number; waitS?: number; listen: boolean; udp: boolean; operands: string[] }

function parse(args: readonly string[]): NcArgs {
  const out: NcArgs = { zero: false, verbose: 0, listen: false, udp: false, operands: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') { out.operands.push(a); continue; }
    for (let j = 1; j < a.length; j++) {
      const f = a[j];
      if (f === 'z') out.zero = true;
      else if (f === 'v') out.verbose++;
      else if (f === 'l') out.listen = true;
      else if (f === 'u') out.udp = true;
      else if (f === 'w' || f === 'p' || f === 's' || f === 'e' || f === 'o' || f === 'i') {
        const v = a.slice(j + 1) || args[++i];
        if (f === 'w' && v !== undefined) out.waitS = Number(v);
        break;
      }
    }
  }
  return out;
}

export function* busyboxNc(args: readonly string[], io: ToolIO, stdin: () => string = () => ''): Generator<Step, number, void> {
  const p = parse(args);
  const [host, portArg] = p.operands;
  if (p.listen) { yield { kind: 'forever' }; return 0; }
  if (host === undefined || portArg === undefined) {
    yield* io.err('BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: nc [OPTIONS] HOST PORT  - connect\nnc [OPTIONS] -l -p PORT [HOST] [PORT]  - listen\n');
    return 1;
  }
  const port = Number(portArg);
  if (!Number.isInteger(port) || port < 1 || port > 65535) { yield* io.err(`nc: bad port '${portArg}'\n`); return 1; }
  const ip = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : io.ctx.net?.lookup(host)?.addresses[0];
  if (ip === undefined) { yield* io.err(`nc: bad address '${host}'\n`); return 1; }
  const where = `${host} (${ip}:${port})`;
  if (p.udp) return yield* udp(io, p, ip, port, stdin());
  const conn = io.ctx.net?.connect(ip, port) ?? { kind: 'timeout' as const };
  let code = 1;
  if (conn.kind === 'connected') {
    if (p.verbose) yield* io.err(`${where} open\n`);
    if (!p.zero) { yield { kind: 'forever' }; return 0; }
    code = 0;
  } else if (conn.kind === 'refused') {
    if (p.verbose > 1) yield* io.err(`nc: ${where}: Connection refused\n`);
  } else {
    yield { kind: 'sleep', ms: p.waitS !== undefined && p.waitS > 0 ? p.waitS * 1000 : LINUX_CONNECT_TIMEOUT_MS };
    if (p.verbose) yield* io.err(`nc: ${where}: Connection timed out\n`);
  }
  if (p.verbose > 1) yield* io.err(' sent 0, rcvd 0\n');
  return code;
}

/** -u: one datagram out, the answers printed, then the -w idle wait (without -w nc waits for input for ever). */
function* udp(io: ToolIO, p: NcArgs, ip: string, port: number, input: string): Generator<Step, number, void> {
  const r = io.ctx.net?.sendDatagram?.(ip, port, input);
  if (r?.kind === 'refused') return 1;
  if (r?.kind === 'reply') for (const text of r.payloads) if (text) yield* io.out(text);
  if (p.waitS === undefined || !(p.waitS > 0)) { yield { kind: 'forever' }; return 0; }
  yield { kind: 'sleep', ms: p.waitS * 1000 };
  return 0;
}

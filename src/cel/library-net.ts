/**
 * Kubernetes' CEL IP and CIDR libraries (apiserver pkg/cel/library/ip.go and cidr.go, enabled from
 * v1.30 in environment.MustBaseEnvSet): isIP, ip, family, isUnspecified, isLoopback, isCIDR, cidr,
 * containsIP, containsCIDR, ip(), masked, prefixLength. Addresses follow Go's net/netip (no leading
 * zeros in IPv4 parts, no zones, no IPv4-mapped IPv6 addresses).
 *
 * The evaluator cannot declare new CEL types, so an IP or CIDR value is a one-entry map under a key
 * no JSON value has: equality works as upstream's (same address, same prefix), type() does not.
 */
import { celFunc, celMethod, CelScalar, isCelMap, type CelFunc, type CelInput, type CelValue } from '@bufbuild/cel';

const IP_KEY = '\u0000net.IP';
const CIDR_KEY = '\u0000net.IPPrefix';

interface Addr { bits: bigint; v6: boolean }
interface Prefix { addr: Addr; len: number }

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let out = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    out = (out << 8n) | BigInt(p);
  }
  return out;
}

function parseV6(s: string): bigint | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): bigint[] | undefined => {
    if (h === '') return [];
    const out: bigint[] = [];
    const parts = h.split(':');
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (v4 === undefined) return undefined;
        out.push(v4 >> 16n, v4 & 0xffffn);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(BigInt(`0x${p}`));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...Array<bigint>(missing).fill(0n), ...tail].reduce((a, g) => (a << 16n) | g, 0n);
}

function isV4Mapped(a: Addr): boolean {
  return a.v6 && a.bits >> 32n === 0xffffn;
}

/** netip.ParseAddr with the library's extra refusals; undefined when not an address it accepts. */
function parseAddr(s: string): Addr | undefined {
  if (s.includes('%')) return undefined;
  const v4 = parseV4(s);
  if (v4 !== undefined) return { bits: v4, v6: false };
  const v6 = parseV6(s);
  if (v6 === undefined) return undefined;
  const a = { bits: v6, v6: true };
  return isV4Mapped(a) ? undefined : a;
}

function parsePrefix(s: string): Prefix | undefined {
  const i = s.lastIndexOf('/');
  if (i < 0) return undefined;
  const addr = parseAddr(s.slice(0, i));
  const len = s.slice(i + 1);
  if (!addr || !/^(0|[1-9][0-9]*)$/.test(len) || Number(len) > (addr.v6 ? 128 : 32)) return undefined;
  return { addr, len: Number(len) };
}

/** netip.Addr.String: dotted IPv4; IPv6 with the first longest run of two or more zero groups as `::`. */
function formatAddr(a: Addr): string {
  if (!a.v6) return [24n, 16n, 8n, 0n].map((sh) => String((a.bits >> sh) & 0xffn)).join('.');
  const g = Array.from({ length: 8 }, (_, i) => (a.bits >> BigInt(112 - 16 * i)) & 0xffffn);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && g[j] === 0n) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j === i ? i + 1 : j;
  }
  const hex = (xs: bigint[]) => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

function mask(a: Addr, len: number): Addr {
  const width = a.v6 ? 128n : 32n;
  const hostBits = width - BigInt(len);
  return { bits: (a.bits >> hostBits) << hostBits, v6: a.v6 };
}

const ipValue = (a: Addr): CelInput => new Map([[IP_KEY, formatAddr(a)]]);
const cidrValue = (p: Prefix): CelInput => new Map([[CIDR_KEY, `${formatAddr(p.addr)}/${p.len}`]]);

function tagged(v: CelValue, key: string): string | undefined {
  if (!isCelMap(v)) return undefined;
  const s = v.get(key);
  return typeof s === 'string' ? s : undefined;
}

function ipOf(v: CelValue): Addr {
  const s = typeof v === 'string' ? v : tagged(v, IP_KEY);
  const a = s === undefined ? undefined : parseAddr(s);
  if (!a) throw new Error(typeof v === 'string' ? `IP Address ${JSON.stringify(v)} parse error during conversion from string` : 'no such overload');
  return a;
}

function cidrOf(v: CelValue): Prefix {
  const s = typeof v === 'string' ? v : tagged(v, CIDR_KEY);
  const p = s === undefined ? undefined : parsePrefix(s);
  if (!p) throw new Error(typeof v === 'string' ? `network address parse error during conversion from string: ${JSON.stringify(v)}` : 'no such overload');
  return p;
}

function contains(p: Prefix, a: Addr): boolean {
  return p.addr.v6 === a.v6 && mask(a, p.len).bits === mask(p.addr, p.len).bits;
}

export const netCelFuncs: CelFunc[] = [
  celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s) => parseAddr(s) !== undefined),
  celFunc('ip', [CelScalar.STRING], CelScalar.DYN, (s) => ipValue(ipOf(s))),
  celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s) => parsePrefix(s) !== undefined),
  celFunc('cidr', [CelScalar.STRING], CelScalar.DYN, (s) => cidrValue(cidrOf(s))),
  celMethod('family', CelScalar.DYN, [], CelScalar.INT, function () { return ipOf(this).v6 ? 6n : 4n; }),
  celMethod('isUnspecified', CelScalar.DYN, [], CelScalar.BOOL, function () { return ipOf(this).bits === 0n; }),
  celMethod('isLoopback', CelScalar.DYN, [], CelScalar.BOOL, function () {
    const a = ipOf(this);
    return a.v6 ? a.bits === 1n : a.bits >> 24n === 127n;
  }),
  celMethod('ip', CelScalar.DYN, [], CelScalar.DYN, function () { return ipValue(cidrOf(this).addr); }),
  celMethod('masked', CelScalar.DYN, [], CelScalar.DYN, function () {
    const p = cidrOf(this);
    return cidrValue({ addr: mask(p.addr, p.len), len: p.len });
  }),
  celMethod('prefixLength', CelScalar.DYN, [], CelScalar.INT, function () { return BigInt(cidrOf(this).len); }),
  celMethod('containsIP', CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) { return contains(cidrOf(this), ipOf(other)); }),
  celMethod('containsCIDR', CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    const p = cidrOf(this);
    const q = cidrOf(other);
    return q.len >= p.len && contains(p, q.addr);
  }),
];

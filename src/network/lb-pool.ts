/**
 * The LoadBalancer address pool: where winkube's stand-in for a cloud load
 * balancer (or MetalLB on a bare-metal cluster) takes Service ingress IPs
 * from. Written as a range ("172.18.255.200-172.18.255.250") or a CIDR
 * ("172.18.255.192/27", network and broadcast excluded), or several
 * separated by commas.
 */
import { isIPv4 } from 'node:net';

export const DEFAULT_LB_POOL = '172.18.255.200-172.18.255.250';

export class LBPoolError extends Error {}

const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toIP = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

export class LBPool {
  private constructor(private readonly ranges: [number, number][], readonly text: string) {}

  static parse(text: string): LBPool {
    const ranges: [number, number][] = [];
    for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
      const cidr = /^([\d.]+)\/(\d{1,2})$/.exec(part);
      if (cidr) {
        const [, ip = '', prefixLength = ''] = cidr;
        const bits = Number(prefixLength);
        if (!isIPv4(ip) || bits > 32) throw new LBPoolError(`invalid load balancer pool ${JSON.stringify(part)}: not an IPv4 CIDR`);
        const size = 2 ** (32 - bits);
        const base = Math.floor(toInt(ip) / size) * size;
        ranges.push(size <= 2 ? [base, base + size - 1] : [base + 1, base + size - 2]);
        continue;
      }
      const [a = '', b] = part.split('-').map((s) => s.trim());
      const last = b ?? a;
      if (!isIPv4(a) || !isIPv4(last)) throw new LBPoolError(`invalid load balancer pool ${JSON.stringify(part)}: want <first IP>-<last IP> or a CIDR`);
      if (toInt(last) < toInt(a)) throw new LBPoolError(`invalid load balancer pool ${JSON.stringify(part)}: the last address comes before the first`);
      ranges.push([toInt(a), toInt(last)]);
    }
    if (!ranges.length) throw new LBPoolError('the load balancer pool is empty');
    return new LBPool(ranges, text);
  }

  contains(ip: string): boolean {
    if (!isIPv4(ip)) return false;
    const n = toInt(ip);
    return this.ranges.some(([a, b]) => n >= a && n <= b);
  }

  /** The first address not in `used`, in pool order. */
  firstFree(used: Set<string>): string | undefined {
    for (const [a, b] of this.ranges) for (let n = a; n <= b; n++) if (!used.has(toIP(n))) return toIP(n);
    return undefined;
  }

  get size(): number { return this.ranges.reduce((s, [a, b]) => s + b - a + 1, 0); }
}

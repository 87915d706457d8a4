/** IPv4 addresses and CIDRs as numbers, for "is this address in that range" questions. */

export function ipv4ToNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

export function inCIDR(ip: string, cidr: string): boolean {
  const [base = '', bits = ''] = cidr.split('/');
  const a = ipv4ToNumber(ip);
  const b = ipv4ToNumber(base);
  const prefix = Number(bits);
  if (a === undefined || b === undefined || !(prefix >= 0 && prefix <= 32)) return false;
  const size = 2 ** (32 - prefix);
  return Math.floor(a / size) === Math.floor(b / size);
}

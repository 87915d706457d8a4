/** IPv4 addresses and CIDRs as numbers: NetworkPolicy ipBlocks, OutBoundNAT exceptions, the cluster's ranges. */

/** The address as an unsigned 32-bit number; undefined when it is not a dotted IPv4 address. */
export function ipv4Number(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return undefined;
  return octets.reduce((n, o) => n * 256 + o, 0);
}

/**
 * Whether the CIDR holds the address; a bare address is a /32 (as HNS reads
 * an ExceptionList entry). A CIDR of another family (an IPv6 ipBlock) or
 * one that does not parse holds no IPv4 address.
 */
export function ipv4InCIDR(ip: string, cidr: string): boolean {
  const slash = cidr.indexOf('/');
  const base = ipv4Number(slash < 0 ? cidr : cidr.slice(0, slash));
  const bits = slash < 0 ? '32' : cidr.slice(slash + 1);
  const addr = ipv4Number(ip);
  if (base === undefined || addr === undefined || !/^\d{1,2}$/.test(bits) || Number(bits) > 32) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(addr / size) === Math.floor(base / size);
}

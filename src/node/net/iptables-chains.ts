/**
 * The names of kube-proxy's per-Service iptables chains
 * (pkg/proxy/iptables/proxier.go portProtoHash and
 * servicePortEndpointChainName): the prefix and the first 16 characters of
 * the base32 of sha256(service port name + lowercase protocol [+ endpoint]).
 */
import { createHash } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (Go's base32.StdEncoding), without the padding the 16-character prefix never reaches. */
function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) { out += BASE32[(value >>> (bits - 5)) & 31]; bits -= 5; }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

const hash16 = (s: string) => base32(createHash('sha256').update(s).digest()).slice(0, 16);

export type ServiceChain = 'KUBE-SVC' | 'KUBE-SVL' | 'KUBE-EXT';

/** KUBE-SVC-/KUBE-SVL-/KUBE-EXT- for a Service port (`ns/name[:port]`) and protocol. */
export function serviceChain(prefix: ServiceChain, servicePortName: string, protocol: string): string {
  return `${prefix}-${hash16(servicePortName + protocol.toLowerCase())}`;
}

/** KUBE-SEP- for one endpoint (`ip:port`) of a Service port. */
export function endpointChain(servicePortName: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${hash16(servicePortName + protocol.toLowerCase() + endpoint)}`;
}

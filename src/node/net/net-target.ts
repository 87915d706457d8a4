/**
 * `winkube net check`'s TO as the command and the web view read it: ADDRESS[:PORT] for a TCP
 * connection (the port after the last colon, 80 when none), a bare ADDRESS for an ICMP echo.
 */
export type NetProtocol = 'tcp' | 'icmp';

/** TO[:PORT]: the port after the last colon (80 when none). */
export function splitTarget(to: string): { to: string; port: number } | undefined {
  const m = /^(.*?)(?::(\d+))?$/.exec(to);
  if (!m?.[1]) return undefined;
  const port = m[2] === undefined ? 80 : Number(m[2]);
  return port >= 1 && port <= 65535 ? { to: m[1], port } : undefined;
}

/** The target of a check: with its port for TCP, without one for an echo; undefined when it does not parse. */
export function parseNetTarget(target: string, protocol: NetProtocol): { to: string; port: number } | { to: string } | undefined {
  if (protocol === 'tcp') return splitTarget(target);
  return /:\d+$/.test(target) ? undefined : { to: target };
}

/** The command's refusal of a target that does not parse. */
export const invalidTargetMessage = (target: string, protocol: NetProtocol): string =>
  `error: invalid target ${JSON.stringify(target)}: want ${protocol === 'icmp' ? 'ADDRESS (an echo has no port)' : 'ADDRESS[:PORT]'}`;

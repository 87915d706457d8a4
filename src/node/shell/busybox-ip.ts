/**
 * busybox `ip link add NAME type TYPE` (networking/libiproute/iplink.c): the
 * kernel refuses RTM_NEWLINK without CAP_NET_ADMIN, which a container has
 * only when privileged or given NET_ADMIN; rtnl_talk reports it with
 * bb_perror_msg("RTNETLINK answers"). Other `ip` forms are not modelled
 * (undefined: the shell answers as for a program it does not have).
 */
import type { ProcessIdentity } from './types.js';
import type { ToolResult } from './posix-id.js';

export function ipCommand(args: readonly string[], who: ProcessIdentity): ToolResult | undefined {
  const [object, verb, name, typeWord, type] = args;
  if (!((object === 'link' || object === 'l') && verb === 'add' && name && typeWord === 'type' && type && args.length === 5)) return undefined;
  if (!who.netAdmin) return { out: '', err: 'ip: RTNETLINK answers: Operation not permitted\n', code: 2 };
  return { out: '', err: '', code: 0 };
}

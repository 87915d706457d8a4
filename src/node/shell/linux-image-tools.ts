/**
 * Which network tools a Linux image has. The model knows an image by its
 * /bin/sh: busybox ash (busybox, alpine) or dash (Debian-based images:
 * debian, ubuntu, nginx).
 *
 * - busybox's defconfig builds ping, nslookup and nc (nc_bloaty, the
 *   NC_110_COMPAT default) as applets; it has no getent.
 * - Debian's base images have glibc's getent but no iputils-ping,
 *   dnsutils or netcat (`sh: 1: ping: not found`).
 */
import type { ShellContext } from './types.js';

const BUSYBOX_ONLY = new Set(['ping', 'nslookup', 'nc']);
const GLIBC_ONLY = new Set(['getent']);

/** Whether the container's image has the program (programs outside these lists are decided elsewhere). */
export function linuxImageHas(program: string, ctx: Pick<ShellContext, 'posixShell'>): boolean {
  const busybox = (ctx.posixShell ?? 'ash') === 'ash';
  if (BUSYBOX_ONLY.has(program)) return busybox;
  if (GLIBC_ONLY.has(program)) return !busybox;
  return true;
}

/**
 * Which network tools a Linux image has. The model knows an image by its
 * /bin/sh: busybox ash (busybox, alpine) or dash (Debian-based images:
 * debian, ubuntu, nginx), and a few images by name.
 *
 * - busybox's defconfig builds ping, nslookup, nc and sysctl (nc_bloaty, the
 *   NC_110_COMPAT default) as applets; it has no getent. Its nslookup is
 *   the applet with a resolver of its own from 1.29 on; busybox:1.28 and
 *   older have the old applet over libc's getaddrinfo (busybox-legacy-nslookup.ts).
 * - Debian's base images have glibc's getent but no iputils-ping,
 *   dnsutils or netcat (`sh: 1: ping: not found`).
 * - registry.k8s.io/e2e-test-images/jessie-dnsutils (the pod of the DNS
 *   debugging docs) is Debian jessie with bind9's dnsutils: nslookup, dig
 *   and host.
 */
import type { ShellContext } from './types.js';

const BUSYBOX_ONLY = new Set(['ping', 'nc', 'ip', 'sysctl']);
const GLIBC_ONLY = new Set(['getent']);
const DNSUTILS = new Set(['dig', 'host']);

/** Whose nslookup an image has: bind9's, busybox's since 1.29, busybox's old applet; none in a plain Debian image. */
export type NslookupFlavour = 'bind9' | 'busybox' | 'busybox-legacy';

type ImageFacts = Pick<ShellContext, 'posixShell' | 'image'>;

/**
 * The image's /bin/sh: busybox and Alpine-based images (agnhost is built on
 * alpine) have busybox ash; Debian-based images and, as most images are,
 * images the model does not know have dash.
 */
export function posixShellOf(image: string): 'ash' | 'dash' {
  return /(^|\/)(busybox|alpine|agnhost)([:@]|$)/.test(image) ? 'ash' : 'dash';
}

/** Whether the image is the dnsutils image (bind9's dnsutils on Debian jessie). */
function hasDnsutils(ctx: ImageFacts): boolean {
  return /(^|\/)jessie-dnsutils([:@]|$)/.test(ctx.image ?? '');
}

/** The busybox release a `busybox:<tag>` reference names (1.28, 1.28.4, 1.28-uclibc); undefined for latest or a digest. */
function busyboxRelease(image: string): [number, number] | undefined {
  const m = /(^|\/)busybox:(\d+)\.(\d+)/.exec(image);
  return m ? [Number(m[2]), Number(m[3])] : undefined;
}

export function nslookupFlavour(ctx: ImageFacts): NslookupFlavour | undefined {
  if (hasDnsutils(ctx)) return 'bind9';
  if ((ctx.posixShell ?? 'ash') !== 'ash') return undefined;
  const release = busyboxRelease(ctx.image ?? '');
  return release && (release[0] < 1 || (release[0] === 1 && release[1] <= 28)) ? 'busybox-legacy' : 'busybox';
}

/** Whether the container's image has the program (programs outside these lists are decided elsewhere). */
export function linuxImageHas(program: string, ctx: ImageFacts): boolean {
  const busybox = (ctx.posixShell ?? 'ash') === 'ash';
  if (program === 'nslookup') return nslookupFlavour(ctx) !== undefined;
  if (DNSUTILS.has(program)) return hasDnsutils(ctx);
  if (BUSYBOX_ONLY.has(program)) return busybox;
  if (GLIBC_ONLY.has(program)) return !busybox;
  return true;
}

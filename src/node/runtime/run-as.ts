/**
 * The uid and gid a Linux container's process runs as: runAsUser and
 * runAsGroup of the container's securityContext, else the pod's
 * (DetermineEffectiveSecurityContext), else the image's USER, which for
 * the images the model knows (agnhost, busybox, nginx, httpd) is root.
 * A runAsUser without runAsGroup keeps the image's primary group (0 here,
 * as containerd uses gid 0 for a uid the image's /etc/passwd lacks).
 */
import type { KObject } from '../../apimachinery/object.js';

type Obj = Record<string, any>;

export function runAsIdentity(pod: KObject, container: Obj): { uid: number; gid: number } {
  const psc = ((pod.spec ?? {}) as Obj).securityContext ?? {};
  const csc = container.securityContext ?? {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { uid: num(csc.runAsUser) ?? num(psc.runAsUser) ?? 0, gid: num(csc.runAsGroup) ?? num(psc.runAsGroup) ?? 0 };
}

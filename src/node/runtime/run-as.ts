/**
 * The uid and gid a Linux container's process runs as: runAsUser and
 * runAsGroup of the container's securityContext, else the pod's
 * (DetermineEffectiveSecurityContext), else the image's USER, which for
 * the images the model knows (agnhost, busybox, nginx, httpd) is root.
 * A runAsUser without runAsGroup keeps the image's primary group (0 here,
 * as containerd uses gid 0 for a uid the image's /etc/passwd lacks).
 */
import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';

export function runAsIdentity(pod: KObject, container: Pick<Container, 'securityContext'>): { uid: number; gid: number } {
  const psc = (pod.spec as PodSpec | undefined)?.securityContext;
  const csc = container.securityContext;
  return { uid: csc?.runAsUser ?? psc?.runAsUser ?? 0, gid: csc?.runAsGroup ?? psc?.runAsGroup ?? 0 };
}

/**
 * The user and groups a Linux container's process runs as, as the kubelet
 * (kuberuntime's determineEffectiveSecurityContext) and containerd's CRI
 * (WithUser, WithAdditionalGIDs) set them: runAsUser and runAsGroup from the
 * container's securityContext over the pod's, else the image's user (root);
 * the supplementary groups are the primary group, the pod's fsGroup and its
 * supplementalGroups, which the kernel keeps sorted (setgroups sorts them).
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { ProcessIdentity } from '../shell/types.js';

export function processIdentity(pod: Pod, container: Container): ProcessIdentity {
  const psc = pod.spec?.securityContext;
  const csc = container.securityContext;
  const uid = csc?.runAsUser ?? psc?.runAsUser ?? 0;
  // runc: without a group the process's gid is the user's passwd entry's (root's 0 for unknown users).
  const gid = csc?.runAsGroup ?? psc?.runAsGroup ?? 0;
  const extra = [...(psc?.fsGroup !== undefined ? [psc.fsGroup] : []), ...(psc?.supplementalGroups ?? [])];
  const groups = [...new Set([gid, ...extra])].sort((a, b) => a - b);
  // A non-root process has no effective capabilities; root has the runtime's defaults (no NET_ADMIN) plus what is added.
  const caps = (list: readonly string[] | undefined) => (list ?? []).map((x) => x.toUpperCase().replace(/^CAP_/, ''));
  const netAdmin = uid === 0 && !caps(csc?.capabilities?.drop).some((x) => x === 'NET_ADMIN' || x === 'ALL')
    && (csc?.privileged === true || caps(csc?.capabilities?.add).some((x) => x === 'NET_ADMIN' || x === 'ALL'));
  // The kubelet sets no_new_privs exactly when allowPrivilegeEscalation is false (AddNoNewPrivileges).
  return { uid, gid, groups, ...(csc?.allowPrivilegeEscalation === false ? { noNewPrivs: true } : {}), ...(netAdmin ? { netAdmin } : {}) };
}

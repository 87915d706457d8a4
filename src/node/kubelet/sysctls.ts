/**
 * A pod's sysctls as the v1.32 kubelet handles them: the allowlist admit
 * handler (pkg/kubelet/sysctl/allowlist.go, safe_sysctls.go; rejection
 * reason SysctlForbidden) and the values the container's namespaces then
 * hold, which `/proc/sys` shows (the runtime writes spec.securityContext.sysctls
 * into the pod's IPC and network namespaces).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Rejection } from './admission.js';
import { normalizeSysctlName, sysctlNamespace } from '../../os/linux-sysctls.js';

export const SYSCTL_FORBIDDEN_REASON = 'SysctlForbidden';

/**
 * SafeSysctlAllowlist on a Linux node (every kernel-version condition holds
 * on the emulated 6.1 kernel), with the value a fresh namespace has under
 * containerd 1.7 (unprivileged ports and ICMP not enabled).
 */
const SAFE_SYSCTL_DEFAULTS: ReadonlyMap<string, string> = new Map([
  ['kernel.shm_rmid_forced', '0'],
  ['net.ipv4.ip_local_port_range', '32768\t60999'],
  ['net.ipv4.tcp_syncookies', '1'],
  ['net.ipv4.ping_group_range', '1\t0'],
  ['net.ipv4.ip_unprivileged_port_start', '1024'],
  ['net.ipv4.ip_local_reserved_ports', ''],
  ['net.ipv4.tcp_keepalive_time', '7200'],
  ['net.ipv4.tcp_fin_timeout', '60'],
  ['net.ipv4.tcp_keepalive_intvl', '75'],
  ['net.ipv4.tcp_keepalive_probes', '9'],
  ['net.ipv4.tcp_rmem', '4096\t131072\t6291456'],
  ['net.ipv4.tcp_wmem', '4096\t16384\t4194304'],
]);

/**
 * patternAllowlist.Admit: every sysctl of the pod must be allowlisted and
 * not in a namespace the pod shares with the host. On Windows the
 * allowlist is empty. `allowedUnsafe` is --allowed-unsafe-sysctls (exact names only).
 */
export function sysctlAdmission(pod: Pod, os: 'linux' | 'windows', allowedUnsafe: readonly string[] = []): Rejection | undefined {
  const allowed = os === 'linux' ? new Set([...SAFE_SYSCTL_DEFAULTS.keys(), ...allowedUnsafe]) : new Set<string>();
  for (const s of pod.spec?.securityContext?.sysctls ?? []) {
    const name = normalizeSysctlName(s.name);
    let err: string;
    if (!allowed.has(name)) err = `"${name}" not allowlisted`;
    else {
      const ns = sysctlNamespace(name);
      if (ns === 'ipc' && pod.spec?.hostIPC) err = `"${name}" not allowed with host IPC enabled`;
      else if (ns === 'net' && pod.spec?.hostNetwork) err = `"${name}" not allowed with host Net enabled`;
      else continue;
    }
    return { reason: SYSCTL_FORBIDDEN_REASON, message: `forbidden sysctl: ${err}` };
  }
  return undefined;
}

/** The namespaced sysctls a container of the pod reads: the defaults, overridden by the pod's own. */
export function containerSysctls(pod: Pod): Map<string, string> {
  const out = new Map(SAFE_SYSCTL_DEFAULTS);
  for (const s of pod.spec?.securityContext?.sysctls ?? []) out.set(normalizeSysctlName(s.name), s.value);
  return out;
}

/** Where a sysctl lives under /proc/sys (dots are directory separators, slashes in a name are dots). */
export function sysctlProcPath(name: string): string {
  return '/proc/sys/' + name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

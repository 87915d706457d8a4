/**
 * Which Linux namespace a sysctl belongs to, as v1.32's
 * component-helpers/node/util/sysctl defines it (namespace.go, NormalizeName).
 * API validation (ValidateHostSysctl) and the kubelet's allowlist both ask it,
 * so a pod sharing the host's network or IPC namespace is judged the same way by each.
 */

export type SysctlNamespace = 'ipc' | 'net';

/** The IPC sysctls known by name; kernel.shm and kernel.msg stay for names written before the list existed. */
const IPC_NAMES: ReadonlySet<string> = new Set(['kernel.sem', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.shm_rmid_forced',
  'kernel.shm', 'kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.msg']);

/** NormalizeName: a name written with `/` separators (`net/ipv4/conf/eno2.100/rp_filter`) in its dotted form. */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

/**
 * GetNamespace's namespace: of the normalised name up to its first `*`, an
 * IPC name above or anything under `net.` or `fs.mqueue.`; undefined for a
 * sysctl of the whole node.
 */
export function sysctlNamespace(name: string): SysctlNamespace | undefined {
  const normal = normalizeSysctlName(name);
  const star = normal.indexOf('*');
  const key = star === -1 ? normal : normal.slice(0, star);
  if (IPC_NAMES.has(key) || key.startsWith('fs.mqueue.')) return 'ipc';
  if (key.startsWith('net.')) return 'net';
  return undefined;
}

/**
 * What the container runtime adds to a Linux container's filesystem beyond
 * its volumes (generateLinuxContainerConfig): the root filesystem mounted
 * read-only for securityContext.readOnlyRootFilesystem, and /proc/sys, a
 * read-only view of the pod's namespaced sysctls (the pod's own values
 * over the namespace's defaults).
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerFS } from '../shell/fs.js';
import { containerSysctls, sysctlProcPath } from './sysctls.js';

export function applyRuntimeFS(fs: ContainerFS, pod: Pod, container: Container, os: 'linux' | 'windows'): void {
  if (os !== 'linux') return;
  for (const [name, value] of containerSysctls(pod)) fs.mountFile(sysctlProcPath(name), `${value}\n`, true);
  if (container.securityContext?.readOnlyRootFilesystem) fs.setRootReadOnly();
}

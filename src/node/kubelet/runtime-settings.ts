/**
 * What the kubelet hands the runtime for each container's resources
 * (kuberuntime_container_windows.go calculateWindowsResources,
 * kuberuntime_container_linux.go calculateLinuxResources) and, on Windows,
 * its security context (applyWindowsContainerConfig: the effective
 * windowsOptions, each container field falling back to the pod's), as
 * shown by `winkube describe-runtime POD`.
 */
import { linuxContainerResources, windowsContainerResources, type ContainerResourcesInput } from '../../os/cpu-limits.js';

type Obj = Record<string, any>;

export interface ContainerRuntimeSettings {
  name: string;
  init: boolean;
  os: 'linux' | 'windows';
  /** CRI WindowsContainerResources or LinuxContainerResources fields the kubelet sets. */
  resources: Record<string, number>;
  /** Memory over the limit: OOMKilled (Linux) or failed allocations (Windows). */
  memoryLimitBehaviour: string;
  /** CRI WindowsContainerSecurityContext fields set from windowsOptions (RunAsUsername, CredentialSpec, HostProcess). */
  windowsSecurity: Record<string, string | boolean>;
}

/** The CRI fields the effective windowsOptions set (a container's own value, else the pod's). */
function windowsSecurityContext(container: Obj, podOptions: Obj | undefined): Record<string, string | boolean> {
  const own: Obj = container.securityContext?.windowsOptions ?? {};
  const pick = (k: string) => own[k] ?? podOptions?.[k];
  const out: Record<string, string | boolean> = {};
  if (pick('runAsUserName') !== undefined) out.RunAsUsername = pick('runAsUserName');
  if (pick('gmsaCredentialSpec') !== undefined) out.CredentialSpec = pick('gmsaCredentialSpec');
  if (pick('hostProcess') === true) out.HostProcess = true;
  return out;
}

export function containerRuntimeSettings(container: Obj, init: boolean, os: 'linux' | 'windows', logicalCPUs: number, podWindowsOptions?: Obj): ContainerRuntimeSettings {
  const res: ContainerResourcesInput = { requests: container.resources?.requests, limits: container.resources?.limits };
  const resources = os === 'windows'
    ? windowsContainerResources(res, logicalCPUs) as Record<string, number>
    : linuxContainerResources(res) as unknown as Record<string, number>;
  return {
    name: container.name, init, os, resources,
    memoryLimitBehaviour: os === 'windows'
      ? 'job object commit limit: allocations beyond the limit fail; the container is never OOM-killed'
      : 'cgroup memory.max: the kernel OOM-kills the container (OOMKilled, exit code 137)',
    windowsSecurity: os === 'windows' ? windowsSecurityContext(container, podWindowsOptions) : {},
  };
}

/** Every container of a pod on a node with `logicalCPUs` processors. */
export function podRuntimeSettings(pod: Obj, os: 'linux' | 'windows', logicalCPUs: number): ContainerRuntimeSettings[] {
  const spec = pod.spec ?? {};
  const podOptions = spec.securityContext?.windowsOptions;
  return [
    ...(spec.initContainers ?? []).map((c: Obj) => containerRuntimeSettings(c, true, os, logicalCPUs, podOptions)),
    ...(spec.containers ?? []).map((c: Obj) => containerRuntimeSettings(c, false, os, logicalCPUs, podOptions)),
  ];
}

/** The text `winkube describe-runtime` prints. */
export function formatRuntimeSettings(podName: string, nodeName: string, os: string, cpus: number, settings: ContainerRuntimeSettings[]): string {
  const lines = [`Pod:   ${podName}`, `Node:  ${nodeName} (${os}, ${cpus} logical CPUs)`, 'Containers:'];
  for (const s of settings) {
    lines.push(`  ${s.name}${s.init ? ' (init)' : ''}:`);
    const entries = Object.entries(s.resources);
    if (!entries.length) lines.push('    (no resource settings)');
    for (const [k, v] of entries) lines.push(`    ${k}: ${v}`);
    lines.push(`    memory limit: ${s.memoryLimitBehaviour}`);
    for (const [k, v] of Object.entries(s.windowsSecurity)) lines.push(`    ${k}: ${v}`);
  }
  return lines.join('\n') + '\n';
}

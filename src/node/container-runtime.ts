/**
 * The container runtime of a node pool, and the differences between
 * runtimes that the Kubernetes Windows documentation records, kept on the
 * NodeConfig so the kubelet emulation acts on them.
 *
 * - containerd (the default): CRI built in; `containerd://<version>`.
 * - docker: Docker EE, now Mirantis Container Runtime (MCR), reached since
 *   the dockershim removal (v1.24) through cri-dockerd, which reports the
 *   runtime name `docker` and the engine version: `docker://20.10.x`.
 *
 * Documented differences on Windows (concepts/windows/intro.md, "Windows
 * containers in Kubernetes", limitations and container-spec lists):
 * - "TerminationGracePeriod: requires containerD": under Docker the
 *   container gets CTRL_SHUTDOWN_EVENT and Windows waits its own default of
 *   5 seconds before stopping every process, whatever the pod asks.
 * - Windows cannot map single files into a Docker container: a volume
 *   mount of a single file (subPath to a file) fails.
 * - HostProcess containers need containerd 1.6 or later (KEP-1981).
 *   cri-dockerd never reads the HostProcess flag; what stops such a pod is
 *   its host network: cri-dockerd gives the sandbox container NetworkMode
 *   "host" (core/security_context.go modifyHostOptionsForSandbox), and
 *   Docker on Windows has no `host` network.
 */
import type { PoolOS } from './pool.js';

export type ContainerRuntimeName = 'containerd' | 'docker';

export const CONTAINER_RUNTIMES: readonly ContainerRuntimeName[] = ['containerd', 'docker'];

/** Engine versions the emulated runtimes report. */
export const CONTAINERD_VERSION = '1.7.24';
export const MCR_VERSION = '20.10.9';

export interface ContainerRuntime {
  name: ContainerRuntimeName;
  version: string;
  /** status.nodeInfo.containerRuntimeVersion: `<runtime name>://<version>`. */
  containerRuntimeVersion: string;
  /** The kubelet's --container-runtime-endpoint. */
  endpoint: string;
  /**
   * Seconds a container is given to stop, whatever terminationGracePeriodSeconds says;
   * undefined when the runtime honours the pod's grace period.
   */
  fixedStopTimeoutSeconds?: number;
  /** Whether a single file can be mounted into a container. */
  singleFileMounts: boolean;
  /**
   * Why a sandbox on the node's own network (hostNetwork: every HostProcess
   * pod) cannot be created, as the runtime's error after `desc = `; undefined
   * when it can. `%s` stands for the pod's name.
   */
  hostNetworkSandboxError?: string;
}

/** The runtime profile of a node: what it reports and how it differs. */
export function containerRuntime(name: ContainerRuntimeName, os: PoolOS): ContainerRuntime {
  const windows = os === 'windows';
  if (name === 'docker') {
    return {
      name, version: MCR_VERSION, containerRuntimeVersion: `docker://${MCR_VERSION}`,
      endpoint: windows ? 'npipe:////./pipe/cri-dockerd' : 'unix:///var/run/cri-dockerd.sock',
      ...(windows ? { fixedStopTimeoutSeconds: 5 } : {}),
      singleFileMounts: !windows,
      // cri-dockerd core/sandbox_run.go RunPodSandbox wraps Docker's answer to the sandbox's create.
      ...(windows ? { hostNetworkSandboxError: 'failed to create a sandbox for pod "%s": Error response from daemon: network host not found' } : {}),
    };
  }
  return {
    name, version: CONTAINERD_VERSION, containerRuntimeVersion: `containerd://${CONTAINERD_VERSION}`,
    endpoint: windows ? 'npipe:////./pipe/containerd-containerd' : 'unix:///run/containerd/containerd.sock',
    singleFileMounts: true,
  };
}

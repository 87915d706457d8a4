/**
 * An ephemeral container's targetContainerName (`kubectl debug --target`)
 * when the container is created. The kubelet names the target's newest
 * instance to the runtime (kuberuntime_container.go startSpec.getTargetID):
 * a target that never had an instance fails the start as a config error.
 * containerd on Linux then puts the new container in the target's PID
 * namespace and refuses a target that is not running (pkg/cri/server
 * container_create_linux.go containerSpec, helpers.go
 * validateTargetContainer). On Windows the kubelet hands the runtime no
 * namespace target (kuberuntime_container_windows.go
 * applyPlatformSpecificContainerConfig ignores it): the container joins the
 * pod's network compartment like any other, whatever state the target is
 * in. cri-dockerd's handling of the target is not modelled.
 */
import type { ContainerRuntimeName } from '../container-runtime.js';

/** The target's newest instance, as the runtime lists it. */
export interface TargetInstance {
  /** `containerd://<id>`. */
  containerID: string;
  running: boolean;
}

export interface TargetFailure {
  reason: 'CreateContainerConfigError' | 'CreateContainerError';
  message: string;
}

export interface TargetCheck {
  target: string | undefined;
  /** undefined: the target has no instance yet. */
  instance: TargetInstance | undefined;
  os: 'linux' | 'windows';
  runtime: ContainerRuntimeName;
  /** The ID containerd gave the container it was creating. */
  newContainerID: string;
}

export function targetContainerFailure(c: TargetCheck): TargetFailure | undefined {
  if (!c.target) return undefined;
  if (!c.instance) return { reason: 'CreateContainerConfigError', message: `unable to find target container ${c.target}` };
  if (c.os !== 'linux' || c.runtime !== 'containerd' || c.instance.running) return undefined;
  const targetID = c.instance.containerID.replace(/^[a-z]+:\/\//, '');
  return {
    reason: 'CreateContainerError',
    message: `failed to generate container "${c.newContainerID}" spec: invalid target container: container "${targetID}" is not running - in state CONTAINER_EXITED`,
  };
}

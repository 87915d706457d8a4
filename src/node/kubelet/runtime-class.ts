/**
 * The runtime handler a pod's RuntimeClass names, as the sandbox is created
 * (kuberuntime_sandbox.go createPodSandbox: runtimeClassManager.LookupRuntimeHandler,
 * then RunPodSandbox with that handler). The runtimes' answers:
 * - containerd 1.7 (pkg/cri/server/sandbox_run.go RunPodSandbox / getSandboxRuntime):
 *   `failed to get sandbox runtime: no runtime for "<handler>" is configured`;
 *   its default configuration has `runc` on Linux and `runhcs-wcow-process`,
 *   `runhcs-wcow-hypervisor` on Windows (pkg/cri/config/config_{unix,windows}.go).
 * - cri-dockerd (core/sandbox_run.go RunPodSandbox): only the handler `docker`:
 *   `RuntimeHandler "<handler>" not supported`.
 * The kubelet records the error as `Failed to create pod sandbox: <err>`
 * (kuberuntime_manager.go SyncPod, event FailedCreatePodSandBox).
 */
import type { ContainerRuntime } from '../container-runtime.js';
import type { KObject } from '../../apimachinery/object.js';

/** The handlers a runtime's default configuration serves. */
export function runtimeHandlers(runtime: ContainerRuntime, os: 'linux' | 'windows'): string[] {
  if (runtime.name === 'docker') return ['docker'];
  return os === 'windows' ? ['runhcs-wcow-process', 'runhcs-wcow-hypervisor'] : ['runc'];
}

/**
 * The error RunPodSandbox gives for the pod's RuntimeClass, as the gRPC
 * status text the kubelet prints; undefined when the sandbox can be created.
 */
export function sandboxRuntimeError(runtimeClassName: string | undefined | null, lookup: (name: string) => KObject | undefined,
  runtime: ContainerRuntime, os: 'linux' | 'windows'): string | undefined {
  if (!runtimeClassName) return undefined;
  const rc = lookup(runtimeClassName);
  // LookupRuntimeHandler returns the lister's NotFound error as is.
  if (!rc) return `runtimeclass.node.k8s.io "${runtimeClassName}" not found`;
  const handler = String((rc as Record<string, unknown>).handler ?? '');
  if (runtime.name === 'docker') {
    return handler !== '' && handler !== 'docker' ? `rpc error: code = Unknown desc = RuntimeHandler "${handler}" not supported` : undefined;
  }
  const handlers = runtimeHandlers(runtime, os);
  const effective = handler === '' ? handlers[0] ?? '' : handler;
  return handlers.includes(effective) ? undefined
    : `rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "${effective}" is configured`;
}

/**
 * Port-forward into a Windows pod: containerd 1.7 and cri-dockerd run
 * `wincat.exe 127.0.0.1 <port>` inside the pod's sandbox (pause) container
 * (containerd pkg/cri/server/sandbox_portforward_windows.go, dockershim's
 * docker_streaming_windows.go), so the sandbox image must carry wincat.
 * The Kubernetes pause images (registry.k8s.io/pause, its k8s.gcr.io
 * predecessor, and Microsoft's builds of it) do since Kubernetes 1.15; a
 * sandbox image of one's own is taken to lack it, as winkube cannot look
 * inside it. Without it kubectl reports the runtime's failure the Windows
 * troubleshooting guide quotes.
 */

/** The runtime's error for a port-forward into a sandbox without wincat. */
export const WINCAT_NOT_FOUND = 'unable to do port forwarding: wincat not found';

/** Repositories of the pause images that ship wincat.exe in their Windows variants. */
const PAUSE_WITH_WINCAT = new Set([
  'registry.k8s.io/pause',
  'k8s.gcr.io/pause',
  'mcr.microsoft.com/oss/kubernetes/pause',
  'mcr.microsoft.com/k8s/core/pause',
]);

/** The image reference without its tag or digest. */
function repository(image: string): string {
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function sandboxImageHasWincat(image: string): boolean {
  return PAUSE_WITH_WINCAT.has(repository(image));
}

/** Why the runtime cannot port-forward into a pod on a node of this OS and sandbox image; undefined when it can. */
export function portForwardSandboxError(os: 'linux' | 'windows', sandboxImage: string): string | undefined {
  return os === 'windows' && !sandboxImageHasWincat(sandboxImage) ? WINCAT_NOT_FOUND : undefined;
}

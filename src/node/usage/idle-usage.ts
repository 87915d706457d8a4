/**
 * What a container uses when nothing drives it: a few millicores and the
 * image's typical working set. These are the model's defaults, chosen to be
 * of the order `kubectl top` shows for these images on idle clusters (an
 * nginx at 1m/3Mi, CoreDNS at a few millicores and ~13Mi, a servercore
 * container near 40Mi because of its background services); they are not
 * measurements and nothing should depend on their exact values.
 */
import { parseImageReference } from '../../os/images.js';

export interface IdleUsage {
  /** CPU in nanocores (1m = 1,000,000). */
  nanoCores: number;
  workingSetBytes: number;
}

const Ki = 1024;
const Mi = 1024 * Ki;
const milli = 1_000_000;

/** By repository (registry/repository, as image references normalize it). */
const IDLE_BY_REPOSITORY: Record<string, IdleUsage> = {
  'docker.io/library/busybox': { nanoCores: 0.05 * milli, workingSetBytes: 400 * Ki },
  'docker.io/library/alpine': { nanoCores: 0.05 * milli, workingSetBytes: 500 * Ki },
  'docker.io/library/ubuntu': { nanoCores: 0.1 * milli, workingSetBytes: 1 * Mi },
  'docker.io/library/debian': { nanoCores: 0.1 * milli, workingSetBytes: 1 * Mi },
  'docker.io/library/nginx': { nanoCores: 0.3 * milli, workingSetBytes: 3 * Mi },
  'docker.io/library/httpd': { nanoCores: 1 * milli, workingSetBytes: 9 * Mi },
  'docker.io/library/redis': { nanoCores: 2 * milli, workingSetBytes: 4 * Mi },
  'registry.k8s.io/e2e-test-images/agnhost': { nanoCores: 1 * milli, workingSetBytes: 10 * Mi },
  'registry.k8s.io/hpa-example': { nanoCores: 1 * milli, workingSetBytes: 9 * Mi },
  'registry.k8s.io/coredns/coredns': { nanoCores: 3 * milli, workingSetBytes: 13 * Mi },
  'registry.k8s.io/kube-proxy': { nanoCores: 1 * milli, workingSetBytes: 15 * Mi },
  'docker.io/flannel/flannel': { nanoCores: 4 * milli, workingSetBytes: 12 * Mi },
  'docker.io/calico/node': { nanoCores: 25 * milli, workingSetBytes: 90 * Mi },
  'docker.io/calico/kube-controllers': { nanoCores: 2 * milli, workingSetBytes: 18 * Mi },
  // sig-windows-tools' HostProcess images: PowerShell starting the node's own service.
  'docker.io/sigwindowstools/kube-proxy': { nanoCores: 3 * milli, workingSetBytes: 28 * Mi },
  'docker.io/sigwindowstools/flannel': { nanoCores: 3 * milli, workingSetBytes: 32 * Mi },
  'docker.io/sigwindowstools/calico-node': { nanoCores: 20 * milli, workingSetBytes: 75 * Mi },
  'mcr.microsoft.com/windows/nanoserver': { nanoCores: 1 * milli, workingSetBytes: 8 * Mi },
  'mcr.microsoft.com/windows/servercore': { nanoCores: 4 * milli, workingSetBytes: 40 * Mi },
  'mcr.microsoft.com/windows/server': { nanoCores: 5 * milli, workingSetBytes: 55 * Mi },
  'mcr.microsoft.com/windows': { nanoCores: 6 * milli, workingSetBytes: 70 * Mi },
  'mcr.microsoft.com/windows/servercore/iis': { nanoCores: 5 * milli, workingSetBytes: 85 * Mi },
  'mcr.microsoft.com/powershell': { nanoCores: 3 * milli, workingSetBytes: 60 * Mi },
};

/** An image the table does not name: a small Linux program, or a Windows one on servercore's services. */
const DEFAULT_IDLE: Record<'linux' | 'windows', IdleUsage> = {
  linux: { nanoCores: 1 * milli, workingSetBytes: 8 * Mi },
  windows: { nanoCores: 4 * milli, workingSetBytes: 40 * Mi },
};

/** .NET images: the runtime's heap on top of the base image. */
function dotnetIdle(name: string): IdleUsage | undefined {
  if (name.startsWith('mcr.microsoft.com/dotnet/framework/')) return { nanoCores: 5 * milli, workingSetBytes: 110 * Mi };
  if (name.startsWith('mcr.microsoft.com/dotnet/')) return { nanoCores: 2 * milli, workingSetBytes: 30 * Mi };
  return undefined;
}

/** The idle usage of a container of `image` on a node of `os`. */
export function idleUsage(image: string | undefined, os: 'linux' | 'windows'): IdleUsage {
  const ref = image ? parseImageReference(image) : undefined;
  if (!ref) return DEFAULT_IDLE[os];
  return IDLE_BY_REPOSITORY[ref.name] ?? dotnetIdle(ref.name) ?? DEFAULT_IDLE[os];
}

/**
 * A node's own use beside its pods: the OS, the kubelet and the runtime
 * (a Windows Server host idles near 1.4 GiB and a tenth of a core; a
 * Debian node with containerd near 420 MiB). Model defaults, as above.
 */
export const NODE_IDLE: Record<'linux' | 'windows', IdleUsage> = {
  linux: { nanoCores: 45 * milli, workingSetBytes: 420 * Mi },
  windows: { nanoCores: 120 * milli, workingSetBytes: 1400 * Mi },
};

/** The kubelet's own share of the Linux node's idle use (its system container). */
export const KUBELET_IDLE: IdleUsage = { nanoCores: 15 * milli, workingSetBytes: 45 * Mi };

import type { KObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/errors.js';

interface ContainerLike { name?: string }

/** podutil.VisitContainers order: init containers, containers, then ephemeral containers. */
export function allContainerNames(pod: KObject): string[] {
  const spec = (pod as { spec?: Record<string, ContainerLike[] | undefined> }).spec ?? {};
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]
    .map((c) => c.name ?? '');
}

/**
 * pkg/registry/core/pod/strategy.go validateContainer: the container a
 * log/exec/attach request is about. Empty means the only container; with
 * several, upstream lists them all (Go's %s of a []string).
 */
export function validateContainer(container: string, pod: KObject): string {
  const name = pod.metadata.name ?? '';
  if (!container) {
    const containers = ((pod as { spec?: { containers?: ContainerLike[] } }).spec?.containers ?? []);
    const [only] = containers;
    if (containers.length === 1 && only) return only.name ?? '';
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${allContainerNames(pod).join(' ')}]`);
  }
  if (!allContainerNames(pod).includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

export interface ContainerStatusLike {
  name: string;
  restartCount?: number;
  state?: { running?: object; waiting?: { reason?: string }; terminated?: { containerID?: string } };
  lastState?: { terminated?: { containerID?: string } };
}

/** podutil.GetContainerStatus over containers, then init, then ephemeral statuses (as the kubelet looks). */
export function containerStatus(pod: KObject, container: string): ContainerStatusLike | undefined {
  const status = (pod as { status?: Record<string, ContainerStatusLike[] | undefined> }).status ?? {};
  for (const list of [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses]) {
    const s = list?.find((c) => c.name === container);
    if (s) return s;
  }
  return undefined;
}

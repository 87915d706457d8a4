/**
 * The usage of a pod's running containers, as the runtime's stats report
 * it: each container's demand (its image's idle use, or its script) capped
 * by its OS and limits (usage-model.ts), from its own start time, so a
 * restarted container counts its CPU time from zero again.
 */
import type { KObject } from '../../apimachinery/object.js';
import { containerScript } from '../kubelet/script.js';
import { idleUsage } from './idle-usage.js';
import type { ServedWorkStore } from './served-work.js';
import { containerUsage, type ContainerLimits, type ContainerUsage, type UsageOS } from './usage-model.js';

export interface NodeFacts { os: UsageOS; logicalCPUs: number; memoryBytes: number }

export interface RunningContainerUsage extends ContainerUsage { name: string; startedAt: string }

interface ContainerSpecLike { name: string; image?: string; resources?: { limits?: Record<string, string | number> } }
interface StatusLike { name: string; image?: string; restartCount?: number; state?: { running?: { startedAt?: string } } }

/** Usage of each running container (regular and init: a running init container is a sidecar), by name. */
export function podContainerUsage(pod: KObject, node: NodeFacts, nowMs: number, served?: ServedWorkStore): RunningContainerUsage[] {
  const spec = (pod.spec ?? {}) as { containers?: ContainerSpecLike[]; initContainers?: ContainerSpecLike[] };
  const status = (pod.status ?? {}) as { containerStatuses?: StatusLike[]; initContainerStatuses?: StatusLike[] };
  const specs = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const out: RunningContainerUsage[] = [];
  for (const cs of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const startedAt = cs.state?.running?.startedAt;
    if (!startedAt) continue;
    const c = specs.find((s) => s.name === cs.name);
    const script = containerScript(pod.metadata.annotations, cs.name);
    const limits: ContainerLimits = { cpu: c?.resources?.limits?.cpu, memory: c?.resources?.limits?.memory };
    const usage = containerUsage({
      os: node.os, logicalCPUs: node.logicalCPUs, nodeMemoryBytes: node.memoryBytes,
      idle: idleUsage(c?.image ?? cs.image, node.os), cpu: script?.cpu, memory: script?.memory, limits,
      startedAtMs: Date.parse(startedAt), served: served?.get(pod.metadata.uid ?? '', cs.name, cs.restartCount ?? 0),
    }, nowMs);
    out.push({ name: cs.name, startedAt, ...usage });
  }
  return out;
}

/**
 * A node card's bars: allocatable against the sum of its non-terminated pods' requests, as
 * `kubectl describe node`'s "Allocated resources" computes them (resourcehelper.PodRequests: containers and
 * sidecars add up, an ordinary init container counts by its own maximum, the runtime class's overhead on top).
 */
import type { Container, Node, Pod } from 'kubernetes-types/core/v1.js';
import { parseQuantity } from '../../../apimachinery/quantity.js';
import { isTerminated } from './pod-status.js';

export interface Usage { requested: number; allocatable: number }
export interface NodeUsage { cpuMilli: Usage; memoryBytes: Usage }

/** A quantity as a number of 10^exp units (0 when absent or malformed: a bar is only a picture). */
function amount(value: string | number | undefined, exp: number): number {
  if (value === undefined) return 0;
  try {
    const q = parseQuantity(value);
    const n = Number(q.unscaled) * 10 ** (q.scale + exp);
    return q.neg ? -n : n;
  } catch { return 0; }
}

function requestOf(containers: readonly Container[] | undefined, resource: string, exp: number): number {
  return (containers ?? []).reduce((sum, c) => sum + amount(c.resources?.requests?.[resource], exp), 0);
}

export function podRequest(pod: Pod, resource: string, exp: number): number {
  const spec = pod.spec;
  if (!spec) return 0;
  let sidecars = 0;
  let initMax = 0;
  for (const c of spec.initContainers ?? []) {
    const r = amount(c.resources?.requests?.[resource], exp);
    // A sidecar keeps running: it adds to everything started after it.
    if (c.restartPolicy === 'Always') sidecars += r; else initMax = Math.max(initMax, sidecars + r);
  }
  return Math.max(requestOf(spec.containers, resource, exp) + sidecars, initMax) + amount(spec.overhead?.[resource], exp);
}

export function nodeUsage(node: Node, pods: Iterable<Pod>): NodeUsage {
  const live = [...pods].filter((p) => !isTerminated(p));
  const sum = (resource: string, exp: number) => live.reduce((s, p) => s + podRequest(p, resource, exp), 0);
  const alloc = node.status?.allocatable ?? {};
  return {
    cpuMilli: { requested: sum('cpu', 3), allocatable: amount(alloc.cpu, 3) },
    memoryBytes: { requested: sum('memory', 0), allocatable: amount(alloc.memory, 0) },
  };
}

/** "1250m" / "3.5Gi" in the forms `kubectl describe node` uses for the bars' labels. */
export function formatCpu(milli: number): string { return milli % 1000 === 0 ? String(milli / 1000) : `${Math.round(milli)}m`; }

export function formatMemory(bytes: number): string {
  const units = ['Ki', 'Mi', 'Gi', 'Ti'];
  let v = bytes;
  let unit = '';
  for (const u of units) { if (v < 1024) break; v /= 1024; unit = u; }
  return `${Number.isInteger(v) ? v : v.toFixed(1)}${unit}`;
}

export function percent(u: Usage): number { return u.allocatable > 0 ? Math.round((u.requested / u.allocatable) * 100) : 0; }

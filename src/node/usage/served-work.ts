/**
 * The CPU a server's requests cost its container: each request an
 * application answers adds its image's CPU time per request, counted in the
 * second (since the container started) it was served in. Over a second the
 * work is demand in nanocores, added to the container's idle or scripted
 * demand and capped by the OS like the rest (usage-model.ts): a php-apache
 * pod under a load generator saturates its CFS quota, a Windows one its
 * CpuMaximum. The store keeps one record per container run (pod UID,
 * container, restart count), dropped with the run.
 */
import type { Knot } from './demand.js';

export class ServedWork {
  private readonly perSecond = new Map<number, number>();

  /** `cpuNs` of CPU time for a request served `atSeconds` after the container started. */
  record(atSeconds: number, cpuNs: number): void {
    if (cpuNs <= 0 || atSeconds < 0) return;
    const s = Math.floor(atSeconds);
    this.perSecond.set(s, (this.perSecond.get(s) ?? 0) + cpuNs);
  }

  /** The work as demand: a step of nanocores over each second that served requests, in time order. */
  steps(): Array<{ from: number; nanoCores: number }> {
    return [...this.perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([from, ns]) => ({ from, nanoCores: ns }));
  }
}

/** The left limit of a right-continuous piecewise-linear function at t. */
function leftValue(knots: readonly Knot[], t: number): number {
  let i = -1;
  for (let k = 0; k < knots.length; k++) if (knots[k]!.t < t) i = k;
  if (i < 0) return knots[0]?.v ?? 0;
  const a = knots[i]!;
  const b = knots[i + 1];
  if (!b) return a.v;
  return b.t === a.t ? a.v : a.v + ((b.v - a.v) * (t - a.t)) / (b.t - a.t);
}

function rightValue(knots: readonly Knot[], t: number): number {
  let v = knots[0]?.v ?? 0;
  for (let k = 0; k < knots.length; k++) {
    const c = knots[k]!;
    if (c.t > t) {
      const p = knots[k - 1];
      return !p || p.t === c.t ? v : p.v + ((c.v - p.v) * (t - p.t)) / (c.t - p.t);
    }
    v = c.v;
  }
  return v;
}

/** The demand's knots with the served work's one-second steps added (each step in nanocores: its CPU ns per second). */
export function withServedWork(knots: readonly Knot[], work: ServedWork | undefined): Knot[] {
  const steps = work?.steps() ?? [];
  if (!steps.length) return [...knots];
  const bySecond = new Map(steps.map((x) => [x.from, x.nanoCores]));
  // The step whose second holds t (for the left limit: the one ending at or after t); a map, as a long load has many.
  const stepAt = (t: number, left: boolean): number => bySecond.get(left ? Math.ceil(t) - 1 : Math.floor(t)) ?? 0;
  const times = [...new Set([...knots.map((k) => k.t), ...steps.flatMap((s) => [s.from, s.from + 1])])].sort((a, b) => a - b);
  const out: Knot[] = [];
  for (const t of times) {
    const right = rightValue(knots, t) + stepAt(t, false);
    if (out.length) {
      const left = leftValue(knots, t) + stepAt(t, true);
      if (left !== right) out.push({ t, v: left });
    }
    out.push({ t, v: right });
  }
  return out;
}

/** One record per container run, as the kubelet's pods serve requests and its stats read them. */
export class ServedWorkStore {
  private readonly runs = new Map<string, ServedWork>();

  private static key(podUID: string, container: string, restartCount: number): string { return `${podUID}/${container}/${restartCount}`; }

  /** A fresh record for a run that starts now (a restart's run starts from nothing). */
  start(podUID: string, container: string, restartCount: number): ServedWork {
    const w = new ServedWork();
    this.runs.set(ServedWorkStore.key(podUID, container, restartCount), w);
    return w;
  }

  get(podUID: string, container: string, restartCount: number): ServedWork | undefined {
    return this.runs.get(ServedWorkStore.key(podUID, container, restartCount));
  }

  /** Forgets a pod's runs (the pod is gone from the node). */
  forget(podUID: string): void {
    for (const k of this.runs.keys()) if (k.startsWith(`${podUID}/`)) this.runs.delete(k);
  }
}

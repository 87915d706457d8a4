/**
 * The CPU a server's requests cost its container: each request an
 * application answers adds its image's CPU time per request, counted in the
 * second of the clock it was served in. Over a second the
 * work is demand in nanocores, added to the container's idle or scripted
 * demand and capped by the OS like the rest (usage-model.ts): a php-apache
 * pod under a load generator saturates its CFS quota, a Windows one its
 * CpuMaximum. The store keeps one record per container run (pod UID,
 * container, restart count), dropped with the run.
 */
import { cappedIntegral, valueAt, type Knot } from './demand.js';

/** Seconds of work kept one by one behind the latest read; older ones are folded into a running total. */
export const SERVED_WORK_DETAIL_SECONDS = 300;

export class ServedWork {
  /** CPU ns of work per second of the clock (epoch seconds). */
  private readonly perSecond = new Map<number, number>();
  /**
   * The container's capped CPU time (core-ns) up to `before` (an epoch second), counted when the
   * seconds before it were folded: a run under load for days keeps a bounded record.
   */
  private folded = { before: -Infinity, cpuTimeNs: 0 };

  /** `cpuNs` of CPU time for a request served at `atMs` (the clock's time). */
  record(atMs: number, cpuNs: number): void {
    if (cpuNs <= 0) return;
    const s = Math.floor(atMs / 1000);
    // A second already folded was counted: work reported that late is not.
    if (s < this.folded.before) return;
    this.perSecond.set(s, (this.perSecond.get(s) ?? 0) + cpuNs);
  }

  /** The folded total and the second it runs to. */
  foldedCPUTime(): { before: number; cpuTimeNs: number } { return this.folded; }

  /** Drops the seconds before `before`, whose capped CPU time with everything earlier is `cpuTimeNs`. */
  fold(before: number, cpuTimeNs: number): void {
    for (const s of this.perSecond.keys()) if (s < before) this.perSecond.delete(s);
    this.folded = { before, cpuTimeNs };
  }

  /** The seconds of the clock that served requests, in time order. */
  seconds(): number[] {
    return [...this.perSecond.keys()].sort((a, b) => a - b);
  }

  /** The work of one second of the clock, in CPU ns: as demand over that second, nanocores. */
  workIn(second: number): number {
    return this.perSecond.get(second) ?? 0;
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

/**
 * The demand's knots (seconds since the container started at `startedAtMs`,
 * as its status gives it: to the second) with the served work's one-second
 * steps added.
 */
export function withServedWork(knots: readonly Knot[], work: ServedWork | undefined, startedAtMs: number): Knot[] {
  const start = startedAtMs / 1000;
  const seconds = (work?.seconds() ?? []).filter((s) => s + 1 > start);
  if (!work || !seconds.length) return [...knots];
  // The step over the second of the clock that holds t (for the left limit: the one ending at or after t).
  const stepAt = (t: number, left: boolean): number => work.workIn((left ? Math.ceil(t + start) - 1 : Math.floor(t + start)));
  const times = [...new Set([...knots.map((k) => k.t), ...seconds.flatMap((s) => [s - start, s + 1 - start])])].filter((t) => t >= 0).sort((a, b) => a - b);
  const out: Knot[] = [];
  for (const t of times) {
    const right = valueAt(knots, t) + stepAt(t, false);
    if (out.length) {
      const left = leftValue(knots, t) + stepAt(t, true);
      if (left !== right) out.push({ t, v: left });
    }
    out.push({ t, v: right });
  }
  return out;
}

/**
 * The container's CPU demand with the served work added (`knots`), and its CPU time (core-ns) from
 * its start to `t` seconds after it: their capped integral. Seconds of work older than
 * SERVED_WORK_DETAIL_SECONDS before `t` are first folded into the record's total, so each read
 * costs the recent seconds only. Reads are expected in clock order, as stats are read.
 */
export function cpuWithServedWork(base: readonly Knot[], work: ServedWork | undefined, startedAtMs: number, cap: number, t: number):
  { knots: Knot[]; cpuTimeNs: number } {
  if (!work) return { knots: [...base], cpuTimeNs: cappedIntegral(base, cap, t) };
  const start = startedAtMs / 1000;
  // The integral over [from, to] (seconds since start) of what the record holds now: exact where it still has every second.
  const span = (knots: readonly Knot[], from: number, to: number) => cappedIntegral(knots, cap, to) - cappedIntegral(knots, cap, Math.max(0, from));
  const old = work.foldedCPUTime();
  const foldAt = Math.floor(start + t) - SERVED_WORK_DETAIL_SECONDS;
  if (foldAt > old.before && foldAt - start > 0) {
    work.fold(foldAt, old.cpuTimeNs + span(withServedWork(base, work, startedAtMs), old.before - start, foldAt - start));
  }
  const folded = work.foldedCPUTime();
  const knots = withServedWork(base, work, startedAtMs);
  return { knots, cpuTimeNs: folded.cpuTimeNs + span(knots, folded.before - start, t) };
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

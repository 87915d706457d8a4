/**
 * Liveness, readiness and startup probes (pkg/kubelet/prober): one
 * ProbeWorker per probe of a running container (worker.go), ticking on the
 * kubelet's clock: the first probe after initialDelaySeconds, then one
 * every periodSeconds. What a result means is the pure probeStep:
 * consecutive results are counted against successThreshold and
 * failureThreshold; readiness flips the container's ready; liveness and
 * startup failures kill it ("will be restarted"); liveness and readiness
 * wait until the startup probe has succeeded.
 */
import type { Clock, Timer } from './clock.js';
import type { Running } from './container-state.js';

export type ProbeKind = 'Startup' | 'Readiness' | 'Liveness';

/** The v1.Probe fields the worker reads (defaults as the API server sets them). */
export interface ProbeSpec {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface ProbeResult { ok: boolean; output: string }
export interface ProbeCounters { successes: number; failures: number }

export interface ProbeOutcome {
  counters: ProbeCounters;
  /** The Unhealthy event's message, on every failed probe (prober.go). */
  unhealthy?: string;
  /** Readiness changed to this. */
  ready?: boolean;
  /** The startup probe succeeded: the container is started (and ready unless it has a readiness probe). */
  started?: boolean;
  /** Liveness or startup failed failureThreshold times: the container is killed and restarted. */
  kill?: { message: string; probeGraceSeconds?: number };
}

/**
 * One probe result applied to the container: undefined when the probe does
 * not run now (liveness and readiness before the container started, startup
 * after).
 */
export function probeStep(kind: ProbeKind, spec: ProbeSpec, container: { name: string; hasReadinessProbe: boolean }, state: Pick<Running, 'started' | 'ready'>,
  counters: ProbeCounters, result: ProbeResult): ProbeOutcome | undefined {
  if (kind !== 'Startup' && !state.started) return undefined;
  if (kind === 'Startup' && state.started) return undefined;
  const successThreshold = spec.successThreshold ?? 1;
  const failureThreshold = spec.failureThreshold ?? 3;
  const next: ProbeCounters = result.ok ? { successes: counters.successes + 1, failures: 0 } : { successes: 0, failures: counters.failures + 1 };
  const out: ProbeOutcome = { counters: next };
  if (!result.ok) out.unhealthy = `${kind} probe failed: ${result.output}`;
  if (kind === 'Readiness') {
    let ready = state.ready;
    if (result.ok && next.successes >= successThreshold) ready = true;
    if (!result.ok && next.failures >= failureThreshold) ready = false;
    if (ready !== state.ready) out.ready = ready;
    return out;
  }
  if (kind === 'Startup' && result.ok && next.successes >= successThreshold) {
    out.started = true;
    if (!container.hasReadinessProbe) out.ready = true;
    return out;
  }
  if (!result.ok && next.failures >= failureThreshold) {
    out.kill = { message: `Container ${container.name} failed ${kind.toLowerCase()} probe, will be restarted` };
    if (spec.terminationGracePeriodSeconds !== undefined) out.kill.probeGraceSeconds = spec.terminationGracePeriodSeconds;
  }
  return out;
}

/** What a probe worker needs from the pod worker. */
export interface ProbeTarget {
  /** The container's running state while its process runs and the node is up; undefined stops the probing for this tick. */
  running(): Running | undefined;
  /** One probe against the container model. */
  probe(kind: ProbeKind, spec: ProbeSpec): ProbeResult;
  /** Carries out a probe's outcome (events, ready/started, the kill). */
  apply(kind: ProbeKind, outcome: ProbeOutcome): void;
}

/** worker.go: one probe of one container, on the clock. */
export class ProbeWorker {
  private counters: ProbeCounters = { successes: 0, failures: 0 };
  private initial?: Timer;
  private ticker?: Timer;

  constructor(private readonly clock: Clock, readonly kind: ProbeKind, private readonly spec: ProbeSpec,
    private readonly container: { name: string; hasReadinessProbe: boolean }, private readonly target: ProbeTarget) {}

  start(): void {
    const periodMs = (this.spec.periodSeconds ?? 10) * 1000;
    this.initial = this.clock.afterFunc((this.spec.initialDelaySeconds ?? 0) * 1000, () => {
      this.initial = undefined;
      if (!this.target.running()) return;
      this.doProbe();
      this.ticker = this.clock.tick(periodMs, () => this.doProbe());
    });
  }

  stop(): void {
    this.initial?.stop();
    this.ticker?.stop();
    this.initial = this.ticker = undefined;
  }

  private doProbe(): void {
    const state = this.target.running();
    if (!state) return;
    // The startup verdict gates the others before any probe runs (no Unhealthy event for a skipped probe).
    if ((this.kind === 'Startup') === state.started) return;
    const outcome = probeStep(this.kind, this.spec, this.container, state, this.counters, this.target.probe(this.kind, this.spec));
    if (!outcome) return;
    this.counters = outcome.counters;
    this.target.apply(this.kind, outcome);
  }
}

/**
 * Leader election through a coordination.k8s.io Lease, as client-go's
 * leaderelection package does it with a LeaseLock (v1.32): the holder
 * renews `spec.renewTime` every retry period; another candidate takes the
 * lease only once it has seen the same record unchanged for the lease
 * duration (its own clock, not the holder's); a leader that cannot renew
 * within the renew deadline stops leading. kube-controller-manager and
 * kube-scheduler elect through `kube-system/kube-controller-manager` and
 * `kube-system/kube-scheduler`, identities `<hostname>_<uuid>`, with 15 s
 * leases, 10 s renew deadline and 2 s retry period.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { StatusError, isAlreadyExists } from '../apimachinery/errors.js';
import { leases } from '../client/resources.js';
import type { Client, ResourceClient } from '../client/types.js';
import type { EventRecorder } from '../events/recorder.js';
import { rfc3339Micro } from '../apimachinery/time.js';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /**
   * The component the LeaderElection events come from (kube-controller-manager; kube-scheduler
   * records them as its first profile's schedulerName). The Lease's field manager is its name, as
   * the components' user agents give it.
   */
  component: string;
}

export const DEFAULT_LEASE_TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** `<hostname>_<uuid>`, the identity kube-controller-manager and kube-scheduler use. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

interface Record { holderIdentity: string; leaseDurationSeconds: number; acquireTime?: string; renewTime?: string; leaseTransitions: number }

export interface LeaderCallbacks {
  onStartedLeading(): void | Promise<void>;
  onStoppedLeading(): void | Promise<void>;
  onNewLeader?(identity: string): void;
}

export class LeaderElector {
  private readonly leases: ResourceClient<Lease>;
  private observed?: { raw: string; record: Record; at: number };
  private leading = false;
  private lastRenew = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private reportedLeader = '';

  /** `client` acts as the component (system:kube-controller-manager, system:kube-scheduler). */
  constructor(client: Client, readonly config: LeaderElectionConfig, private readonly callbacks: LeaderCallbacks,
    private readonly events?: EventRecorder, private readonly log: (m: string) => void = () => {}, private readonly now: () => number = Date.now) {
    this.leases = client.resource(leases);
  }

  get isLeader(): boolean { return this.leading; }

  /**
   * Starts campaigning: acquires when it can, then renews; leadership lost
   * is reported once, as upstream's OnStoppedLeading. OnStartedLeading runs
   * beside the renewals (upstream's goroutine), not in their way. Resolves
   * after the first attempt, and when it won, once OnStartedLeading is done.
   */
  start(): Promise<void> {
    let first: Promise<void> | undefined;
    let firstDone!: () => void;
    const firstAttempt = new Promise<void>((r) => { firstDone = r; });
    const loop = async () => {
      if (this.stopped) { firstDone(); return; }
      try {
        const ok = await this.tryAcquireOrRenew();
        if (ok) {
          this.lastRenew = this.now();
          if (!this.leading) {
            this.leading = true;
            void this.events?.record({ kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', name: this.config.name, namespace: this.config.namespace },
              'Normal', 'LeaderElection', `${this.config.identity} became leader`, this.config.component);
            const started = Promise.resolve().then(() => this.callbacks.onStartedLeading())
              .catch((e) => this.log(`leader election: starting to lead ${this.config.namespace}/${this.config.name}: ${(e as Error).message}`));
            first ??= started;
          }
        } else if (this.leading && this.now() - this.lastRenew > this.config.renewDeadlineMs) {
          await this.lose();
        }
      } catch (e) {
        this.log(`leader election ${this.config.namespace}/${this.config.name}: ${(e as Error).message}`);
        if (this.leading && this.now() - this.lastRenew > this.config.renewDeadlineMs) await this.lose();
      }
      first ??= Promise.resolve();
      void first.then(firstDone);
      if (!this.stopped) {
        this.timer = setTimeout(() => void loop(), this.config.retryPeriodMs);
        this.timer.unref();
      }
    };
    void loop();
    return firstAttempt;
  }

  private async lose(): Promise<void> {
    this.leading = false;
    this.log(`leader election: ${this.config.identity} lost the lease ${this.config.namespace}/${this.config.name}`);
    await this.callbacks.onStoppedLeading();
  }

  /** Stops campaigning; a leader gives the lease up (ReleaseOnCancel) so another takes over at once. */
  async stop(release = true): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    if (release) {
      const now = rfc3339Micro(new Date(this.now()));
      await this.leases.update(this.config.namespace, this.config.name, (l) => {
        const spec = (l.spec ?? {}) as Record;
        if (spec.holderIdentity !== this.config.identity) return l;
        l.spec = { leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: spec.leaseTransitions ?? 0 };
        return l;
      }, { fieldManager: this.config.name }).catch(() => {});
    }
    await this.callbacks.onStoppedLeading();
  }

  /** tryAcquireOrRenew. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const nowMs = this.now();
    const now = rfc3339Micro(new Date(nowMs));
    const durationSeconds = Math.round(this.config.leaseDurationMs / 1000);
    const write = { fieldManager: this.config.name };
    const fresh: Record = { holderIdentity: this.config.identity, leaseDurationSeconds: durationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 };
    const current = await this.leases.find(this.config.namespace, this.config.name);
    if (!current) {
      try {
        await this.leases.create(this.config.namespace, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.config.name }, spec: { ...fresh } }, write);
        this.observe(fresh, nowMs);
        return true;
      } catch (e) {
        if (isAlreadyExists(e)) return false;
        throw e;
      }
    }
    const record = { leaseTransitions: 0, leaseDurationSeconds: 0, holderIdentity: '', ...(current.spec as Partial<Record> | undefined) } as Record;
    const raw = JSON.stringify(record);
    if (!this.observed || this.observed.raw !== raw) this.observed = { raw, record, at: nowMs };
    if (record.holderIdentity && record.holderIdentity !== this.reportedLeader) {
      this.reportedLeader = record.holderIdentity;
      this.callbacks.onNewLeader?.(record.holderIdentity);
    }
    const mine = record.holderIdentity === this.config.identity;
    const expired = this.observed.at + record.leaseDurationSeconds * 1000 <= nowMs;
    if (record.holderIdentity && !mine && !expired) return false;
    const next: Record = mine
      ? { ...fresh, acquireTime: record.acquireTime, leaseTransitions: record.leaseTransitions }
      : { ...fresh, leaseTransitions: record.leaseTransitions + 1 };
    try {
      // The update is conditional on the lease being as read.
      await this.leases.update(this.config.namespace, this.config.name,
        (l) => ({ ...l, metadata: { ...l.metadata, resourceVersion: current.metadata?.resourceVersion }, spec: { ...next } }), write);
    } catch (e) {
      if (e instanceof StatusError && (e.status.code === 409 || e.status.code === 404)) return false;
      throw e;
    }
    this.observe(next, nowMs);
    return true;
  }

  private observe(record: Record, at: number): void {
    this.observed = { raw: JSON.stringify(record), record, at };
  }
}

/**
 * The elector kube-controller-manager or kube-scheduler runs: the Lease of
 * that name in kube-system, a fresh `<hostname>_<uuid>` identity and
 * upstream's default timings.
 */
export function componentElector(client: Client, component: 'kube-controller-manager' | 'kube-scheduler', callbacks: LeaderCallbacks,
  events?: EventRecorder, log?: (m: string) => void): LeaderElector {
  return new LeaderElector(client, { namespace: 'kube-system', name: component, identity: leaderIdentity(), component, ...DEFAULT_LEASE_TIMINGS },
    callbacks, events, log);
}

/**
 * One node's eviction manager for memory (pkg/kubelet/eviction
 * eviction_manager.go Start and synchronize): every monitoring period it
 * reads the node's Summary, observes memory.available against the hard
 * threshold, keeps MemoryPressure for the transition period, and while the
 * threshold is met evicts the first pod of the memory ranking: a `Warning
 * EvictionThresholdMet` event on the node, a `Warning Evicted` event on the
 * pod, the pod Failed with reason Evicted and its containers stopped within
 * one second. After an eviction it waits for the pod to be cleaned up (at
 * most 30 s, looking every second) and synchronizes again at once.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clock, Timer } from '../clock.js';
import type { Summary } from '../../kubelet-server/stats-summary.js';
import { memoryAvailableObservation } from './memory-signal.js';
import { evictionMessage, EVICTED_REASON } from './message.js';
import { observePressure, type PressureState } from './pressure.js';
import { isCriticalPod, rankMemoryPressure } from './ranking.js';
import { binaryQuantity, memoryThreshold, thresholdMet, thresholdQuantity } from './thresholds.js';
import type { EvictionTimings } from './timings.js';

/** immediateEvictionGracePeriodSeconds: the grace a hard eviction gives. */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;
const POD_CLEANUP_TIMEOUT_MS = 30_000;
const POD_CLEANUP_POLL_MS = 1_000;

/** A pod the kubelet runs, as the eviction manager may act on it. */
export interface ActivePod {
  pod: Pod;
  /** killPodFunc: Failed with the reason and message, containers stopped; false when it could not be. */
  evict(reason: string, message: string, graceSeconds: number, condition: { type: string; reason: string }): boolean;
  /** podCleanedUpFunc. */
  cleanedUp(): boolean;
}

/** What the manager reads and writes on its node. */
export interface EvictionNode {
  name: string;
  os: 'linux' | 'windows';
  evictionHard: Readonly<Record<string, string>>;
  /** GetCPUAndMemoryStats at `now`. */
  summary(now: Date): Summary;
  /** GetActivePods. */
  activePods(): ActivePod[];
  /** The MemoryPressure condition's input (IsUnderMemoryPressure). */
  setMemoryPressure(underPressure: boolean): void;
  nodeEvent(type: 'Normal' | 'Warning', reason: string, message: string): void;
  podEvent(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export class EvictionManager {
  private state: PressureState = {};
  private timer?: Timer;
  private stopped = false;
  private underPressure = false;

  constructor(private readonly node: EvictionNode, private readonly clock: Clock, private readonly timings: EvictionTimings) {}

  /** IsUnderMemoryPressure: what the last sync decided (what admission and the MemoryPressure setter read). */
  isUnderMemoryPressure(): boolean { return this.underPressure; }

  /** The loop starts; its first sync after `firstSyncMs` (kubelets started at different times sync at different times). */
  start(firstSyncMs = this.timings.monitoringPeriodMs): void {
    this.stop();
    this.stopped = false;
    this.next(firstSyncMs);
  }

  stop(): void {
    this.stopped = true;
    // A stopped kubelet forgets what it observed; it starts again from no pressure.
    this.underPressure = false;
    this.state = {};
    this.timer?.stop();
    this.timer = undefined;
  }

  private next(ms: number): void {
    if (this.stopped) return;
    this.timer = this.clock.afterFunc(ms, () => this.loop());
  }

  private loop(): void {
    if (this.stopped) return;
    const evicted = this.synchronize();
    if (evicted) this.waitForCleanup(evicted, this.clock.now() + POD_CLEANUP_TIMEOUT_MS);
    else this.next(this.timings.monitoringPeriodMs);
  }

  private waitForCleanup(pod: ActivePod, deadline: number): void {
    this.timer = this.clock.afterFunc(POD_CLEANUP_POLL_MS, () => {
      if (this.stopped) return;
      if (pod.cleanedUp() || this.clock.now() >= deadline) this.loop();
      else this.waitForCleanup(pod, deadline);
    });
  }

  /** One pass; the pod evicted, if any. */
  synchronize(): ActivePod | undefined {
    const threshold = memoryThreshold(this.node.evictionHard);
    if (!threshold) return undefined;
    const now = this.clock.now();
    const active = this.node.activePods();
    const summary = this.node.summary(new Date(now));
    const observation = memoryAvailableObservation(this.node.os, summary);
    if (!observation) return undefined;
    const met = thresholdMet(threshold, observation);
    const decision = observePressure(this.state, met, observation.time, now, this.timings.pressureTransitionPeriodMs);
    this.state = decision.state;
    this.underPressure = decision.underPressure;
    this.node.setMemoryPressure(decision.underPressure);
    if (!decision.evict) return undefined;
    this.node.nodeEvent('Warning', 'EvictionThresholdMet', 'Attempting to reclaim memory');
    // Memory has no node-level reclaim: pods go.
    if (!active.length) return undefined;
    const statsByUID = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
    const workingSet = (pod: Pod) => statsByUID.get(pod.metadata?.uid ?? '')?.memory.workingSetBytes;
    const byPod = new Map(active.map((a) => [a.pod, a]));
    const info = { quantity: thresholdQuantity(threshold, observation.capacityBytes).text, available: binaryQuantity(observation.availableBytes) };
    for (const pod of rankMemoryPressure(active.map((a) => a.pod), workingSet)) {
      // evictPod refuses critical pods and goes on to the next one.
      if (isCriticalPod(pod)) continue;
      const handle = byPod.get(pod)!;
      const message = evictionMessage(pod, statsByUID.get(pod.metadata?.uid ?? ''), info);
      this.node.podEvent(pod, 'Warning', EVICTED_REASON, message);
      if (handle.evict(EVICTED_REASON, message, IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, { type: 'DisruptionTarget', reason: 'TerminationByKubelet' })) return handle;
    }
    return undefined;
  }
}

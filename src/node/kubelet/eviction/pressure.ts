/**
 * How the eviction manager's MemoryPressure condition and its eviction
 * decision follow the threshold over time (eviction_manager.go synchronize;
 * helpers.go nodeConditionsLastObservedAt, nodeConditionsObservedSince,
 * thresholdsUpdatedStats). Pure: the time is passed in.
 *
 * - The condition is True while the threshold was last met less than
 *   evictionPressureTransitionPeriod (5m) ago, so it stays True for that
 *   long after the pressure is gone.
 * - A pod is evicted only when the threshold is met now (a hard threshold
 *   has no grace period) and the stats are newer than those of the last sync.
 */

export interface PressureState {
  /** When the threshold was last met (nodeConditionsLastObservedAt). */
  lastObservedAtMs?: number;
  /** The stats time of the previous sync (lastObservations). */
  lastStatsTime?: string;
}

export interface PressureDecision {
  state: PressureState;
  /** The node condition MemoryPressure is True. */
  underPressure: boolean;
  /** A pod is to be evicted in this sync. */
  evict: boolean;
}

export function observePressure(previous: PressureState, met: boolean, statsTime: string, nowMs: number, transitionMs: number): PressureDecision {
  const lastObservedAtMs = met ? nowMs : previous.lastObservedAtMs;
  const underPressure = lastObservedAtMs !== undefined && nowMs - lastObservedAtMs < transitionMs;
  const updated = previous.lastStatsTime === undefined || Date.parse(statsTime) > Date.parse(previous.lastStatsTime);
  return {
    state: { ...(lastObservedAtMs !== undefined ? { lastObservedAtMs } : {}), lastStatsTime: statsTime },
    underPressure,
    evict: met && updated,
  };
}

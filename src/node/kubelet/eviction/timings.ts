/**
 * The eviction manager's periods: kubelet.go's evictionMonitoringPeriod
 * (10 s, a constant upstream) and KubeletConfiguration's
 * evictionPressureTransitionPeriod (5m0s). Tests that cannot wait that long
 * shorten them with WINKUBE_EVICTION_MONITORING_PERIOD and
 * WINKUBE_EVICTION_PRESSURE_TRANSITION_PERIOD (Go durations), as the node
 * lifecycle controller's periods are shortened.
 */
import { parseDuration } from '../../../apimachinery/duration.js';

export const DEFAULT_EVICTION_MONITORING_PERIOD_MS = 10_000;
export const DEFAULT_PRESSURE_TRANSITION_PERIOD_MS = 5 * 60_000;

export interface EvictionTimings {
  monitoringPeriodMs: number;
  pressureTransitionPeriodMs: number;
}

export function evictionTimingsFromEnv(env: NodeJS.ProcessEnv = process.env): EvictionTimings {
  const d = (name: string) => (env[name] ? parseDuration(env[name]) : undefined);
  const positive = (ms: number | undefined) => (ms !== undefined && ms > 0 ? ms : undefined);
  return {
    monitoringPeriodMs: positive(d('WINKUBE_EVICTION_MONITORING_PERIOD')) ?? DEFAULT_EVICTION_MONITORING_PERIOD_MS,
    pressureTransitionPeriodMs: positive(d('WINKUBE_EVICTION_PRESSURE_TRANSITION_PERIOD')) ?? DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
  };
}

/**
 * kube-controller-manager's HPA flags, from the environment so tests can
 * shorten the time without changing the logic (Go durations):
 * WINKUBE_HPA_SYNC_PERIOD (--horizontal-pod-autoscaler-sync-period, 15s),
 * WINKUBE_HPA_DOWNSCALE_STABILIZATION (--horizontal-pod-autoscaler-downscale-stabilization, 5m0s),
 * WINKUBE_HPA_CPU_INITIALIZATION_PERIOD (--horizontal-pod-autoscaler-cpu-initialization-period, 5m0s),
 * WINKUBE_HPA_INITIAL_READINESS_DELAY (--horizontal-pod-autoscaler-initial-readiness-delay, 30s).
 */
import { parseDuration } from '../../apimachinery/duration.js';
import { DEFAULT_HPA_SETTINGS, type HPAControllerSettings } from './controller.js';

export function hpaSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): HPAControllerSettings {
  const d = (name: string): number | undefined => (env[name] ? parseDuration(env[name]!) : undefined);
  const c = DEFAULT_HPA_SETTINGS.calculator;
  return {
    syncPeriodMs: d('WINKUBE_HPA_SYNC_PERIOD') ?? DEFAULT_HPA_SETTINGS.syncPeriodMs,
    downscaleStabilizationMs: d('WINKUBE_HPA_DOWNSCALE_STABILIZATION') ?? DEFAULT_HPA_SETTINGS.downscaleStabilizationMs,
    calculator: {
      tolerance: c.tolerance,
      cpuInitializationPeriodMs: d('WINKUBE_HPA_CPU_INITIALIZATION_PERIOD') ?? c.cpuInitializationPeriodMs,
      delayOfInitialReadinessStatusMs: d('WINKUBE_HPA_INITIAL_READINESS_DELAY') ?? c.delayOfInitialReadinessStatusMs,
    },
  };
}

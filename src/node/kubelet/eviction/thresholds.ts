/**
 * The hard `memory.available` threshold (evictionHard; the kubelet's default
 * is 100Mi on Linux and 500Mi on Windows) and when it is met
 * (helpers.go thresholdsMet: the threshold quantity above what is available).
 * Hard thresholds have no grace period and, by default, no minimum reclaim.
 */
import { formatQuantity, parseQuantity } from '../../../apimachinery/quantity.js';
import { evictionThresholdBytes } from '../../allocatable.js';
import type { SignalObservation } from './memory-signal.js';

export const MEMORY_AVAILABLE = 'memory.available';

/** The memory.available value of an evictionHard map ("100Mi", "5%"); none when unset, 0 or 0% (parseThresholdStatement drops those). */
export function memoryThreshold(evictionHard: Readonly<Record<string, string>>): string | undefined {
  const value = evictionHard[MEMORY_AVAILABLE]?.trim();
  if (!value || value === '0%' || value === '100%') return undefined;
  if (!value.endsWith('%') && parseQuantity(value).unscaled === 0n) return undefined;
  return value;
}

/** resource.NewQuantity(bytes, BinarySI).String(): 100Mi, 1500000, 512. */
export function binaryQuantity(bytes: number): string {
  const n = BigInt(Math.max(0, Math.trunc(bytes)));
  return formatQuantity({ neg: false, unscaled: n, scale: 0, format: 'BinarySI' });
}

/**
 * evictionapi.GetThresholdQuantity as text: the threshold's own quantity, or
 * its percentage of the observed capacity as a BinarySI quantity.
 */
export function thresholdQuantity(value: string, capacityBytes: number): { bytes: number; text: string } {
  const bytes = evictionThresholdBytes(value, capacityBytes);
  return { bytes, text: value.endsWith('%') ? binaryQuantity(bytes) : formatQuantity(parseQuantity(value)) };
}

/** OpLessThan: met while less than the threshold quantity is available. */
export function thresholdMet(value: string, observation: SignalObservation): boolean {
  return thresholdQuantity(value, observation.capacityBytes).bytes > observation.availableBytes;
}

/** The page's copy of a list+watch: objects by namespace/name, updated by watch events. */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export interface Named { metadata?: ObjectMeta }

export interface WatchEvent<T> { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: T }

export function keyOf(o: Named): string { return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`; }

export function fromList<T extends Named>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((o) => [keyOf(o), o]));
}

/** A new map when the event changed something (so views re-render), the same map otherwise. */
export function applyEvent<T extends Named>(state: Map<string, T>, event: WatchEvent<T>): Map<string, T> {
  if (event.type === 'ADDED' || event.type === 'MODIFIED') return new Map(state).set(keyOf(event.object), event.object);
  if (event.type === 'DELETED') {
    const next = new Map(state);
    next.delete(keyOf(event.object));
    return next;
  }
  return state;
}

/**
 * A batch of events (those that arrived within one animation frame) applied with one copy of the map, so a burst
 * of updates to a 50,000-pod list costs one copy and one render instead of one per event.
 */
export function applyEvents<T extends Named>(state: Map<string, T>, events: readonly WatchEvent<T>[]): Map<string, T> {
  let next: Map<string, T> | undefined;
  for (const event of events) {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
    next ??= new Map(state);
    if (event.type === 'DELETED') next.delete(keyOf(event.object));
    else next.set(keyOf(event.object), event.object);
  }
  return next ?? state;
}

/**
 * Events about one object in `kubectl describe`'s order: by lastTimestamp (kubectl's SortableEvents), where an
 * event written through events.k8s.io (the scheduler's Scheduled) has none and so comes first, as it does there.
 */
import type { Event } from 'kubernetes-types/core/v1.js';

function last(e: Event): number { return e.lastTimestamp ? Date.parse(e.lastTimestamp) || 0 : 0; }

function created(e: Event): number { return Date.parse(e.eventTime ?? e.metadata?.creationTimestamp ?? '') || 0; }

export function inOrder(events: Iterable<Event>): Event[] {
  // Ties (one second's events) keep the order they were created in.
  return [...events].sort((a, b) => last(a) - last(b) || created(a) - created(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

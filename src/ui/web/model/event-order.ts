/** Events about one object in the order they happened (as `kubectl describe` lists them). */
import type { Event } from 'kubernetes-types/core/v1.js';

function when(e: Event): string {
  return e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? '';
}

export function inOrder(events: Iterable<Event>): Event[] {
  return [...events].sort((a, b) => {
    const ta = Date.parse(when(a)) || 0;
    const tb = Date.parse(when(b)) || 0;
    return ta - tb || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  });
}

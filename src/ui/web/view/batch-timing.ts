/**
 * User-timing marks around one batch of watch events: from applying the batch to the map's commit
 * (`winkube:watch-batch`) and to the next frame, after the browser laid out and painted it
 * (`winkube:watch-batch-painted`). They show in DevTools' Performance panel; bench/ui.ts reads them.
 */
let pending: number | undefined;

/** `events`: how many watch events the batch applies (the measures carry it as their detail). */
export function batchStarted(events: number): void {
  pending = (pending ?? 0) + events;
  performance.mark('winkube:watch-batch-start');
}

/** Called by the map once it committed; a no-op when no batch is waiting (a filter change, a scroll). */
export function batchRendered(): void {
  if (pending === undefined) return;
  const detail = { events: pending };
  pending = undefined;
  performance.measure('winkube:watch-batch', { start: 'winkube:watch-batch-start', detail });
  requestAnimationFrame(() => performance.measure('winkube:watch-batch-painted', { start: 'winkube:watch-batch-start', detail }));
}

/**
 * User-timing marks around one batch of watch events: from applying the batch to the map's commit
 * (`winkube:watch-batch`) and to the next frame, after the browser laid out and painted it
 * (`winkube:watch-batch-painted`). They show in DevTools' Performance panel; bench/ui.ts reads them.
 */
let pending = false;

export function batchStarted(): void {
  pending = true;
  performance.mark('winkube:watch-batch-start');
}

/** Called by the map once it committed; a no-op when no batch is waiting (a filter change, a scroll). */
export function batchRendered(): void {
  if (!pending) return;
  pending = false;
  performance.measure('winkube:watch-batch', 'winkube:watch-batch-start');
  requestAnimationFrame(() => performance.measure('winkube:watch-batch-painted', 'winkube:watch-batch-start'));
}

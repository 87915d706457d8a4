/**
 * Which rows of a long list of equal-height rows to render: those the viewport shows plus a few on each side,
 * so that focus moving to the next row (Tab, which scrolls the focused row into view) finds it rendered.
 */
export interface RowRange { start: number; end: number }

/**
 * `listTop` is the list's top relative to the viewport's top (negative once scrolled past);
 * the range is [start, end) within [0, count).
 */
export function visibleRows(count: number, rowHeight: number, listTop: number, viewportHeight: number, overscan: number): RowRange {
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(-listTop / rowHeight);
  const last = Math.ceil((viewportHeight - listTop) / rowHeight);
  const start = Math.max(0, Math.min(count, first - overscan));
  const end = Math.max(start, Math.min(count, last + overscan));
  return { start, end };
}

/**
 * The window's rows, plus the focused card and its neighbours: Tab lands on the next card before the scroll it
 * causes has been reported, so that card must already be in the DOM.
 */
export function rowsToRender(range: RowRange, focusedIndex: number, count: number): number[] {
  const rows = new Set<number>();
  // The range may be from before the list shrank (it is re-measured after the render).
  for (let i = range.start; i < Math.min(range.end, count); i++) rows.add(i);
  if (focusedIndex >= 0) {
    for (let i = Math.max(0, focusedIndex - 1); i <= Math.min(count - 1, focusedIndex + 1); i++) rows.add(i);
  }
  return [...rows].sort((a, b) => a - b);
}

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

/**
 * The rows of a list (inside the page's own scroll) that the window shows. The range is computed during each
 * render, so a list that grew or shrank renders the right rows at once; scroll and resize re-render only when
 * they change the range. Lists are positioned by their top edge, so every column virtualises against one scroll.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { visibleRows, type RowRange } from '../model/virtual-range.js';

export function useWindowRows(list: { readonly current: HTMLElement | null }, count: number, rowHeight: number, overscan: number): RowRange {
  const [, rerender] = useState(0);
  const measure = (rows: number): RowRange => visibleRows(rows, rowHeight, list.current?.getBoundingClientRect().top ?? 0, window.innerHeight, overscan);
  const range = measure(count);
  const last = useRef({ range, count });
  last.current = { range, count };
  useEffect(() => {
    const update = () => {
      const next = measure(last.current.count);
      if (next.start !== last.current.range.start || next.end !== last.current.range.end) rerender((n) => n + 1);
    };
    // The first render had no element to measure.
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => { window.removeEventListener('scroll', update); window.removeEventListener('resize', update); };
  }, [rowHeight, overscan]);
  return range;
}

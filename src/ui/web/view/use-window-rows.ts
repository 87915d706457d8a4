/**
 * The rows of a list (inside the page's own scroll) that the window shows, recomputed on scroll and resize.
 * The list is positioned by its top edge, so every column of the map virtualises against the same scroll.
 */
import { useEffect, useState } from 'preact/hooks';
import { visibleRows, type RowRange } from '../model/virtual-range.js';

export function useWindowRows(list: { readonly current: HTMLElement | null }, count: number, rowHeight: number, overscan: number): RowRange {
  const measure = (): RowRange => visibleRows(count, rowHeight, list.current?.getBoundingClientRect().top ?? 0, window.innerHeight, overscan);
  const [range, setRange] = useState<RowRange>(measure);
  useEffect(() => {
    const update = () => {
      const next = measure();
      setRange((r) => (r.start === next.start && r.end === next.end ? r : next));
    };
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => { window.removeEventListener('scroll', update); window.removeEventListener('resize', update); };
  }, [count, rowHeight, overscan]);
  return range;
}

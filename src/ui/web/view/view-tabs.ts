/** The navigation between the page's views: a labelled tab list, arrow keys move between tabs as ARIA's tabs pattern asks. */
import { html } from 'htm/preact';

export type ViewName = 'map' | 'workloads' | 'services';

export const VIEWS: { name: ViewName; title: string }[] = [
  { name: 'map', title: 'Cluster map' },
  { name: 'workloads', title: 'Workloads' },
  { name: 'services', title: 'Services and traffic' },
];

export function ViewTabs(props: { current: ViewName; onChange: (v: ViewName) => void }) {
  const move = (e: KeyboardEvent, index: number) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    const next = VIEWS[(index + step + VIEWS.length) % VIEWS.length]!;
    props.onChange(next.name);
    document.getElementById(`tab-${next.name}`)?.focus();
  };
  return html`<nav class="tabs" aria-label="Views"><div role="tablist" aria-label="Views">
    ${VIEWS.map((v, i) => html`<button type="button" role="tab" id=${`tab-${v.name}`} aria-controls="view-panel"
      aria-selected=${v.name === props.current ? 'true' : 'false'} tabindex=${v.name === props.current ? 0 : -1}
      onClick=${() => props.onChange(v.name)} onKeyDown=${(e: KeyboardEvent) => move(e, i)}>${v.title}</button>`)}
  </div></nav>`;
}

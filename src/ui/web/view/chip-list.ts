/**
 * A list of pod chips, collapsed past a limit into a "+N more" button that expands it in place. The button goes
 * away once pressed, so focus moves to the first chip it revealed rather than falling back to the page.
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { collapseChips, moreText } from '../model/chip-limit.js';
import { keyOf } from '../model/watch-state.js';
import { PodChip } from './pod-chip.js';

export function ChipList(props: { pods: Pod[]; limit: number; label: string; where: string; selected?: string; onSelect: (key: string) => void }) {
  const [expanded, setExpanded] = useState(false);
  const [focusRevealed, setFocusRevealed] = useState(false);
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (!focusRevealed) return;
    setFocusRevealed(false);
    list.current?.querySelectorAll<HTMLElement>('button[data-pod]')[props.limit]?.focus();
  }, [focusRevealed]);
  const { shown, more } = collapseChips(props.pods, props.limit, expanded, (p) => keyOf(p) === props.selected);
  const words = moreText(more, props.where);
  return html`<ul class="chips" aria-label=${props.label} ref=${list}>
    ${shown.map((p) => html`<${PodChip} key=${p.metadata?.uid ?? keyOf(p)} pod=${p} selected=${props.selected === keyOf(p)} onSelect=${props.onSelect} />`)}
    ${more ? html`<li><button type="button" class="chip more" aria-label=${words.label}
      onClick=${() => { setExpanded(true); setFocusRevealed(true); }}>${words.text}</button></li>` : null}
  </ul>`;
}

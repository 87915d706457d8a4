/** A list of pod chips, collapsed past a limit into a "+N more" button that expands it in place. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { collapseChips, moreText } from '../model/chip-limit.js';
import { keyOf } from '../model/watch-state.js';
import { PodChip } from './pod-chip.js';

export function ChipList(props: { pods: Pod[]; limit: number; label: string; where: string; selected?: string; onSelect: (key: string) => void }) {
  const [expanded, setExpanded] = useState(false);
  const { shown, more } = collapseChips(props.pods, props.limit, expanded, (p) => keyOf(p) === props.selected);
  const words = moreText(more, props.where);
  return html`<ul class="chips" aria-label=${props.label}>
    ${shown.map((p) => html`<${PodChip} key=${p.metadata?.uid ?? keyOf(p)} pod=${p} selected=${props.selected === keyOf(p)} onSelect=${props.onSelect} />`)}
    ${more ? html`<li><button type="button" class="chip more" aria-expanded="false" aria-label=${words.label}
      onClick=${() => setExpanded(true)}>${words.text}</button></li>` : null}
  </ul>`;
}

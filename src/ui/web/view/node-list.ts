/**
 * One column's node cards, virtualised: the list is as tall as all its cards (fixed height each), and only the
 * cards near the window are in the DOM. The focused card and its neighbours stay rendered, so focus is never
 * dropped and Tab always finds the next card; focusing it scrolls it into view, which renders the ones after.
 */
import { html } from 'htm/preact';
import { useRef, useState } from 'preact/hooks';
import type { MapNode } from '../model/map-model.js';
import { NodeCard, NODE_ROW_HEIGHT } from './node-card.js';
import { rowsToRender } from '../model/virtual-range.js';
import { useWindowRows } from './use-window-rows.js';

const OVERSCAN = 3;

export function NodeList(props: { label: string; nodes: MapNode[]; selected?: string; onSelect: (key: string) => void }) {
  const list = useRef<HTMLDivElement>(null);
  const [focused, setFocused] = useState<string>();
  const range = useWindowRows(list, props.nodes.length, NODE_ROW_HEIGHT, OVERSCAN);
  const focusedIndex = focused === undefined ? -1 : props.nodes.findIndex((n) => n.node.metadata?.name === focused);
  const rows = rowsToRender(range, focusedIndex, props.nodes.length);
  const onFocusIn = (e: FocusEvent) => {
    const card = (e.target as HTMLElement).closest<HTMLElement>('[data-node]');
    setFocused(card?.dataset.node);
  };
  return html`<div class="node-list" role="feed" aria-label=${props.label} ref=${list} onFocusIn=${onFocusIn}
    style=${`height:${props.nodes.length * NODE_ROW_HEIGHT}px`}>
    ${rows.map((i) => {
      const n = props.nodes[i]!;
      return html`<${NodeCard} key=${n.node.metadata?.name} node=${n.node} pods=${n.pods} shown=${n.shown}
        index=${i} count=${props.nodes.length} selected=${props.selected} onSelect=${props.onSelect} />`;
    })}
  </div>`;
}

/** Nodes in columns by OS and Windows build, plus the pods no node has taken yet. */
import { html } from 'htm/preact';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { nodeMatches, podMatches, type Filter } from '../model/filter.js';
import { osColumns } from '../model/os-columns.js';
import { NodeCard } from './node-card.js';
import { PodChip } from './pod-chip.js';

export function ClusterMap(props: { nodes: Node[]; pods: Pod[]; filter: Filter; selected?: string; onSelect: (key: string) => void }) {
  const byNode = new Map<string, Pod[]>();
  const unscheduled: Pod[] = [];
  for (const p of [...props.pods].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
    const nodeName = p.spec?.nodeName;
    if (!nodeName) { unscheduled.push(p); continue; }
    let list = byNode.get(nodeName);
    if (!list) byNode.set(nodeName, list = []);
    list.push(p);
  }
  const unscheduledShown = unscheduled.filter((p) => podMatches(p, props.filter));
  return html`<div class="map">
    ${osColumns(props.nodes).map((column) => {
      const cards = column.nodes.map((node) => {
        const pods = byNode.get(node.metadata?.name ?? '') ?? [];
        const shown = pods.filter((p) => podMatches(p, props.filter));
        return nodeMatches(node, shown, props.filter)
          ? html`<${NodeCard} key=${node.metadata?.name} node=${node} pods=${pods} shown=${shown} selected=${props.selected} onSelect=${props.onSelect} />`
          : null;
      });
      return html`<section class="column" data-column=${column.key} aria-labelledby=${`col-${column.key}`}>
        <h2 id=${`col-${column.key}`}>${column.title} <span class="count">${column.nodes.length} ${column.nodes.length === 1 ? 'node' : 'nodes'}</span></h2>
        ${cards}
      </section>`;
    })}
    ${unscheduledShown.length ? html`<section class="column" data-column="unscheduled" aria-labelledby="col-unscheduled">
      <h2 id="col-unscheduled">Not scheduled <span class="count">${unscheduledShown.length} ${unscheduledShown.length === 1 ? 'pod' : 'pods'}</span></h2>
      <ul class="chips" aria-label="Pods without a node">
        ${unscheduledShown.map((p) => html`<${PodChip} key=${p.metadata?.uid} pod=${p} selected=${props.selected === `${p.metadata?.namespace}/${p.metadata?.name}`} onSelect=${props.onSelect} />`)}
      </ul>
    </section>` : null}
  </div>`;
}

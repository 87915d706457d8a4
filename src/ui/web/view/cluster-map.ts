/** Nodes in columns by OS and Windows build, plus the pods no node has taken yet. */
import { html } from 'htm/preact';
import { useLayoutEffect, useMemo } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Filter } from '../model/filter.js';
import { mapModel } from '../model/map-model.js';
import { batchRendered } from './batch-timing.js';
import { ChipList } from './chip-list.js';
import { NodeList } from './node-list.js';

/** The unscheduled column is not virtualised; past this many chips it collapses like a node card. */
const UNSCHEDULED_LIMIT = 50;

export function ClusterMap(props: { nodes: Map<string, Node>; pods: Map<string, Pod>; filter: Filter; selected?: string; onSelect: (key: string) => void }) {
  const model = useMemo(() => mapModel(props.nodes.values(), props.pods.values(), props.filter), [props.nodes, props.pods, props.filter]);
  useLayoutEffect(batchRendered);
  const { unscheduled } = model;
  return html`<div class="map">
    ${model.columns.map((column) => html`<section class="column" data-column=${column.key} aria-labelledby=${`col-${column.key}`}>
      <h2 id=${`col-${column.key}`}>${column.title} <span class="count">${column.nodeCount} ${column.nodeCount === 1 ? 'node' : 'nodes'}</span></h2>
      <${NodeList} label=${`${column.title} nodes`} nodes=${column.nodes} selected=${props.selected} onSelect=${props.onSelect} />
    </section>`)}
    ${unscheduled.length ? html`<section class="column" data-column="unscheduled" aria-labelledby="col-unscheduled">
      <h2 id="col-unscheduled">Not scheduled <span class="count">${unscheduled.length} ${unscheduled.length === 1 ? 'pod' : 'pods'}</span></h2>
      <${ChipList} pods=${unscheduled} limit=${UNSCHEDULED_LIMIT} label="Pods without a node" where="without a node" selected=${props.selected} onSelect=${props.onSelect} />
    </section>` : null}
  </div>`;
}

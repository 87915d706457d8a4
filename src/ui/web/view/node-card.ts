/**
 * One node: Ready, taints, requested against allocatable CPU and memory, and its pods. Every card has the same
 * height (NODE_ROW_HEIGHT with its gap) so a column of thousands can be virtualised; chips past CHIP_LIMIT
 * collapse into "+N more" and the chip area scrolls inside the card once expanded.
 */
import { html } from 'htm/preact';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { formatCpu, formatMemory, nodeUsage, percent, type Usage } from '../model/node-resources.js';
import { ChipList } from './chip-list.js';

/** The card's height plus the gap below it, as styles.css sets them (.node-list > .node). */
export const NODE_ROW_HEIGHT = 260;
export const CHIP_LIMIT = 8;

function Bar(props: { label: string; usage: Usage; format: (n: number) => string }) {
  const p = percent(props.usage);
  const text = `${props.format(props.usage.requested)} of ${props.format(props.usage.allocatable)} requested (${p}%)`;
  return html`<div class="bar-row">
    <span class="bar-label">${props.label}</span>
    <div class=${`bar${p > 100 ? ' over' : ''}`} role="meter" aria-label=${`${props.label} requested`} aria-valuemin="0" aria-valuemax="100"
      aria-valuenow=${Math.min(p, 100)} aria-valuetext=${text}>
      <div class="bar-fill" style=${`width:${Math.min(p, 100)}%`}></div>
    </div>
    <span class="bar-text">${text}</span>
  </div>`;
}

export function readyCondition(node: Node): string {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready) return 'Unknown';
  return ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown';
}

export function NodeCard(props: { node: Node; pods: Pod[]; shown: Pod[]; index: number; count: number; selected?: string; onSelect: (key: string) => void }) {
  const { node } = props;
  const name = node.metadata?.name ?? '';
  const usage = nodeUsage(node, props.pods);
  const ready = readyCondition(node);
  const taints = node.spec?.taints ?? [];
  const status = node.spec?.unschedulable ? `${ready},SchedulingDisabled` : ready;
  return html`<article class="node" data-node=${name} aria-labelledby=${`node-${name}`} tabindex="0"
    aria-posinset=${props.index + 1} aria-setsize=${props.count} style=${`top:${props.index * NODE_ROW_HEIGHT}px`}>
    <header>
      <h3 id=${`node-${name}`}>${name}</h3>
      <span class=${`badge ${ready === 'Ready' ? 'tone-ok' : 'tone-bad'}`} data-ready=${ready}>${status}</span>
    </header>
    ${taints.length ? html`<ul class="taints" aria-label="Taints">
      ${taints.map((t) => html`<li><code>${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}</code></li>`)}
    </ul>` : null}
    <${Bar} label="CPU" usage=${usage.cpuMilli} format=${formatCpu} />
    <${Bar} label="Memory" usage=${usage.memoryBytes} format=${formatMemory} />
    <${ChipList} pods=${props.shown} limit=${CHIP_LIMIT} label=${`Pods on ${name}`} where=${`on ${name}`} selected=${props.selected} onSelect=${props.onSelect} />
  </article>`;
}

/** One node: Ready, taints, requested against allocatable CPU and memory, and its pods. */
import { html } from 'htm/preact';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { formatCpu, formatMemory, nodeUsage, percent, type Usage } from '../model/node-resources.js';
import { PodChip } from './pod-chip.js';

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

export function NodeCard(props: { node: Node; pods: Pod[]; shown: Pod[]; selected?: string; onSelect: (key: string) => void }) {
  const { node } = props;
  const name = node.metadata?.name ?? '';
  const usage = nodeUsage(node, props.pods);
  const ready = readyCondition(node);
  const taints = node.spec?.taints ?? [];
  const status = node.spec?.unschedulable ? `${ready},SchedulingDisabled` : ready;
  return html`<article class="node" data-node=${name} aria-labelledby=${`node-${name}`}>
    <header>
      <h3 id=${`node-${name}`}>${name}</h3>
      <span class=${`badge ${ready === 'Ready' ? 'tone-ok' : 'tone-bad'}`} data-ready=${ready}>${status}</span>
    </header>
    ${taints.length ? html`<ul class="taints" aria-label="Taints">
      ${taints.map((t) => html`<li><code>${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}</code></li>`)}
    </ul>` : null}
    <${Bar} label="CPU" usage=${usage.cpuMilli} format=${formatCpu} />
    <${Bar} label="Memory" usage=${usage.memoryBytes} format=${formatMemory} />
    <ul class="chips" aria-label=${`Pods on ${name}`}>
      ${props.shown.map((p) => html`<${PodChip} key=${p.metadata?.uid} pod=${p} selected=${props.selected === `${p.metadata?.namespace}/${p.metadata?.name}`} onSelect=${props.onSelect} />`)}
    </ul>
  </article>`;
}

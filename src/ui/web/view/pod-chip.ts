/** A pod on the map: a button (keyboard reachable) with its status in words next to the colour. */
import { html } from 'htm/preact';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podChip } from '../model/pod-status.js';
import { keyOf } from '../model/watch-state.js';

export function PodChip(props: { pod: Pod; selected: boolean; onSelect: (key: string) => void }) {
  const { pod } = props;
  const chip = podChip(pod);
  const name = pod.metadata?.name ?? '';
  return html`<li>
    <button type="button" class=${`chip tone-${chip.tone}`} aria-pressed=${props.selected}
      data-pod=${keyOf(pod)} title=${`${pod.metadata?.namespace}/${name}`}
      aria-label=${`Pod ${pod.metadata?.namespace}/${name}: ${chip.status}, ${chip.ready} ready`}
      onClick=${() => props.onSelect(keyOf(pod))}>
      <span class="chip-name">${name}</span>
      <span class="chip-status">${chip.status}</span>
      <span class="chip-ready">${chip.ready}</span>
    </button>
  </li>`;
}

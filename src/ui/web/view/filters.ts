/** The map's filters: a namespace and part of a pod or node name. */
import { html } from 'htm/preact';

import type { Filter } from '../model/filter.js';

export type { Filter };

export function FilterBar(props: { namespaces: string[]; filter: Filter; onChange: (f: Filter) => void }) {
  const { filter } = props;
  return html`<form class="filters" role="search" aria-label="Filter pods" onSubmit=${(e: Event) => e.preventDefault()}>
    <label>Namespace
      <select value=${filter.namespace} onChange=${(e: Event) => props.onChange({ ...filter, namespace: (e.target as HTMLSelectElement).value })}>
        <option value="">all namespaces</option>
        ${props.namespaces.map((ns) => html`<option value=${ns}>${ns}</option>`)}
      </select>
    </label>
    <label>Name
      <input type="search" value=${filter.name} placeholder="pod or node name"
        onInput=${(e: Event) => props.onChange({ ...filter, name: (e.target as HTMLInputElement).value })} />
    </label>
  </form>`;
}

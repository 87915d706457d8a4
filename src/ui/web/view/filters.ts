/** The map's filters: a namespace, part of a pod or node name, and a label selector as `kubectl -l` takes it. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { Filter } from '../model/filter.js';
import { parseLabelFilter } from '../model/label-filter.js';

export type { Filter };

export function FilterBar(props: { namespaces: string[]; filter: Filter; onChange: (f: Filter) => void }) {
  const { filter } = props;
  const [labelError, setLabelError] = useState<string>();
  // While the text does not parse, the map keeps the last selector that did (no flash of everything mid-typing).
  const onLabels = (text: string) => {
    const parsed = parseLabelFilter(text);
    setLabelError(parsed.error);
    if (parsed.selector) props.onChange({ ...filter, selector: parsed.selector });
  };
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
    <div class="label-filter">
      <label>Labels
        <input type="search" placeholder="app=web,tier!=db" spellcheck=${false} autocomplete="off"
          aria-invalid=${labelError ? 'true' : 'false'} aria-describedby=${labelError ? 'label-error' : undefined}
          onInput=${(e: Event) => onLabels((e.target as HTMLInputElement).value)} />
      </label>
      ${labelError ? html`<p id="label-error" class="filter-error" role="alert">${labelError}</p>` : null}
    </div>
  </form>`;
}

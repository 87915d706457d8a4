/** The pod detail's runtime settings: what `winkube describe-runtime` prints, from the server's /ui/api/runtime-settings. */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { RuntimeView } from '../../runtime-endpoint.js';
import { ApiError, getJSON, type Session } from '../api.js';

export function RuntimeSettings(props: { session: Session; pod: Pod }) {
  const [result, setResult] = useState<{ view?: RuntimeView; error?: string }>({});
  const ns = props.pod.metadata?.namespace ?? '';
  const name = props.pod.metadata?.name ?? '';
  const node = props.pod.spec?.nodeName;
  useEffect(() => {
    if (!node) { setResult({}); return; }
    const stop = new AbortController();
    // The settings follow from the spec and the node: asked again only when the pod lands on a node.
    getJSON<RuntimeView>(props.session, `/ui/api/runtime-settings?${new URLSearchParams({ namespace: ns, name }).toString()}`, stop.signal)
      .then((view) => setResult({ view }))
      .catch((e: unknown) => { if (!stop.signal.aborted) setResult({ error: e instanceof ApiError ? e.message : String(e) }); });
    return () => stop.abort();
  }, [props.session, ns, name, node]);
  if (!node) return null;
  const { view } = result;
  return html`<section class="runtime" aria-labelledby="runtime-title">
    <h3 id="runtime-title">Runtime settings</h3>
    ${result.error ? html`<p role="alert">Runtime settings unavailable: ${result.error}</p>` : null}
    ${view ? html`<p class="runtime-node">${view.node} (${view.os}, ${view.cpus} logical CPUs)</p>
      ${view.containers.map((c) => html`<div class="runtime-container" data-runtime-container=${c.name}>
        <h4>${c.name}${c.init ? ' (init)' : ''}</h4>
        <dl class="facts">
          ${Object.entries(c.resources).map(([k, v]) => html`<dt>${k}</dt><dd data-setting=${k}>${v}</dd>`)}
          ${Object.keys(c.resources).length ? null : html`<dt>resources</dt><dd>(no resource settings)</dd>`}
          <dt>memory limit</dt><dd data-setting="memory limit">${c.memoryLimitBehaviour}</dd>
          ${Object.entries(c.windowsSecurity).map(([k, v]) => html`<dt>${k}</dt><dd data-setting=${k}>${String(v)}</dd>`)}
        </dl>
      </div>`)}` : null}
  </section>`;
}

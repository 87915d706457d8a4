/** The pod detail's logs: one container's log (a picker when there are several), followed as `kubectl logs -f` does. */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ApiError, streamText, type Session } from '../api.js';
import { appendLog, EMPTY_LOG, logPath, shownLines } from '../model/log-lines.js';

export function PodLogs(props: { session: Session; pod: Pod }) {
  const containers = [...(props.pod.spec?.initContainers ?? []), ...(props.pod.spec?.containers ?? [])].map((c) => c.name);
  const [container, setContainer] = useState(props.pod.spec?.containers?.[0]?.name ?? '');
  const [follow, setFollow] = useState(true);
  const [log, setLog] = useState(EMPTY_LOG);
  const [state, setState] = useState<{ ended?: boolean; error?: string }>({});
  const ns = props.pod.metadata?.namespace ?? '';
  const name = props.pod.metadata?.name ?? '';
  const started = !!props.pod.status?.containerStatuses?.some((c) => c.name === container && !c.state?.waiting)
    || !!props.pod.status?.initContainerStatuses?.some((c) => c.name === container && !c.state?.waiting);
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    setLog(EMPTY_LOG);
    setState({});
    if (!container || !started) return;
    const stop = new AbortController();
    streamText(props.session, logPath(ns, name, container, follow), (chunk) => setLog((l) => appendLog(l, chunk)), stop.signal)
      .then(() => setState({ ended: true }))
      .catch((e: unknown) => { if (!stop.signal.aborted) setState({ error: e instanceof ApiError ? e.message : String(e) }); });
    return () => stop.abort();
  }, [props.session, ns, name, container, follow, started]);
  // Following means keeping the newest line in view.
  useEffect(() => { if (follow && box.current) box.current.scrollTop = box.current.scrollHeight; }, [log, follow]);
  const lines = shownLines(log);
  return html`<section class="logs" aria-labelledby="logs-title">
    <h3 id="logs-title">Logs</h3>
    <div class="log-controls">
      <label>Container <select aria-label="Container" value=${container} onChange=${(e: Event) => setContainer((e.target as HTMLSelectElement).value)}>
        ${containers.map((c) => html`<option value=${c}>${c}</option>`)}
      </select></label>
      <label><input type="checkbox" checked=${follow} onChange=${(e: Event) => setFollow((e.target as HTMLInputElement).checked)} /> Follow</label>
      <span class="log-state" role="status">${state.error ? '' : !started ? 'container not started' : state.ended ? 'log ended' : follow ? 'following' : ''}</span>
    </div>
    ${state.error ? html`<p role="alert">${state.error}</p>` : null}
    <pre class="log" ref=${box} tabindex="0" aria-label=${`Log of container ${container}`}>${lines.map((l) => html`<span class="log-line">${l}</span>`)}</pre>
  </section>`;
}

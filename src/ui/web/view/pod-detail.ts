/**
 * The pod detail panel: status, containers, events (live through a watch), and the explanations: the
 * scheduler's per-node Filter verdicts and scores (for a bound pod, as if it were pending), the upstream reason and
 * winkube's fix when it fails; the runtime settings the kubelet hands the runtime, and the containers' logs.
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ContainerStatus, Event, Pod } from 'kubernetes-types/core/v1.js';
import type { SchedulingView } from '../../scheduling-view.js';
import { ApiError, getJSON, listWatch, type Session } from '../api.js';
import { inOrder } from '../model/event-order.js';
import { hints, podFailures } from '../model/pod-failures.js';
import { podChip } from '../model/pod-status.js';
import { applyEvent, fromList } from '../model/watch-state.js';
import { PodLogs } from './pod-logs.js';
import { RuntimeSettings } from './runtime-settings.js';
import { ScoreTable } from './score-table.js';

function stateText(c: ContainerStatus): string {
  const s = c.state ?? {};
  if (s.running) return 'Running';
  if (s.waiting) return `Waiting${s.waiting.reason ? `: ${s.waiting.reason}` : ''}`;
  if (s.terminated) return `Terminated: ${s.terminated.reason ?? `exit code ${s.terminated.exitCode}`}`;
  return 'Unknown';
}

function useEvents(session: Session, pod: Pod): Event[] {
  const [events, setEvents] = useState(new Map<string, Event>());
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  useEffect(() => {
    const stop = new AbortController();
    setEvents(new Map());
    const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${name}`)}`;
    void listWatch<Event>(session, path, {
      synced: (items) => setEvents(fromList(items)),
      event: (e) => setEvents((m) => applyEvent(m, e)),
      failed: () => undefined,
    }, stop.signal);
    return () => stop.abort();
  }, [session, ns, name]);
  // Events of an earlier pod of the same name (a recreated one) are not this pod's.
  return inOrder([...events.values()].filter((e) => !e.involvedObject.uid || e.involvedObject.uid === pod.metadata?.uid));
}

function useScheduling(session: Session, pod: Pod): { view?: SchedulingView; error?: string } {
  const [result, setResult] = useState<{ view?: SchedulingView; error?: string }>({});
  const pending = !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp;
  // A pending pod is asked again when it changes (the scheduler wrote a new condition); a bound one once per node.
  const asked = pending ? pod.metadata?.resourceVersion : pod.spec?.nodeName;
  useEffect(() => {
    if (pod.metadata?.deletionTimestamp) { setResult({}); return; }
    const stop = new AbortController();
    const query = new URLSearchParams({ namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' });
    getJSON<SchedulingView>(session, `/ui/api/explain-scheduling?${query.toString()}`, stop.signal)
      .then((view) => setResult({ view }))
      .catch((e: unknown) => { if (!stop.signal.aborted) setResult({ error: e instanceof ApiError ? e.message : String(e) }); });
    return () => stop.abort();
  }, [session, pod.metadata?.namespace, pod.metadata?.name, asked, !!pod.metadata?.deletionTimestamp]);
  return result;
}

function FilterTable(props: { view: SchedulingView }) {
  const { view } = props;
  if (view.preFilter) {
    return html`<p class="prefilter">PreFilter <strong>${view.preFilter.plugin}</strong> rejects the pod on every node: ${view.preFilter.reasons.join(', ')}</p>`;
  }
  return html`<table class="filter-table">
    <caption>Scheduler Filter results per node (the first plugin to reject a node is the reason the scheduler reports)</caption>
    <thead><tr><th scope="col">Node</th><th scope="col">Result</th><th scope="col">Also rejected by</th></tr></thead>
    <tbody>
      ${view.filter.map((row) => html`<tr data-node=${row.node} class=${row.feasible ? 'feasible' : 'rejected'}>
        <th scope="row">${row.node}</th>
        <td>${row.rejectedBy ? `${row.rejectedBy.plugin}: ${row.rejectedBy.reasons.join(', ')}` : 'feasible'}</td>
        <td>${row.alsoRejectedBy.map((r) => `${r.plugin}: ${r.reasons.join(', ')}`).join('; ')}</td>
      </tr>`)}
    </tbody>
  </table>`;
}

export function PodDetail(props: { session: Session; pod: Pod; onClose: () => void }) {
  const { pod } = props;
  const chip = podChip(pod);
  const events = useEvents(props.session, pod);
  const scheduling = useScheduling(props.session, pod);
  const failures = podFailures(pod);
  const fixes = hints(events);
  const heading = useRef<HTMLHeadingElement>(null);
  const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  // Keyboard users land on the panel they opened.
  useEffect(() => { heading.current?.focus(); }, [key]);
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((c) => [c.name, c]));
  return html`<aside class="detail" aria-labelledby="detail-title" onKeyDown=${(e: KeyboardEvent) => { if (e.key === 'Escape') props.onClose(); }}>
    <header>
      <h2 id="detail-title" tabindex="-1" ref=${heading}>Pod ${key}</h2>
      <button type="button" class="close" aria-label="Close pod detail" onClick=${props.onClose}>×</button>
    </header>
    <dl class="facts">
      <dt>Status</dt><dd data-field="status"><span class=${`badge tone-${chip.tone}`}>${chip.status}</span></dd>
      <dt>Ready</dt><dd>${chip.ready}</dd>
      <dt>Phase</dt><dd>${pod.status?.phase ?? ''}</dd>
      <dt>Node</dt><dd data-field="node">${pod.spec?.nodeName ?? '(not scheduled)'}</dd>
      <dt>OS</dt><dd>${pod.spec?.os?.name ?? '(not set)'}</dd>
      <dt>Pod IP</dt><dd>${pod.status?.podIP ?? ''}</dd>
    </dl>
    ${failures.length ? html`<section class="failures" aria-labelledby="failures-title">
      <h3 id="failures-title">Why it is not running</h3>
      <ul>${failures.map((f) => html`<li data-failure=${f.where}><strong>${f.where}: ${f.reason}</strong>${f.message ? html` <span class="message">${f.message}</span>` : null}</li>`)}</ul>
    </section>` : null}
    ${fixes.length ? html`<section class="fixes" aria-labelledby="fixes-title">
      <h3 id="fixes-title">Fix (WinkubeHint)</h3>
      <ul>${fixes.map((h) => html`<li>${h}</li>`)}</ul>
    </section>` : null}
    ${scheduling.view ? html`<section class="scheduling" aria-labelledby="scheduling-title">
      <h3 id="scheduling-title">Scheduling</h3>
      ${scheduling.view.failureMessage ? html`<p class="fit-error">kube-scheduler reports: ${scheduling.view.failureMessage}</p>` : null}
      ${scheduling.view.boundTo ? html`<p class="bound">Bound to ${scheduling.view.boundTo}; evaluated as if it were pending</p>` : null}
      <${FilterTable} view=${scheduling.view} />
      <${ScoreTable} view=${scheduling.view} />
    </section>` : null}
    ${scheduling.error ? html`<p role="alert">Scheduling explanation unavailable: ${scheduling.error}</p>` : null}
    <section aria-labelledby="containers-title">
      <h3 id="containers-title">Containers</h3>
      <table class="containers">
        <thead><tr><th scope="col">Name</th><th scope="col">Image</th><th scope="col">State</th><th scope="col">Ready</th><th scope="col">Restarts</th></tr></thead>
        <tbody>${(pod.spec?.containers ?? []).map((c) => {
          const s = statuses.get(c.name);
          return html`<tr data-container=${c.name}><th scope="row">${c.name}</th><td>${c.image}</td><td>${s ? stateText(s) : 'Waiting'}</td>
            <td>${s?.ready ? 'true' : 'false'}</td><td>${s?.restartCount ?? 0}</td></tr>`;
        })}</tbody>
      </table>
    </section>
    <${RuntimeSettings} session=${props.session} pod=${pod} />
    <${PodLogs} session=${props.session} pod=${pod} />
    <section aria-labelledby="events-title">
      <h3 id="events-title">Events</h3>
      ${events.length ? html`<table class="events">
        <thead><tr><th scope="col">Type</th><th scope="col">Reason</th><th scope="col">From</th><th scope="col">Message</th></tr></thead>
        <tbody>${events.map((e) => html`<tr data-reason=${e.reason}><td>${e.type}</td><td>${e.reason}</td>
          <td>${e.source?.component ?? e.reportingComponent ?? ''}</td><td>${e.message}</td></tr>`)}</tbody>
      </table>` : html`<p>No events.</p>`}
    </section>
  </aside>`;
}

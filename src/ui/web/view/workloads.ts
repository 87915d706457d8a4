/** The workloads view: Deployments, StatefulSets, DaemonSets and Jobs with their rollout progress, live through watches. */
import { html } from 'htm/preact';
import type { DaemonSet, Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Session } from '../api.js';
import { daemonSetRollout, deploymentRollout, jobRollout, statefulSetRollout, type RolloutProgress } from '../model/rollout-status.js';
import { useListWatch } from './use-list-watch.js';

function byName(a: RolloutProgress, b: RolloutProgress): number {
  return a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
}

function Progress(props: { label: string; value: number; of: number }) {
  return html`<span class="progress-count">${props.label} <meter min="0" max=${Math.max(props.of, 1)} value=${props.value}
    aria-label=${`${props.label} ${props.value} of ${props.of}`}></meter> ${props.value}/${props.of}</span>`;
}

function WorkloadTable(props: { title: string; kind: string; rows: RolloutProgress[]; loading: boolean; job?: boolean }) {
  const id = `workloads-${props.kind}`;
  return html`<section class="workload-kind" aria-labelledby=${id} data-kind=${props.kind}>
    <h2 id=${id}>${props.title} <span class="count">${props.rows.length}</span></h2>
    ${props.rows.length ? html`<table class="workloads">
      <thead><tr><th scope="col">Namespace</th><th scope="col">Name</th>
        ${props.job ? html`<th scope="col">Succeeded</th><th scope="col">Active</th>`
          : html`<th scope="col">Updated</th><th scope="col">Ready</th><th scope="col">Available</th>`}
        <th scope="col">Rollout status</th></tr></thead>
      <tbody>${props.rows.map((r) => html`<tr data-workload=${`${r.namespace}/${r.name}`} class=${r.done ? 'rolled-out' : 'rolling'}>
        <td>${r.namespace}</td><th scope="row">${r.name}</th>
        ${props.job ? html`<td><${Progress} label="succeeded" value=${r.updated} of=${r.desired} /></td><td data-field="active">${r.available}</td>`
          : html`<td><${Progress} label="updated" value=${r.updated} of=${r.desired} /></td>
            <td><${Progress} label="ready" value=${r.ready} of=${r.desired} /></td>
            <td><${Progress} label="available" value=${r.available} of=${r.desired} /></td>`}
        <td class="rollout-message" data-field="message">${r.message}</td>
      </tr>`)}</tbody>
    </table>` : html`<p>${props.loading ? 'Loading…' : `No ${props.title}.`}</p>`}
  </section>`;
}

export function Workloads(props: { session: Session }) {
  const deployments = useListWatch<Deployment>(props.session, '/apis/apps/v1/deployments');
  const statefulSets = useListWatch<StatefulSet>(props.session, '/apis/apps/v1/statefulsets');
  const daemonSets = useListWatch<DaemonSet>(props.session, '/apis/apps/v1/daemonsets');
  const jobs = useListWatch<Job>(props.session, '/apis/batch/v1/jobs');
  const rows = <T>(w: { items: Map<string, T> }, f: (o: T) => RolloutProgress) =>
    [...w.items.values()].map(f).sort(byName);
  return html`<div class="workloads-view">
    <${WorkloadTable} title="Deployments" kind="Deployment" rows=${rows(deployments, deploymentRollout)} loading=${!deployments.synced} />
    <${WorkloadTable} title="StatefulSets" kind="StatefulSet" rows=${rows(statefulSets, statefulSetRollout)} loading=${!statefulSets.synced} />
    <${WorkloadTable} title="DaemonSets" kind="DaemonSet" rows=${rows(daemonSets, daemonSetRollout)} loading=${!daemonSets.synced} />
    <${WorkloadTable} title="Jobs" kind="Job" rows=${rows(jobs, jobRollout)} loading=${!jobs.synced} job=${true} />
  </div>`;
}

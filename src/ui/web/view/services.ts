/** The services view: each Service with its EndpointSlices' endpoints per OS and node, live through watches; then net check. */
import { html } from 'htm/preact';
import type { Node, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Session } from '../api.js';
import { endpointsByOs, slicePorts, slicesOf } from '../model/service-endpoints.js';
import { NetCheck } from './net-check.js';
import { useListWatch } from './use-list-watch.js';

function servicePorts(svc: Service): string {
  return (svc.spec?.ports ?? []).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',') || '<none>';
}

function ServiceCard(props: { svc: Service; slices: EndpointSlice[]; nodesByName: Map<string, Node> }) {
  const { svc } = props;
  const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
  const groups = endpointsByOs(props.slices, props.nodesByName);
  const titleId = `svc-${key.replace(/[^A-Za-z0-9-]/g, '-')}`;
  return html`<article class="service" data-service=${key} aria-labelledby=${titleId}>
    <header><h3 id=${titleId}>${key}</h3><span class="badge tone-done">${svc.spec?.type ?? 'ClusterIP'}</span></header>
    <dl class="facts">
      <dt>Cluster IP</dt><dd>${svc.spec?.clusterIP ?? ''}</dd>
      <dt>Ports</dt><dd>${servicePorts(svc)}</dd>
      <dt>Endpoint ports</dt><dd>${slicePorts(props.slices).join(', ') || '<none>'}</dd>
    </dl>
    ${groups.length ? groups.map((g) => html`<section class="endpoint-os" data-os=${g.key} aria-label=${`${key} endpoints on ${g.title}`}>
      <h4>${g.title}</h4>
      <ul class="endpoint-nodes">${g.nodes.map((n) => html`<li data-endpoint-node=${n.node}><span class="node-name">${n.node}</span>
        <ul class="endpoints">${n.endpoints.map((e) => html`<li class=${`endpoint ${e.ready ? 'tone-ok' : 'tone-progress'}`}>${e.address}${e.target ? ` ${e.target}` : ''}${e.ready ? '' : e.terminating ? ' (terminating)' : ' (not ready)'}</li>`)}</ul>
      </li>`)}</ul>
    </section>`) : html`<p class="no-endpoints">No endpoints.</p>`}
  </article>`;
}

export function Services(props: { session: Session; nodes: Map<string, Node> }) {
  const services = useListWatch<Service>(props.session, '/api/v1/services');
  const slices = useListWatch<EndpointSlice>(props.session, '/apis/discovery.k8s.io/v1/endpointslices');
  // The node map is keyed namespace/name, and nodes have no namespace.
  const nodesByName = new Map([...props.nodes.values()].map((n) => [n.metadata?.name ?? '', n]));
  const all = [...slices.items.values()];
  const list = [...services.items.values()].sort((a, b) =>
    (a.metadata?.namespace ?? '').localeCompare(b.metadata?.namespace ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  return html`<div class="services-view">
    <section aria-labelledby="services-title">
      <h2 id="services-title">Services <span class="count">${list.length}</span></h2>
      ${services.synced ? html`<div class="service-list">${list.map((svc) => html`<${ServiceCard} svc=${svc}
        slices=${slicesOf(all, svc.metadata?.namespace ?? '', svc.metadata?.name ?? '')} nodesByName=${nodesByName} />`)}</div>` : html`<p>Loading…</p>`}
    </section>
    <${NetCheck} session=${props.session} />
  </div>`;
}

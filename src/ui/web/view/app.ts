/** The page: sign-in, then the live cluster map with the selected pod's detail beside it, the workloads, the services. */
import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Session } from '../api.js';
import type { Filter } from '../model/filter.js';
import { forgetSession, saveSession, sessionFromLocation } from '../session.js';
import { ClusterMap } from './cluster-map.js';
import { FilterBar } from './filters.js';
import { Login } from './login.js';
import { PodDetail } from './pod-detail.js';
import { Services } from './services.js';
import { useListWatch } from './use-list-watch.js';
import { ViewTabs, type ViewName } from './view-tabs.js';
import { Workloads } from './workloads.js';

export function App() {
  const [session, setSession] = useState<Session | undefined>(() => sessionFromLocation());
  const [denied, setDenied] = useState<string>();
  const [filter, setFilter] = useState<Filter>({ namespace: '', name: '' });
  const [selected, setSelected] = useState<string>();
  const [view, setView] = useState<ViewName>('map');
  const signOut = (message?: string) => { forgetSession(); setSession(undefined); setDenied(message); };
  const nodes = useListWatch<Node>(session, '/api/v1/nodes', signOut);
  const pods = useListWatch<Pod>(session, '/api/v1/pods', signOut);
  const namespaces = useMemo(() => [...new Set([...pods.items.values()].map((p) => p.metadata?.namespace ?? ''))].sort(), [pods.items]);
  if (!session) return html`<${Login} message=${denied} onToken=${(t: string) => { setDenied(undefined); setSession(saveSession(t)); }} />`;
  const selectedPod = selected ? pods.items.get(selected) : undefined;
  // Keyboard users go back to the chip they opened the detail from.
  const closeDetail = (key: string | undefined) => {
    setSelected(undefined);
    if (key) document.querySelector<HTMLElement>(`[data-pod="${CSS.escape(key)}"]`)?.focus();
  };
  return html`<div class=${`layout${selectedPod && view === 'map' ? ' with-detail' : ''}`}>
    <header class="top">
      <h1>winkube</h1>
      <${ViewTabs} current=${view} onChange=${setView} />
      ${view === 'map' ? html`<${FilterBar} namespaces=${namespaces} filter=${filter} onChange=${setFilter} />` : null}
      <p class="summary" role="status" aria-live="polite">${nodes.synced && pods.synced
        ? `${nodes.items.size} nodes, ${pods.items.size} pods` : 'Loading…'}</p>
      <button type="button" onClick=${() => signOut()}>Sign out</button>
    </header>
    ${view === 'map' ? html`<main aria-label="Cluster map" id="view-panel" role="tabpanel">
      <${ClusterMap} nodes=${nodes.items} pods=${pods.items} filter=${filter} selected=${selected} onSelect=${setSelected} />
    </main>` : html`<main id="view-panel" role="tabpanel" aria-labelledby=${`tab-${view}`}>
      ${view === 'workloads' ? html`<${Workloads} session=${session} />` : html`<${Services} session=${session} nodes=${nodes.items} />`}
    </main>`}
    ${selectedPod && view === 'map' ? html`<${PodDetail} session=${session} pod=${selectedPod} onClose=${() => closeDetail(selected)} />` : null}
  </div>`;
}

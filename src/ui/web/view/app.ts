/** The page: sign-in, then the live cluster map with the selected pod's detail beside it. */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { listWatch, type Session } from '../api.js';
import type { Filter } from '../model/filter.js';
import { applyEvent, fromList } from '../model/watch-state.js';
import { forgetSession, saveSession, sessionFromLocation } from '../session.js';
import { ClusterMap } from './cluster-map.js';
import { FilterBar } from './filters.js';
import { Login } from './login.js';
import { PodDetail } from './pod-detail.js';

function useListWatch<T extends { metadata?: { resourceVersion?: string } }>(session: Session | undefined, path: string,
  onDenied: (message: string) => void): { items: Map<string, T>; synced: boolean } {
  const [state, setState] = useState({ items: new Map<string, T>(), synced: false });
  useEffect(() => {
    if (!session) return;
    const stop = new AbortController();
    void listWatch<T>(session, path, {
      synced: (items) => setState({ items: fromList(items), synced: true }),
      event: (e) => setState((s) => ({ ...s, items: applyEvent(s.items, e) })),
      failed: (e) => { if (e.status === 401 || e.status === 403) onDenied(e.message); },
    }, stop.signal);
    return () => stop.abort();
  }, [session, path]);
  return state;
}

export function App() {
  const [session, setSession] = useState<Session | undefined>(() => sessionFromLocation());
  const [denied, setDenied] = useState<string>();
  const [filter, setFilter] = useState<Filter>({ namespace: '', name: '' });
  const [selected, setSelected] = useState<string>();
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
  return html`<div class=${`layout${selectedPod ? ' with-detail' : ''}`}>
    <header class="top">
      <h1>winkube</h1>
      <${FilterBar} namespaces=${namespaces} filter=${filter} onChange=${setFilter} />
      <p class="summary" role="status" aria-live="polite">${nodes.synced && pods.synced
        ? `${nodes.items.size} nodes, ${pods.items.size} pods` : 'Loading…'}</p>
      <button type="button" onClick=${() => signOut()}>Sign out</button>
    </header>
    <main aria-label="Cluster map">
      <${ClusterMap} nodes=${[...nodes.items.values()]} pods=${[...pods.items.values()]} filter=${filter} selected=${selected} onSelect=${setSelected} />
    </main>
    ${selectedPod ? html`<${PodDetail} session=${session} pod=${selectedPod} onClose=${() => closeDetail(selected)} />` : null}
  </div>`;
}

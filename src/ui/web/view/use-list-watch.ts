/** A list+watch of one API path as component state: the whole list after each (re)list, then its events. */
import { useEffect, useState } from 'preact/hooks';
import { listWatch, type Session } from '../api.js';
import { applyEvent, fromList } from '../model/watch-state.js';

export interface Watched<T> { items: Map<string, T>; synced: boolean }

export function useListWatch<T extends { metadata?: { resourceVersion?: string } }>(session: Session | undefined, path: string,
  onDenied: (message: string) => void = () => undefined): Watched<T> {
  const [state, setState] = useState<Watched<T>>({ items: new Map<string, T>(), synced: false });
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

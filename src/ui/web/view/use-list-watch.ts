/**
 * A list+watch of one API path as component state: the whole list after each (re)list, then its events,
 * applied once per animation frame (a burst of pod updates is one render, not one per event).
 */
import { useEffect, useState } from 'preact/hooks';
import { listWatch, type Session } from '../api.js';
import { applyEvents, fromList, type WatchEvent } from '../model/watch-state.js';
import { batchStarted } from './batch-timing.js';

export interface Watched<T> { items: Map<string, T>; synced: boolean }

export function useListWatch<T extends { metadata?: { resourceVersion?: string } }>(session: Session | undefined, path: string,
  onDenied: (message: string) => void = () => undefined): Watched<T> {
  const [state, setState] = useState<Watched<T>>({ items: new Map<string, T>(), synced: false });
  useEffect(() => {
    if (!session) return;
    const stop = new AbortController();
    let queued: WatchEvent<T>[] = [];
    let frame: number | undefined;
    const flush = () => {
      frame = undefined;
      const batch = queued;
      queued = [];
      batchStarted(batch.length);
      setState((s) => ({ ...s, items: applyEvents(s.items, batch) }));
    };
    void listWatch<T>(session, path, {
      synced: (items) => {
        // A relist replaces everything, events queued before it included.
        queued = [];
        setState({ items: fromList(items), synced: true });
      },
      event: (e) => {
        queued.push(e);
        frame ??= requestAnimationFrame(flush);
      },
      failed: (e) => { if (e.status === 401 || e.status === 403) onDenied(e.message); },
    }, stop.signal);
    return () => { stop.abort(); if (frame !== undefined) cancelAnimationFrame(frame); };
  }, [session, path]);
  return state;
}

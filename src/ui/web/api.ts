/**
 * The page's way to the API: the user's bearer token on every request, lists followed by watches from their
 * resourceVersion (JSON lines read off the fetch stream), a relist only when the watch ends or expires.
 */
import type { WatchEvent } from './model/watch-state.js';

export class ApiError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export interface Session { token: string }

function headers(session: Session): HeadersInit {
  return { Authorization: `Bearer ${session.token}`, Accept: 'application/json' };
}

async function failure(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const status = JSON.parse(text) as { message?: string };
    return new ApiError(res.status, status.message ?? text);
  } catch { return new ApiError(res.status, text.trim() || res.statusText); }
}

export async function getJSON<T>(session: Session, path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { headers: headers(session), signal });
  if (!res.ok) throw await failure(res);
  return await res.json() as T;
}

interface List<T> { items: T[]; metadata: { resourceVersion?: string } }

export interface WatchHandlers<T> {
  /** The whole list, at the start and after each relist. */
  synced: (items: T[]) => void;
  event: (e: WatchEvent<T>) => void;
  failed: (e: ApiError) => void;
}

function withQuery(path: string, query: Record<string, string>): string {
  const sep = path.includes('?') ? '&' : '?';
  return `${path}${sep}${new URLSearchParams(query).toString()}`;
}

/** Reads a watch stream's events, one JSON object a line, until it ends; returns the last resourceVersion seen. */
async function readWatch<T extends { metadata?: { resourceVersion?: string } }>(res: Response, rv: string,
  onEvent: (e: WatchEvent<T>) => void): Promise<string | undefined> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return rv;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      const e = JSON.parse(line) as WatchEvent<T>;
      // 410 Gone: the resourceVersion is too old; only a relist recovers.
      if (e.type === 'ERROR') return undefined;
      rv = e.object.metadata?.resourceVersion ?? rv;
      if (e.type !== 'BOOKMARK') onEvent(e);
    }
  }
}

/** Keeps `handlers` fed until `signal` aborts. */
export async function listWatch<T extends { metadata?: { resourceVersion?: string } }>(session: Session, path: string,
  handlers: WatchHandlers<T>, signal: AbortSignal): Promise<void> {
  let rv: string | undefined;
  while (!signal.aborted) {
    try {
      if (rv === undefined) {
        const list = await getJSON<List<T>>(session, path, signal);
        rv = list.metadata.resourceVersion ?? '0';
        handlers.synced(list.items);
      }
      const res = await fetch(withQuery(path, { watch: '1', resourceVersion: rv, allowWatchBookmarks: 'true' }), { headers: headers(session), signal });
      if (!res.ok) {
        if (res.status === 410) { rv = undefined; continue; }
        throw await failure(res);
      }
      rv = await readWatch(res, rv, handlers.event);
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ApiError) { handlers.failed(e); if (e.status === 401 || e.status === 403) return; }
      // A dropped connection: wait a moment before asking again, as a reflector backs off.
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Reads a text stream (a followed log) chunk by chunk until it ends or `signal` aborts. */
export async function streamText(session: Session, path: string, onText: (chunk: string) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(path, { headers: { Authorization: `Bearer ${session.token}`, Accept: '*/*' }, signal });
  if (!res.ok) throw await failure(res);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onText(value);
  }
}

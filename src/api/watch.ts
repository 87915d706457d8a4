import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, errors } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from '../registry/types.js';
import type { ListRequest, Store, WatchEventType } from '../registry/store.js';
import { printerFor } from '../registry/printers/index.js';
import { StorageError, UnavailableError, type WatchHandle } from '../storage/types.js';
import { watchStorageUnavailableStatus } from './storage-unavailable.js';
import type { Shape } from './negotiate.js';
import { parseResourceVersion } from '../storage/resource-version.js';
import { partialObject, toTable, type IncludeObject } from './table.js';

export interface WatchOptions extends Pick<ListRequest, 'labelSelector' | 'fieldSelector'> {
  resourceVersion: string;
  timeoutSeconds?: number;
  allowBookmarks: boolean;
  sendInitialEvents?: boolean;
  shape: Shape;
  includeObject: IncludeObject;
}

const BOOKMARK_INTERVAL_MS = 20_000;
/** Upstream's default: a random time between the minimal request timeout (30 min) and twice it. */
const defaultTimeout = () => 1800 + Math.floor(Math.random() * 1800);
/** The longest timer Node keeps (a longer one would fire at once): about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Streams WatchEvents as newline-delimited JSON. With sendInitialEvents (which a watch from no
 * version, or "0", gets by default) the current state comes first as ADDED events, closed by a
 * bookmark when bookmarks are allowed; otherwise events after the resourceVersion.
 */
export async function serveWatch(store: Store, def: ResourceDef, namespace: string, opts: WatchOptions,
  req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The watch cache parses the version before the stream starts: a bad one is a plain 500.
  const rv = parseResourceVersion(opts.resourceVersion);
  let initial: KObject[] = [];
  let from: number;
  let tooNew: StatusError | undefined;
  // Without sendInitialEvents (a /watch/ path, which skips the WatchList defaults), a watch from
  // no version still gets the state first: the legacy behaviour.
  if (opts.sendInitialEvents ?? rv === 0) {
    // The state is sent once the cache has reached the version asked for.
    try {
      await store.waitForRevision(rv);
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      tooNew = e;
    }
    const list = await store.list(def, namespace, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    initial = tooNew ? [] : list.items;
    from = list.revision;
  } else {
    from = rv || store.storage.currentRevision();
  }
  // Upstream prints table headers only on the first event of a watch.
  let headers = true;
  const encodeObject = (obj: KObject): unknown => {
    if (opts.shape.kind === 'table') {
      const table = toTable(def.printer ?? printerFor(def.group, def.resource), [obj], { resourceVersion: obj.metadata.resourceVersion }, opts.includeObject);
      if (!headers) table.columnDefinitions = null;
      headers = false;
      return table;
    }
    if (opts.shape.kind === 'partial') return partialObject(obj);
    return obj;
  };
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const send = (type: string, object: unknown) => {
    res.write(JSON.stringify({ type, object }) + '\n');
  };
  let handle: WatchHandle | undefined;
  const bookmark = (annotations?: Record<string, string>) => {
    // Never past what this watch has sent: a client resuming from the bookmark would miss the rest.
    const metadata: Record<string, unknown> = { resourceVersion: String(handle?.progress?.() ?? store.storage.currentRevision()) };
    if (annotations) metadata.annotations = annotations;
    send('BOOKMARK', { kind: def.kind, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, metadata });
  };
  if (tooNew) {
    send('ERROR', tooNew.status);
    res.end();
    return;
  }
  for (const obj of initial) send('ADDED', encodeObject(obj));
  if (opts.sendInitialEvents && opts.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });

  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    handle?.cancel();
    for (const t of timers) { clearTimeout(t); clearInterval(t); }
    if (!res.writableEnded) res.end();
  };
  req.on('close', stop);
  res.on('error', stop);
  try {
    // An event that cannot be converted to the watched version ends the stream (watch.go stops serving).
    handle = await store.watch(def, namespace, from, opts, (type: WatchEventType, obj: KObject) => {
      send(type, encodeObject(obj));
    }, (err) => {
      // A watch storage ended (its history compacted while etcd's watch reconnected) gets the ERROR
      // event clients relist on; one etcd ended otherwise the InternalError etcd3's watcher sends
      // (transformErrorToEvent), which clients watch again after; one whose event could not be
      // converted just stops, as upstream's.
      if (!res.writableEnded) {
        if (err instanceof StatusError && err.status.code === 410) send('ERROR', err.status);
        else if (err instanceof StorageError) send('ERROR', errors.internal(err.message).status);
      }
      stop();
    });
    // The client left while the watch was being set up (etcd unreachable until now).
    if (res.writableEnded || res.destroyed) handle.cancel();
  } catch (e) {
    if (e instanceof StatusError || e instanceof UnavailableError) {
      send('ERROR', e instanceof StatusError ? e.status : watchStorageUnavailableStatus());
      stop();
      return;
    }
    throw e;
  }
  // timeoutSeconds=0 means the default, as upstream reads it.
  timers.push(setTimeout(stop, Math.min((opts.timeoutSeconds || defaultTimeout()) * 1000, MAX_TIMER_MS)));
  if (opts.allowBookmarks) timers.push(setInterval(() => bookmark(), BOOKMARK_INTERVAL_MS));
}

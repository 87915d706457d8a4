import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from './status.js';
import type { KObject, ResourceDef } from '../registry/types.js';
import type { ListRequest, Store, WatchEventType } from '../registry/store.js';
import type { WatchHandle } from '../storage/types.js';
import type { Shape } from './negotiate.js';
import { partialObject, toTable, type IncludeObject } from './table.js';

export interface WatchOptions extends ListRequest {
  resourceVersion?: string;
  timeoutSeconds?: number;
  allowBookmarks: boolean;
  sendInitialEvents?: boolean;
  shape: Shape;
  includeObject: IncludeObject;
}

const BOOKMARK_INTERVAL_MS = 20_000;
/** Upstream's default: a random time between the minimal request timeout (30 min) and twice it. */
const defaultTimeout = () => 1800 + Math.floor(Math.random() * 1800);

/**
 * Streams WatchEvents as newline-delimited JSON. A watch from no version
 * (or "0") first replays the current state as ADDED events.
 */
export async function serveWatch(store: Store, def: ResourceDef, namespace: string, opts: WatchOptions,
  req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rv = opts.resourceVersion;
  const fromScratch = !rv || rv === '0' || opts.sendInitialEvents === true;
  let initial: KObject[] = [];
  let from: number;
  if (fromScratch) {
    const list = await store.list(def, namespace, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    initial = list.items;
    from = list.revision;
  } else {
    from = Number(rv);
  }
  // Upstream prints table headers only on the first event of a watch.
  let headers = true;
  const encodeObject = (obj: KObject): unknown => {
    if (opts.shape.kind === 'table') {
      const table = toTable(def.printer!, [obj], { resourceVersion: obj.metadata.resourceVersion }, opts.includeObject);
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
  const bookmark = (annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: String(store.storage.currentRevision()) };
    if (annotations) metadata.annotations = annotations;
    send('BOOKMARK', { kind: def.kind, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, metadata });
  };
  for (const obj of initial) send('ADDED', encodeObject(obj));
  if (opts.sendInitialEvents && opts.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });

  let handle: WatchHandle | undefined;
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    handle?.cancel();
    for (const t of timers) { clearTimeout(t); clearInterval(t); }
    if (!res.writableEnded) res.end();
  };
  req.on('close', stop);
  res.on('error', stop);
  try {
    handle = await store.watch(def, namespace, from, opts, (type: WatchEventType, obj: KObject) => {
      send(type, encodeObject(obj));
    });
  } catch (e) {
    if (e instanceof StatusError) {
      send('ERROR', e.status);
      stop();
      return;
    }
    throw e;
  }
  timers.push(setTimeout(stop, (opts.timeoutSeconds ?? defaultTimeout()) * 1000));
  if (opts.allowBookmarks) timers.push(setInterval(() => bookmark(), BOOKMARK_INTERVAL_MS));
}

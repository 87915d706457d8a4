import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from '../registry/types.js';
import type { Store } from '../registry/store.js';
import type { ContainerLogReader } from '../apimachinery/container-log.js';
import type { LogLine } from '../apimachinery/container-log.js';
import { rfc3339Nano } from '../apimachinery/time.js';
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { parseBool, parseIntParam } from './query.js';
import { errors } from '../apimachinery/errors.js';
import { containerStatus, validateContainer, type ContainerStatusLike } from './streaming/container-name.js';

/** PodLogOptions as the API server decodes it from the query. */
export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: Date;
  tailLines?: number;
  limitBytes?: number;
}

export function parsePodLogOptions(q: URLSearchParams): PodLogOptions {
  const sinceTimeText = q.get('sinceTime');
  let sinceTime: Date | undefined;
  if (sinceTimeText) {
    sinceTime = new Date(sinceTimeText);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(sinceTimeText) || Number.isNaN(sinceTime.getTime())) {
      throw errors.badRequest(`parsing time ${JSON.stringify(sinceTimeText)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTimeText)} as "2006"`);
    }
  }
  return {
    container: q.get('container') ?? '',
    follow: parseBool(q.get('follow'), 'follow') === true,
    previous: parseBool(q.get('previous'), 'previous') === true,
    timestamps: parseBool(q.get('timestamps'), 'timestamps') === true,
    sinceSeconds: parseIntParam(q.get('sinceSeconds'), 'sinceSeconds'),
    sinceTime,
    tailLines: parseIntParam(q.get('tailLines'), 'tailLines'),
    limitBytes: parseIntParam(q.get('limitBytes'), 'limitBytes'),
  };
}

/** ValidatePodLogOptions (pkg/apis/core/validation). */
export function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(field.invalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(field.invalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errs.push(field.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errs.push(field.invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  }
  return errs;
}

/**
 * Which container instance (by restart count) the logs come from, after the
 * kubelet's validateContainerLogStatus: `previous` wants the last terminated
 * instance; otherwise the running one, else the terminated one, else the
 * last terminated one; a container that never ran has no logs and says why.
 * While a container waits to restart, its last instance may carry the
 * current restart count or the one before, so the newest instance that
 * exists up to that count is taken.
 */
export function logInstance(pod: KObject, container: string, previous: boolean,
  exists: (restartCount: number) => boolean): number {
  const podName = pod.metadata.name ?? '';
  const s: ContainerStatusLike | undefined = containerStatus(pod, container);
  const where = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  if (!s) throw errors.badRequest(`${where} is not available`);
  const rc = s.restartCount ?? 0;
  const newest = (bound: number) => {
    for (let i = bound; i >= 0; i--) if (exists(i)) return i;
    return Math.max(bound, 0);
  };
  const last = s.lastState?.terminated;
  const { waiting, running, terminated } = s.state ?? {};
  if (previous) {
    if (!last?.containerID) throw errors.badRequest(`previous terminated ${where} not found`);
    return newest(waiting ? rc : rc - 1);
  }
  if (running) return rc;
  if (terminated) {
    if (terminated.containerID) return rc;
    if (last?.containerID) return newest(rc);
    throw errors.badRequest(`${where} is terminated`);
  }
  if (last) {
    if (!last.containerID) throw errors.badRequest(`${where} is terminated`);
    return newest(rc);
  }
  if (waiting) {
    switch (waiting.reason) {
      case 'ErrImagePull': throw errors.badRequest(`${where} is waiting to start: image can't be pulled`);
      case 'ImagePullBackOff': throw errors.badRequest(`${where} is waiting to start: trying and failing to pull image`);
      default: throw errors.badRequest(`${where} is waiting to start: ${waiting.reason ?? ''}`);
    }
  }
  throw errors.badRequest(`${where} is waiting to start - no logs yet`);
}


/** The lines a log request returns from what is kept: the last `tailLines`, then those not before `since`. */
export function selectLines(lines: readonly LogLine[], tailLines: number | undefined, since: Date | undefined): LogLine[] {
  let out = tailLines === undefined ? lines.slice() : tailLines === 0 ? [] : lines.slice(-tailLines);
  if (since) out = out.filter((l) => l.time.getTime() >= since.getTime());
  return out;
}

export function formatLine(l: LogLine, timestamps: boolean): string {
  return (timestamps ? `${rfc3339Nano(l.time)} ` : '') + l.text + '\n';
}

export interface PodLogRequest {
  store: Store;
  def: ResourceDef;
  namespace: string;
  name: string;
  url: URL;
  logs: ContainerLogReader;
}

/** Where a log stream goes: an HTTP response, or a WebSocket (the API server's wsstream reader). */
export interface LogSink {
  /** The pod has no node yet: no content (HTTP 204). */
  noContent(): void;
  /** The request passed every check: the stream begins. */
  begin(): void;
  write(chunk: Buffer): void;
  end(): void;
  /** The client went away. */
  onClose(f: () => void): void;
}

/**
 * GET pods/{name}/log: the LogREST of the API server (validation,
 * LogLocation's container choice, 204 when the pod has no node yet) and the
 * kubelet's container log reader (ReadLogs: tail, since, timestamps,
 * limitBytes, follow until the container exits), streamed as text/plain.
 */
export async function servePodLog(req: IncomingMessage, res: ServerResponse, r: PodLogRequest): Promise<void> {
  if (req.method !== 'GET') throw errors.methodNotAllowed();
  return streamPodLog(r, {
    noContent: () => { res.writeHead(204); res.end(); },
    begin: () => { res.writeHead(200, { 'Content-Type': 'text/plain' }); },
    write: (chunk) => { res.write(chunk); },
    end: () => { res.end(); },
    onClose: (f) => { res.on('close', f); },
  });
}

/** The checks of a log request, then its lines into `sink`; a failed check throws before the sink begins. */
export async function streamPodLog(r: PodLogRequest, sink: LogSink): Promise<void> {
  const o = parsePodLogOptions(r.url.searchParams);
  const errs = validatePodLogOptions(o);
  if (errs.length) throw errors.invalid({ group: '', kind: 'PodLogOptions' }, r.name, errs);
  const pod = await r.store.read(r.def, r.namespace, r.name);
  const container = validateContainer(o.container, pod);
  if (!(pod as { spec?: { nodeName?: string } }).spec?.nodeName) { sink.noContent(); return; }
  const uid = pod.metadata.uid ?? '';
  const instance = logInstance(pod, container, o.previous, (rc) => r.logs.has(uid, container, rc));
  const now = new Date();
  let since = o.sinceSeconds !== undefined ? new Date(now.getTime() - o.sinceSeconds * 1000) : undefined;
  if (o.sinceTime && (!since || o.sinceTime > since)) since = o.sinceTime;

  sink.begin();
  let remaining = o.limitBytes ?? Infinity;
  let done = false;
  let unfollow = () => {};
  const finish = () => { if (done) return; done = true; unfollow(); sink.end(); };
  const emit = (l: LogLine) => {
    if (done) return;
    if (since && l.time.getTime() < since.getTime()) return;
    let text = Buffer.from(formatLine(l, o.timestamps), 'utf8');
    if (text.length >= remaining) { text = text.subarray(0, remaining); remaining = 0; } else remaining -= text.length;
    sink.write(text);
    if (remaining === 0) finish();
  };
  for (const l of selectLines(r.logs.lines(uid, container, instance), o.tailLines, since)) emit(l);
  if (!o.follow || done) return finish();
  unfollow = r.logs.follow(uid, container, instance, (l) => (l === null ? finish() : emit(l)));
  sink.onClose(finish);
}

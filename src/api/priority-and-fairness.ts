/**
 * The API Priority and Fairness filter (k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go):
 * each authenticated request is classified by the FlowSchemas, then waits for
 * seats at its priority level or is refused with 429, before its handler runs
 * (and so before its body is read).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FlowControl } from '../flowcontrol/controller.js';
import { DroppedRequestsTracker } from '../flowcontrol/dropped-requests.js';
import type { RequestDigest } from '../flowcontrol/types.js';
import type { Store } from '../registry/store.js';
import { parseDuration } from '../apimachinery/duration.js';
import type { User } from './auth.js';
import { parseRequestInfo } from './request-info.js';
import { writeText } from './respond.js';
import { LONG_RUNNING_SUBRESOURCES } from './long-running.js';

/** kube-apiserver's --request-timeout. */
const REQUEST_TIMEOUT_MS = 60_000;
/** The longest a request may wait in a queue. */
const MAX_WAIT_MS = 60_000;
/** The work estimator's objectsPerSeat. */
const OBJECTS_PER_SEAT = 100;

/** RequestInfoFactory.NewRequestInfo's verb and target, for classification. */
export function requestDigest(method: string, path: string, q: URLSearchParams, user: User): RequestDigest {
  const u = { name: user.name, groups: user.groups };
  const info = parseRequestInfo(path);
  if (!info) {
    return { user: u, isResourceRequest: false, verb: method.toLowerCase(), apiGroup: '', namespace: '', resource: '', subresource: '', path };
  }
  let verb: string;
  switch (method) {
    case 'POST': verb = 'create'; break;
    case 'GET': case 'HEAD': verb = info.name ? 'get' : 'list'; break;
    case 'PUT': verb = 'update'; break;
    case 'PATCH': verb = 'patch'; break;
    case 'DELETE': verb = info.name ? 'delete' : 'deletecollection'; break;
    default: verb = method.toLowerCase();
  }
  if (info.watchPath || ((verb === 'list' || verb === 'get') && ['1', 'true'].includes((q.get('watch') ?? '').toLowerCase()))) verb = 'watch';
  // A namespace object's own URL (/api/v1/namespaces/<name>[/status|/finalize]) is in that namespace.
  const namespace = info.resource === 'namespaces' && info.group === '' && !info.namespace ? info.name : info.namespace;
  return {
    user: u, isResourceRequest: true, verb, apiGroup: info.group, namespace,
    resource: info.resource, subresource: info.subresource, path,
  };
}

/** getRequestWaitContext: a quarter of the request's deadline (its ?timeout, else the request timeout), at most a minute. */
export function queueWaitLimitMs(d: RequestDigest, q: URLSearchParams): number {
  let deadline = REQUEST_TIMEOUT_MS;
  const t = d.verb === 'watch' ? undefined : q.get('timeout');
  const ms = t ? parseDuration(t) : undefined;
  if (ms !== undefined && ms > 0 && ms <= REQUEST_TIMEOUT_MS) deadline = ms;
  return Math.min(deadline / 4, MAX_WAIT_MS);
}

/** Resolves once the whole response went out to the connection, or the connection closed. */
function responseDone(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { res.off('finish', done); res.off('close', done); resolve(); };
    res.once('finish', done);
    res.once('close', done);
  });
}

export class PriorityAndFairness {
  private readonly dropped = new DroppedRequestsTracker();

  constructor(private readonly fc: FlowControl, private readonly store: Store) {}

  /** listWorkEstimator: a list from the cache costs a seat per 100 objects of its resource. */
  private async seats(d: RequestDigest): Promise<number> {
    if (!d.isResourceRequest || d.verb !== 'list') return 1;
    const group = this.store.defs.find((x) => x.group === d.apiGroup && x.resource === d.resource);
    if (!group) return 1;
    const count = await this.store.storage.count(`${group.storagePrefix}/`);
    return Math.ceil(count / OBJECTS_PER_SEAT);
  }

  /** Runs `handler` once the request holds its seats, or answers 429. */
  async serve(req: IncomingMessage, res: ServerResponse, d: RequestDigest, q: URLSearchParams, handler: () => Promise<void>): Promise<void> {
    const watch = d.verb === 'watch';
    if (!watch && (d.verb === 'proxy' || (d.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(d.subresource)))) return handler();
    const classified = this.fc.classify(d);
    // Set as soon as the request is classified, as the filter's noteFn does: a 429 carries them too.
    res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', classified.level.pl.metadata.uid ?? '');
    res.setHeader('X-Kubernetes-PF-FlowSchema-UID', classified.flowSchema.metadata.uid ?? '');
    // An exempt level never queues nor refuses: no work estimate, no seats to hold.
    if (classified.level.pl.spec.type === 'Exempt') return handler();
    const seats = await this.seats(d);
    const admission = this.fc.startRequest(d, seats, classified);
    const ticket = admission.ticket;
    let run = !!ticket;
    if (ticket) {
      const timer = setTimeout(() => ticket.cancel(), queueWaitLimitMs(d, q));
      const gone = () => ticket.cancel();
      req.once('close', gone);
      run = await ticket.dispatched;
      clearTimeout(timer);
      req.off('close', gone);
    }
    if (!run) {
      if (res.destroyed) return;
      const level = admission.priorityLevel.metadata.name ?? '';
      this.dropped.record(level);
      res.setHeader('Retry-After', String(this.dropped.retryAfter(level)));
      return writeText(res, 429, 'Too many requests, please try again later.\n');
    }
    // The handler of a watch returns once its initial events are out and it is registered: like
    // upstream's watch initialization signal, that is when a watch gives its seat back. Any other
    // request keeps its seats until the client has taken the response, as upstream's blocking writes do.
    try {
      await handler();
      if (!watch) await responseDone(res);
    } finally {
      ticket!.finish();
    }
  }
}

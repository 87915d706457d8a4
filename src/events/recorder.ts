/**
 * Writes Events the way client-go's two recorders do, through the client of
 * the component that reports them. `record` is tools/record (core/v1: source component/host, count,
 * first/lastTimestamp; what kubelet and most kube-controller-manager
 * controllers use). `emit` is tools/events (events.k8s.io/v1: eventTime,
 * reportingController/Instance, action, series; what kube-scheduler uses).
 * Both name an event `<object name>.<hex unix nanoseconds>` and fold a repeat
 * of the same event into the stored one instead of writing a new object, as
 * the upstream correlator does.
 */
import { hostname } from 'node:os';
import type { KObject } from '../apimachinery/object.js';
import { rfc3339, rfc3339Micro } from '../apimachinery/time.js';
import { events } from '../client/resources.js';
import type { Client, ResourceClient, ResourceRef, UserInfo, WriteOptions } from '../client/types.js';

export type EventType = 'Normal' | 'Warning';

/** What an event is about (core/v1 ObjectReference). */
export interface ObjectReference {
  kind: string; apiVersion: string; name: string; namespace?: string; uid?: string;
  resourceVersion?: string; fieldPath?: string;
}

/** An ObjectReference to a stored object, as `ref.GetReference` builds it. */
export function referenceTo(obj: KObject, fieldPath?: string): ObjectReference {
  const ref: ObjectReference = { kind: obj.kind!, apiVersion: obj.apiVersion!, name: obj.metadata.name! };
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace;
  if (obj.metadata.uid) ref.uid = obj.metadata.uid;
  if (obj.metadata.resourceVersion) ref.resourceVersion = obj.metadata.resourceVersion;
  if (fieldPath) ref.fieldPath = fieldPath;
  return ref;
}


let lastNanos = 0n;
/** Unique, increasing nanoseconds for event names, even for two events in one millisecond. */
function unixNanos(d: Date): bigint {
  let n = BigInt(d.getTime()) * 1_000_000n + BigInt(Math.floor(performance.now() * 1000) % 1000) * 1000n;
  if (n <= lastNanos) n = lastNanos + 1n;
  lastNanos = n;
  return n;
}

/**
 * An event written for a correlation key: `done` settles once its last write
 * (the create, then each count update) has, so that repeats apply in order.
 */
interface Seen { name: string; namespace: string; count: number; done: Promise<unknown> }

/** The field manager of event writes, whichever component reports them. */
const EVENT_FIELD_MANAGER = 'event-recorder';

/** The recorder never reads what its writes return. */
const WRITE: WriteOptions = { fieldManager: EVENT_FIELD_MANAGER, sharedResult: true };

export class EventRecorder {
  private readonly events: ResourceClient<KObject>;
  /** Correlation keys of events written in the last ten minutes (upstream's cache is an LRU of 4096). */
  private readonly seen = new Map<string, Seen>();
  private readonly host = hostname();

  constructor(private readonly client: Client, private readonly log: (m: string) => void = () => {}) {
    // Written as JSON with the nil times upstream serializes (null), which kubernetes-types' Event does not allow.
    this.events = client.resource(events as ResourceRef<unknown> as ResourceRef<KObject>);
  }

  /**
   * A recorder of its own for a component acting as `user` (a kubelet as
   * system:node:<name>, a controller as its service account), as each upstream
   * component builds its broadcaster on its own client: its events are
   * created by that identity and correlated apart from the others'.
   */
  as(user: UserInfo): EventRecorder {
    return new EventRecorder(this.client.as(user, EVENT_FIELD_MANAGER), this.log);
  }

  /**
   * tools/record: `component` is the source component ("kubelet",
   * "deployment-controller", ...), `host` the node name for kubelet events.
   * Never throws: a lost event is logged, as upstream drops it after retries.
   */
  record(ref: ObjectReference, type: EventType, reason: string, message: string, component: string, host?: string): Promise<void> {
    const key = ['legacy', component, host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', ref.fieldPath ?? '', type, reason, message].join('\0');
    const now = new Date();
    return this.write(key, ref, now, (name, namespace) => ({
      apiVersion: 'v1', kind: 'Event',
      metadata: { name, namespace },
      involvedObject: ref,
      reason, message, type,
      source: host ? { component, host } : { component },
      firstTimestamp: rfc3339(now), lastTimestamp: rfc3339(now), count: 1,
      eventTime: null, reportingComponent: component, reportingInstance: host ?? '',
    }), (ev, count) => { ev.count = count; ev.lastTimestamp = rfc3339(now); });
  }

  /**
   * tools/events: `controller` is the reporting controller ("default-scheduler"),
   * the instance is `<controller>-<hostname>` as upstream builds it.
   */
  emit(ref: ObjectReference, type: EventType, reason: string, action: string, note: string, controller: string): Promise<void> {
    const instance = `${controller}-${this.host}`;
    const key = ['v1', controller, ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', type, reason, action, note].join('\0');
    const now = new Date();
    return this.write(key, ref, now, (name, namespace) => ({
      apiVersion: 'v1', kind: 'Event',
      metadata: { name, namespace },
      involvedObject: ref,
      reason, message: note, type, action,
      source: {},
      firstTimestamp: null, lastTimestamp: null,
      eventTime: rfc3339Micro(now), reportingComponent: controller, reportingInstance: instance,
    }), (ev, count) => { ev.series = { count, lastObservedTime: rfc3339Micro(now) }; });
  }

  private async write(key: string, ref: ObjectReference, now: Date, build: (name: string, ns: string) => Record<string, any>,
    bump: (ev: Record<string, any>, count: number) => void): Promise<void> {
    const namespace = ref.namespace || 'default';
    try {
      const prior = this.seen.get(key);
      if (prior) {
        prior.count++;
        const count = prior.count;
        // After the event's earlier writes, even a create still in flight: a repeat right behind the first
        // event updates it, as client-go's correlator (one goroutine per sink) does, instead of making another.
        const update = prior.done.then(() => this.events.update(prior.namespace, prior.name, (ev) => { bump(ev, count); return ev; }, WRITE));
        prior.done = update.catch(() => {});
        try {
          await update;
          return;
        } catch { if (this.seen.get(key) === prior) this.seen.delete(key); /* expired or deleted: write a new one */ }
      }
      const name = `${ref.name}.${unixNanos(now).toString(16)}`;
      const create = this.events.create(namespace, build(name, namespace) as KObject, WRITE);
      const seen: Seen = { name, namespace, count: 1, done: create.catch(() => {}) };
      this.remember(key, seen);
      try {
        await create;
      } catch (e) {
        if (this.seen.get(key) === seen) this.seen.delete(key);
        throw e;
      }
    } catch (e) {
      this.log(`event ${ref.kind}/${ref.name}: ${(e as Error).message}`);
    }
  }

  private remember(key: string, s: Seen): void {
    if (this.seen.size >= 4096) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, s);
  }
}

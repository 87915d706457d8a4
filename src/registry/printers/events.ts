/**
 * Events: printEvent. events.k8s.io/v1 Events print through the same core printer, after
 * the field renames upstream's conversion to the internal type makes.
 */
import type { Printer } from '../types.js';
import { column, NAME_DESC } from './columns.js';
import { int, nameOf } from './cells.js';
import { instant, since } from './duration.js';

/** formatEventSource: component (or reporting controller), then ", host" when there is one. */
function source(ev: any): string {
  const component = ev?.source?.component || ev?.reportingController || '';
  const instance = ev?.source?.host || ev?.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

function target(ev: any): string {
  const kind = String(ev?.involvedObject?.kind ?? '').toLowerCase();
  const name = ev?.involvedObject?.name ?? '';
  return name ? `${kind}/${name}` : kind;
}

function cells(ev: any, now: number): unknown[] {
  const first = instant(ev?.firstTimestamp) === -Infinity ? since(ev?.eventTime, now) : since(ev?.firstTimestamp, now);
  let last = instant(ev?.lastTimestamp) === -Infinity ? first : since(ev?.lastTimestamp, now);
  let count = int(ev?.count);
  if (ev?.series) {
    last = since(ev.series.lastObservedTime, now);
    count = int(ev.series.count);
  } else if (count === 0) {
    // Singleton events written through events.k8s.io carry no count.
    count = 1;
  }
  return [
    last, ev?.type ?? '', ev?.reason ?? '', target(ev), ev?.involvedObject?.fieldPath ?? '', source(ev),
    String(ev?.message ?? '').trim(), first, count, nameOf(ev),
  ];
}

export const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.', 1),
    column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    column('Name', 'string', NAME_DESC, 1, 'name'),
  ],
  cells,
};

/** Convert_v1_Event_To_core_Event's renames; a core-shaped event passes through. */
export function eventsV1ToCore(ev: any): any {
  const v1 = typeof ev?.apiVersion === 'string'
    ? ev.apiVersion.startsWith('events.k8s.io/')
    : ev?.involvedObject === undefined && (ev?.regarding !== undefined || ev?.note !== undefined);
  if (!v1) return ev;
  return {
    ...ev,
    involvedObject: ev.regarding ?? {},
    source: ev.deprecatedSource ?? {},
    message: ev.note,
    firstTimestamp: ev.deprecatedFirstTimestamp,
    lastTimestamp: ev.deprecatedLastTimestamp,
    count: ev.deprecatedCount,
  };
}

export const eventsV1Printer: Printer = {
  columns: eventPrinter.columns,
  cells: (ev: any, now: number) => cells(eventsV1ToCore(ev), now),
};

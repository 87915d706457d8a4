/**
 * events.k8s.io/v1 <-> core/v1 Event (pkg/apis/events/v1/conversion.go and
 * the generated conversions through core.Event). Both versions share the
 * core events storage, which holds core/v1. Fields each version never
 * omits come out as Go writes their zero values (null times, empty structs,
 * empty strings).
 */
import type { KObject } from '../../../apimachinery/object.js';

type J = Record<string, any>;

/** Drops undefined members, so omitempty fields stay absent. */
function compact<T extends J>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const orNull = (v: unknown) => (v === undefined ? null : v);
/** omitempty on an int32 or string: the zero value is left out. */
const nonZero = (v: unknown) => (v === 0 || v === '' || v == null ? undefined : v);

/** events.k8s.io/v1 Event -> core/v1 Event (the stored form). */
export function eventsV1ToCore(e: KObject): KObject {
  return compact({
    kind: 'Event',
    apiVersion: 'v1',
    metadata: e.metadata,
    involvedObject: (e.regarding as J | undefined) ?? {},
    reason: nonZero(e.reason),
    message: nonZero(e.note),
    source: (e.deprecatedSource as J | undefined) ?? {},
    firstTimestamp: orNull(e.deprecatedFirstTimestamp),
    lastTimestamp: orNull(e.deprecatedLastTimestamp),
    count: nonZero(e.deprecatedCount),
    type: nonZero(e.type),
    eventTime: orNull(e.eventTime),
    series: e.series ?? undefined,
    action: nonZero(e.action),
    related: e.related ?? undefined,
    reportingComponent: (e.reportingController as string | undefined) ?? '',
    reportingInstance: (e.reportingInstance as string | undefined) ?? '',
  }) as KObject;
}

/** core/v1 Event -> events.k8s.io/v1 Event. */
export function coreToEventsV1(c: KObject): KObject {
  return compact({
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    metadata: c.metadata,
    eventTime: orNull(c.eventTime),
    series: c.series ?? undefined,
    reportingController: nonZero(c.reportingComponent),
    reportingInstance: nonZero(c.reportingInstance),
    action: nonZero(c.action),
    reason: nonZero(c.reason),
    regarding: (c.involvedObject as J | undefined) ?? {},
    related: c.related ?? undefined,
    note: nonZero(c.message),
    type: nonZero(c.type),
    deprecatedSource: (c.source as J | undefined) ?? {},
    deprecatedFirstTimestamp: orNull(c.firstTimestamp),
    deprecatedLastTimestamp: orNull(c.lastTimestamp),
    deprecatedCount: nonZero(c.count),
  }) as KObject;
}

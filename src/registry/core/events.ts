/**
 * core/v1 events. Upstream validates v1 events only with its legacy checks
 * (ValidateEventCreate returns early for core/v1 "for backwards
 * compatibility"): no ObjectMeta validation at all. The one-hour TTL of
 * events is a storage matter and not expressed here.
 */
import type { Event } from 'kubernetes-types/core/v1.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../meta/names.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { goMicroTime, goTime } from '../../openapi/go-time.js';

/** Go writes the Event's struct members and non-omitempty strings even when empty. */
export function defaultEvent(ev: Record<string, any>): void {
  normalizeMeta(ev);
  if (!isObject(ev.involvedObject)) ev.involvedObject = {};
  if (!isObject(ev.source)) ev.source = {};
  ev.firstTimestamp = goTime(ev.firstTimestamp) ?? null;
  ev.lastTimestamp = goTime(ev.lastTimestamp) ?? null;
  ev.eventTime = goMicroTime(ev.eventTime) ?? null;
  if (isObject(ev.series) && ev.series.lastObservedTime != null) ev.series.lastObservedTime = goMicroTime(ev.series.lastObservedTime);
  if (typeof ev.reportingComponent !== 'string') ev.reportingComponent = '';
  if (typeof ev.reportingInstance !== 'string') ev.reportingInstance = '';
  for (const k of ['reason', 'message', 'type', 'action', 'count']) if (ev[k] === '' || ev[k] === 0 || ev[k] === null) delete ev[k];
}

/** legacyValidateEvent for a core/v1 request. */
export function validateLegacyEvent(ev: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const e = ev as Record<string, any>;
  const ns = ev.metadata.namespace ?? '';
  const involvedNs: string = e.involvedObject?.namespace ?? '';
  const mismatch = () => field.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (!e.eventTime) {
    if (!involvedNs) {
      if (ns !== '' && ns !== 'default') errs.push(mismatch());
    } else if (ns !== involvedNs) {
      errs.push(mismatch());
    }
  } else {
    if (!involvedNs && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch());
    const rc: string = e.reportingComponent ?? '';
    if (!rc) errs.push(field.required('reportingComponent'));
    for (const m of isQualifiedName(rc)) errs.push(field.invalid('reportingComponent', rc, m));
    if (rc.length > 128) errs.push(field.invalid('reportingComponent', '', 'can have at most 128 characters'));
    if ((e.action ?? '').length > 128) errs.push(field.invalid('action', '', 'can have at most 128 characters'));
    if (!e.reason) errs.push(field.required('reason'));
    if ((e.reason ?? '').length > 128) errs.push(field.invalid('reason', '', 'can have at most 128 characters'));
    if ((e.message ?? '').length > 1024) errs.push(field.invalid('message', '', 'can have at most 1024 characters'));
  }
  for (const m of isDNS1123Subdomain(ns)) errs.push(field.invalid('namespace', ns, m));
  return errs;
}

export const events: ResourceDef<Event> = {
  group: '',
  version: 'v1',
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  verbs: ALL_VERBS,
  storageVersionHash: 'r2yiGXH7wu8=',
  // Shared with events.k8s.io/v1, which stores the same objects.
  storagePrefix: '/core/events',
  defaults: (obj: KObject) => decoding('Event', () => defaultEvent(obj)),
  validate: validateLegacyEvent,
  validateUpdate: (obj) => validateLegacyEvent(obj),
  fieldSelectors: {
    'involvedObject.kind': (e) => e.involvedObject?.kind ?? '',
    'involvedObject.namespace': (e) => e.involvedObject?.namespace ?? '',
    'involvedObject.name': (e) => e.involvedObject?.name ?? '',
    'involvedObject.uid': (e) => e.involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (e) => e.involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (e) => e.involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (e) => e.involvedObject?.fieldPath ?? '',
    reason: (e) => e.reason ?? '',
    reportingComponent: (e) => e.reportingComponent ?? '',
    // The source component, or the reporting controller for events that have none.
    source: (e) => e.source?.component || e.reportingComponent || '',
    type: (e) => e.type ?? '',
  },
};

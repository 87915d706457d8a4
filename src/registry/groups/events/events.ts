/**
 * events.k8s.io/v1 events: served from the core events storage
 * (pkg/registry/core/event), converted to and from core/v1.
 */
import type { Event } from 'kubernetes-types/events/v1.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import { ALL_VERBS, replaceContents } from '../shared.js';
import { coreToEventsV1, eventsV1ToCore } from './convert.js';

const regarding = (k: string) => (obj: any) => String(obj.regarding?.[k] ?? '');

export const events: ResourceDef<Event> = {
  group: 'events.k8s.io', version: 'v1', resource: 'events', singular: 'event', kind: 'Event',
  namespaced: true, shortNames: ['ev'], verbs: ALL_VERBS,
  storageVersionHash: 'r2yiGXH7wu8=',
  storagePrefix: '/core/events',
  toStorage: eventsV1ToCore,
  fromStorage: coreToEventsV1,
  defaults(obj) {
    // No SetDefaults for events; the round trip gives the zero values Go writes.
    replaceContents(obj, coreToEventsV1(eventsV1ToCore(obj)));
  },
  // AddFieldLabelConversionsForEvent (events.k8s.io/v1) maps these onto the
  // core selectable fields; "source" falls back to the reporting controller.
  fieldSelectors: {
    'reason': (obj) => obj.reason ?? '',
    'regarding.kind': regarding('kind'),
    'regarding.namespace': regarding('namespace'),
    'regarding.name': regarding('name'),
    'regarding.uid': regarding('uid'),
    'regarding.apiVersion': regarding('apiVersion'),
    'regarding.resourceVersion': regarding('resourceVersion'),
    'regarding.fieldPath': regarding('fieldPath'),
    'reportingController': (obj) => obj.reportingController ?? '',
    'source': (obj) => obj.deprecatedSource?.component || obj.reportingController || '',
    'type': (obj) => obj.type ?? '',
  },
  // events.k8s.io writes get the strict event validation, metadata part only here.
  ...metaValidation({ namespaced: true, name: nameIsDNSSubdomain }),
};

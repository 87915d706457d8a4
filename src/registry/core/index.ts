/** The core (legacy, "") group's v1 resources, in discovery order. */
import type { ResourceDef } from '../types.js';
import { bindings } from './bindings.js';
import { componentstatuses } from './componentstatuses.js';
import { configmaps } from './configmaps.js';
import { endpoints } from './endpoints.js';
import { events } from './events.js';
import { limitranges } from './limitranges.js';
import { namespaces } from './namespaces.js';
import { nodes } from './nodes.js';
import { persistentvolumeclaims } from './persistentvolumeclaims.js';
import { persistentvolumes } from './persistentvolumes.js';
import { pods } from './pods.js';
import { podtemplates } from './podtemplates.js';
import { replicationcontrollers } from './replicationcontrollers.js';
import { resourcequotas } from './resourcequotas.js';
import { secrets } from './secrets.js';
import { serviceaccounts } from './serviceaccounts.js';
import { services } from './services.js';

export const coreResources: ResourceDef[] = [
  bindings, componentstatuses, configmaps, endpoints, events, limitranges, namespaces, nodes,
  persistentvolumeclaims, persistentvolumes, pods, podtemplates, replicationcontrollers, resourcequotas,
  secrets, serviceaccounts, services,
];

export {
  bindings, componentstatuses, configmaps, endpoints, events, limitranges, namespaces, nodes,
  persistentvolumeclaims, persistentvolumes, pods, podtemplates, replicationcontrollers, resourcequotas,
  secrets, serviceaccounts, services,
};

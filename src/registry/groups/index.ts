/**
 * The resources of the non-core API groups this server serves, group by
 * group in the order upstream's /apis lists them, the preferred version of
 * a group first and its resources in discovery order.
 */
import type { ResourceDef } from '../types.js';
import { apiservices } from './apiregistration/apiservices.js';
import { controllerrevisions } from './apps/controllerrevisions.js';
import { daemonsets } from './apps/daemonsets.js';
import { deployments } from './apps/deployments.js';
import { replicasets } from './apps/replicasets.js';
import { statefulsets } from './apps/statefulsets.js';
import { horizontalpodautoscalersV1, horizontalpodautoscalersV2 } from './autoscaling/horizontalpodautoscalers.js';
import { certificatesigningrequests } from './certificates/certificatesigningrequests.js';
import { cronjobs } from './batch/cronjobs.js';
import { jobs } from './batch/jobs.js';
import { leases } from './coordination/leases.js';
import { endpointslices } from './discovery/endpointslices.js';
import { events } from './events/events.js';
import { ingressclasses } from './networking/ingressclasses.js';
import { ingresses } from './networking/ingresses.js';
import { networkpolicies } from './networking/networkpolicies.js';
import { runtimeclasses } from './node/runtimeclasses.js';
import { storageclasses } from './storage/storageclasses.js';
import { poddisruptionbudgets } from './policy/poddisruptionbudgets.js';
import { priorityclasses } from './scheduling/priorityclasses.js';
import { validatingadmissionpolicies } from './admissionregistration/validatingadmissionpolicies.js';
import { validatingadmissionpolicybindings } from './admissionregistration/validatingadmissionpolicybindings.js';
import { flowschemas } from './flowcontrol/flowschemas.js';
import { prioritylevelconfigurations } from './flowcontrol/prioritylevelconfigurations.js';
import { mutatingwebhookconfigurations } from './admissionregistration/mutatingwebhookconfigurations.js';
import { validatingwebhookconfigurations } from './admissionregistration/validatingwebhookconfigurations.js';

export { systemPriorityClasses, SYSTEM_PRIORITY_CLASS_DELETE_MESSAGE } from './scheduling/priorityclasses.js';

export const groupResources: ResourceDef[] = [
  // apiregistration.k8s.io/v1
  apiservices,
  // apps/v1
  controllerrevisions, daemonsets, deployments, replicasets, statefulsets,
  // events.k8s.io/v1
  events,
  // autoscaling/v2, then v1
  horizontalpodautoscalersV2,
  horizontalpodautoscalersV1,
  // batch/v1
  cronjobs, jobs,
  // certificates.k8s.io/v1
  certificatesigningrequests,
  // networking.k8s.io/v1
  ingressclasses, ingresses, networkpolicies,
  // policy/v1
  poddisruptionbudgets,
  // storage.k8s.io/v1
  storageclasses,
  // admissionregistration.k8s.io/v1
  mutatingwebhookconfigurations, validatingadmissionpolicies, validatingadmissionpolicybindings, validatingwebhookconfigurations,
  // scheduling.k8s.io/v1
  priorityclasses,
  // coordination.k8s.io/v1
  leases,
  // node.k8s.io/v1
  runtimeclasses,
  // discovery.k8s.io/v1
  endpointslices,
  // flowcontrol.apiserver.k8s.io/v1
  flowschemas, prioritylevelconfigurations,
];

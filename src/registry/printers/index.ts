/**
 * Upstream's Table printers (pkg/printers/internalversion/printers.go, v1.32), keyed by
 * "<group>/<resource>" with "" for the core group. Resources not listed get defaultPrinter.
 */
import type { Printer } from '../types.js';
import { certificateSigningRequestPrinter } from './certificatesigningrequests.js';
import { configMapPrinter } from './configmaps.js';
import { controllerRevisionPrinter } from './controllerrevisions.js';
import { cronJobPrinter } from './cronjobs.js';
import { daemonSetPrinter } from './daemonsets.js';
import { defaultPrinter } from './default.js';
import { deploymentPrinter } from './deployments.js';
import { endpointsPrinter } from './endpoints.js';
import { endpointSlicePrinter } from './endpointslices.js';
import { eventPrinter, eventsV1Printer } from './events.js';
import { hpaPrinter } from './hpa.js';
import { jobPrinter } from './jobs.js';
import { leasePrinter } from './leases.js';
import { namespacePrinter } from './namespaces.js';
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from './networking.js';
import { nodePrinter } from './nodes.js';
import { persistentVolumeClaimPrinter } from './persistentvolumeclaims.js';
import { persistentVolumePrinter } from './persistentvolumes.js';
import { podDisruptionBudgetPrinter } from './poddisruptionbudgets.js';
import { podPrinter } from './pods.js';
import { podTemplatePrinter } from './podtemplates.js';
import { priorityClassPrinter } from './priorityclasses.js';
import { roleBindingPrinter, rolePrinter } from './rbac.js';
import { flowSchemaPrinter, priorityLevelConfigurationPrinter } from './flowcontrol.js';
import { replicaSetPrinter } from './replicasets.js';
import { replicationControllerPrinter } from './replicationcontrollers.js';
import { resourceQuotaPrinter } from './resourcequotas.js';
import { runtimeClassPrinter } from './runtimeclasses.js';
import { webhookConfigurationPrinter } from './webhookconfigurations.js';
import { apiServicePrinter } from './apiservices.js';
import { storageClassPrinter } from './storageclasses.js';
import { secretPrinter } from './secrets.js';
import { serviceAccountPrinter } from './serviceaccounts.js';
import { servicePrinter } from './services.js';
import { statefulSetPrinter } from './statefulsets.js';
import { validatingAdmissionPolicyBindingPrinter, validatingAdmissionPolicyPrinter } from './validatingadmissionpolicies.js';

export { defaultPrinter } from './default.js';

export const printers: Record<string, Printer> = {
  '/pods': podPrinter,
  '/podtemplates': podTemplatePrinter,
  '/replicationcontrollers': replicationControllerPrinter,
  '/services': servicePrinter,
  '/endpoints': endpointsPrinter,
  '/nodes': nodePrinter,
  '/namespaces': namespacePrinter,
  '/events': eventPrinter,
  '/secrets': secretPrinter,
  '/configmaps': configMapPrinter,
  '/serviceaccounts': serviceAccountPrinter,
  '/resourcequotas': resourceQuotaPrinter,
  // Upstream's LimitRange storage uses the default table, not a printer.
  '/limitranges': defaultPrinter,
  '/persistentvolumes': persistentVolumePrinter,
  '/persistentvolumeclaims': persistentVolumeClaimPrinter,
  'apps/replicasets': replicaSetPrinter,
  'apps/deployments': deploymentPrinter,
  'apps/statefulsets': statefulSetPrinter,
  'apps/daemonsets': daemonSetPrinter,
  'apps/controllerrevisions': controllerRevisionPrinter,
  'batch/jobs': jobPrinter,
  'batch/cronjobs': cronJobPrinter,
  'discovery.k8s.io/endpointslices': endpointSlicePrinter,
  'events.k8s.io/events': eventsV1Printer,
  // One printer for autoscaling/v1 and v2: upstream prints both from the internal type.
  'autoscaling/horizontalpodautoscalers': hpaPrinter,
  'networking.k8s.io/networkpolicies': networkPolicyPrinter,
  'networking.k8s.io/ingresses': ingressPrinter,
  'networking.k8s.io/ingressclasses': ingressClassPrinter,
  'policy/poddisruptionbudgets': podDisruptionBudgetPrinter,
  'node.k8s.io/runtimeclasses': runtimeClassPrinter,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/validatingadmissionpolicies': validatingAdmissionPolicyPrinter,
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': validatingAdmissionPolicyBindingPrinter,
  'apiregistration.k8s.io/apiservices': apiServicePrinter,
  'storage.k8s.io/storageclasses': storageClassPrinter,
  'scheduling.k8s.io/priorityclasses': priorityClassPrinter,
  'flowcontrol.apiserver.k8s.io/flowschemas': flowSchemaPrinter,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': priorityLevelConfigurationPrinter,
  'coordination.k8s.io/leases': leasePrinter,
  'certificates.k8s.io/certificatesigningrequests': certificateSigningRequestPrinter,
  'rbac.authorization.k8s.io/roles': rolePrinter,
  'rbac.authorization.k8s.io/clusterroles': rolePrinter,
  'rbac.authorization.k8s.io/rolebindings': roleBindingPrinter,
  'rbac.authorization.k8s.io/clusterrolebindings': roleBindingPrinter,
};

/** The printer for a resource, or the default table's. */
export function printerFor(group: string, resource: string): Printer {
  return printers[`${group}/${resource}`] ?? defaultPrinter;
}

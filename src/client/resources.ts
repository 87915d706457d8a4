/**
 * The resources components name, as typed references: what a client's
 * `resource(ref)` and an informer factory's `forResource(ref)` take.
 * Sorted by group, then resource.
 */
import type { MutatingWebhookConfiguration, ValidatingAdmissionPolicy, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { LocalSubjectAccessReview, SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ConfigMap, Endpoints, Event, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, ReplicationController, ResourceQuota, Secret, Service, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { APIService } from '../apimachinery/apiservice.js';
import type { ResourceRef } from './types.js';

export const configmaps: ResourceRef<ConfigMap> = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
export const endpoints: ResourceRef<Endpoints> = { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true };
export const events: ResourceRef<Event> = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };
export const namespaces: ResourceRef<Namespace> = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };
export const nodes: ResourceRef<Node> = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
export const persistentvolumeclaims: ResourceRef<PersistentVolumeClaim> = { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true };
export const persistentvolumes: ResourceRef<PersistentVolume> = { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false };
export const pods: ResourceRef<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const replicationcontrollers: ResourceRef<ReplicationController> = { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true };
export const resourcequotas: ResourceRef<ResourceQuota> = { group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', namespaced: true };
export const secrets: ResourceRef<Secret> = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
export const serviceaccounts: ResourceRef<ServiceAccount> = { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true };
export const services: ResourceRef<Service> = { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true };

export const controllerrevisions: ResourceRef<ControllerRevision> = { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true };
export const daemonsets: ResourceRef<DaemonSet> = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };
export const deployments: ResourceRef<Deployment> = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
export const replicasets: ResourceRef<ReplicaSet> = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };
export const statefulsets: ResourceRef<StatefulSet> = { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true };

export const mutatingwebhookconfigurations: ResourceRef<MutatingWebhookConfiguration> = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false };
export const validatingadmissionpolicies: ResourceRef<ValidatingAdmissionPolicy> = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false };
export const validatingwebhookconfigurations: ResourceRef<ValidatingWebhookConfiguration> = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false };

export const customresourcedefinitions: ResourceRef<CustomResourceDefinition> = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };

export const apiservices: ResourceRef<APIService> = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false };

export const subjectaccessreviews: ResourceRef<SubjectAccessReview> = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
export const localsubjectaccessreviews: ResourceRef<LocalSubjectAccessReview> = { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true };
export const cronjobs: ResourceRef<CronJob> = { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true };
export const jobs: ResourceRef<Job> = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true };

export const certificatesigningrequests: ResourceRef<CertificateSigningRequest> = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
export const leases: ResourceRef<Lease> = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };

export const endpointslices: ResourceRef<EndpointSlice> = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true };

export const flowschemas: ResourceRef<FlowSchema> = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', kind: 'FlowSchema', namespaced: false };
export const prioritylevelconfigurations: ResourceRef<PriorityLevelConfiguration> = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', namespaced: false };

export const networkpolicies: ResourceRef<NetworkPolicy> = { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true };

export const runtimeclasses: ResourceRef<RuntimeClass> = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false };

export const poddisruptionbudgets: ResourceRef<PodDisruptionBudget> = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true };

export const clusterrolebindings: ResourceRef<ClusterRoleBinding> = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false };
export const clusterroles: ResourceRef<ClusterRole> = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false };
export const rolebindings: ResourceRef<RoleBinding> = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true };
export const roles: ResourceRef<Role> = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true };

export const storageclasses: ResourceRef<StorageClass> = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false };
export const horizontalpodautoscalers: ResourceRef<HorizontalPodAutoscaler> = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true };
/** metrics-server's PodMetrics (metrics.k8s.io/v1beta1), served through the aggregator. */
export const podmetrics: ResourceRef = { group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', kind: 'PodMetrics', namespaced: true };

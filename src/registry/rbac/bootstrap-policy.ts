/**
 * The RBAC bootstrap policy kube-apiserver v1.32 creates and reconciles at
 * start (plugin/pkg/auth/authorizer/rbac/bootstrappolicy: policy.go
 * ClusterRoles() and ClusterRoleBindings(), controller_policy.go,
 * namespace_policy.go), as the package's golden files (testdata/*.yaml)
 * render it with the default feature gates: the roles of features that are
 * off by default in v1.32 (DRA, MultiCIDRServiceAllocator,
 * VolumeAttributesClass, SELinuxChangePolicy, CoordinatedLeaderElection,
 * ClusterTrustBundle) are not here.
 * Every object carries `rbac.authorization.kubernetes.io/autoupdate: "true"`
 * and `kubernetes.io/bootstrapping: rbac-defaults`, as addDefaultMetadata
 * gives them. Rules keep upstream's order; objects are in the golden files'
 * (name) order.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';

const GROUP = 'rbac.authorization.k8s.io';
const API_VERSION = 'rbac.authorization.k8s.io/v1';

export const AUTO_UPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
const AGGREGATE_TO = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const READ = ['get', 'list', 'watch'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const EVENTS_WRITE = ['create', 'patch', 'update'];

/** A resource rule, its fields in PolicyRule's order. */
function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return { verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) };
}

/** A non-resource URL rule. */
function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

function metadata(name: string, labels: Record<string, string> = {}, namespace?: string): ClusterRole['metadata'] {
  return {
    name, ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels },
    annotations: { [AUTO_UPDATE]: 'true' },
  };
}

interface RoleOptions {
  /** Extra labels (the aggregate-to-* label of the roles admin, edit and view gather). */
  labels?: Record<string, string>;
  /** The aggregate-to-<name> label an aggregated role selects. */
  aggregates?: string;
}

function clusterRole(name: string, rules: PolicyRule[] | null, o: RoleOptions = {}): ClusterRole {
  return {
    kind: 'ClusterRole', apiVersion: API_VERSION, metadata: metadata(name, o.labels), rules: rules as PolicyRule[],
    ...(o.aggregates ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(o.aggregates)]: 'true' } }] } } : {}),
  };
}

const user = (name: string): Subject => ({ kind: 'User', apiGroup: GROUP, name });
const group = (name: string): Subject => ({ kind: 'Group', apiGroup: GROUP, name });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterRoleBinding(role: string, subjects: Subject[], name = role): ClusterRoleBinding {
  return {
    kind: 'ClusterRoleBinding', apiVersion: API_VERSION, metadata: metadata(name),
    ...(subjects.length ? { subjects } : {}),
    roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role },
  };
}

const aggregatesTo = (role: string) => ({ [AGGREGATE_TO(role)]: 'true' });

/**
 * NodeRules: what every kubelet may do, the system:node role's rules and the
 * Node authorizer's static rules.
 */
export function nodeRules(): PolicyRule[] {
  return [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
    rule(READ, [''], ['services']),
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['patch', 'update'], [''], ['nodes/status']),
    rule(['patch', 'update'], [''], ['nodes']),
    rule(EVENTS_WRITE, [''], ['events']),
    rule(READ, [''], ['pods']),
    rule(['create', 'delete'], [''], ['pods']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    rule(READ, [''], ['configmaps', 'secrets']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [''], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
    rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
    rule(READ, ['storage.k8s.io'], ['csidrivers']),
    rule(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
    rule(READ, ['node.k8s.io'], ['runtimeclasses']),
  ];
}

/** policy.go ClusterRoles(), default feature gates. */
function policyClusterRoles(): ClusterRole[] {
  return [
    clusterRole('admin', null, { aggregates: 'admin' }),
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('edit', null, { aggregates: 'edit', labels: aggregatesTo('admin') }),
    clusterRole('system:aggregate-to-admin', [
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      rule(READ_WRITE, [GROUP], ['rolebindings', 'roles']),
    ], { labels: aggregatesTo('admin') }),
    clusterRole('system:aggregate-to-edit', [
      rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale',
        'secrets', 'serviceaccounts', 'services', 'services/proxy']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale',
        'statefulsets', 'statefulsets/scale']),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
      rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies',
        'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
    ], { labels: aggregatesTo('edit') }),
    clusterRole('system:aggregate-to-view', [
      rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers',
        'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
      rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status',
        'resourcequotas', 'resourcequotas/status']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status',
        'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
      rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses',
        'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
    ], { labels: aggregatesTo('view') }),
    clusterRole('system:auth-delegator', [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ]),
    clusterRole('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
      rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient']),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
      rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient']),
    ]),
    ...['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map((signer) =>
      clusterRole(`system:certificates.k8s.io:${signer}-approver`, [
        rule(['approve'], ['certificates.k8s.io'], ['signers'], [`kubernetes.io/${signer}`]),
      ])),
    clusterRole('system:discovery', [
      urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
    ]),
    clusterRole('system:heapster', [
      rule(READ, [''], ['events', 'namespaces', 'nodes', 'pods']),
      rule(READ, ['extensions'], ['deployments']),
    ]),
    clusterRole('system:kube-aggregator', [rule(READ, [''], ['endpoints', 'services'])]),
    clusterRole('system:kube-controller-manager', [
      rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      rule(['create'], [''], ['secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [''], ['secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [''], ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], [''], ['endpoints', 'services'])]),
    clusterRole('system:kube-scheduler', [
      rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
      rule(READ, [''], ['nodes']),
      rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
      rule(['create'], [''], ['bindings', 'pods/binding']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(READ, [''], ['replicationcontrollers', 'services']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(READ, ['storage.k8s.io'], ['csinodes']),
      // v1.32: the CSILimits plugin counts VolumeAttachments (kubernetes/kubernetes#127757).
      rule(READ, ['storage.k8s.io'], ['volumeattachments']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['storage.k8s.io'], ['csidrivers']),
      rule(READ, ['storage.k8s.io'], ['csistoragecapacities']),
    ]),
    clusterRole('system:kubelet-api-admin', [
      rule(READ, [''], ['nodes']),
      rule(['proxy'], [''], ['nodes']),
      rule(['*'], [''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats']),
    ]),
    clusterRole('system:monitoring', [
      urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*']),
    ]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-bootstrapper', [
      rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    ]),
    clusterRole('system:node-problem-detector', [
      rule(['get'], [''], ['nodes']),
      rule(['patch'], [''], ['nodes/status']),
      rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
    ]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [''], ['endpoints', 'services']),
      rule(READ, [''], ['nodes']),
      rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['persistentvolumes']),
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['watch'], [''], ['events']),
      rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    clusterRole('system:service-account-issuer-discovery', [
      urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/']),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
    ]),
    clusterRole('view', null, { aggregates: 'view', labels: aggregatesTo('edit') }),
  ];
}

/** policy.go ClusterRoleBindings(). */
function policyClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterRoleBinding('system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    clusterRoleBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    // Kept without subjects: the Node authorizer and the NodeRestriction plugin grant the kubelets' access.
    clusterRoleBinding('system:node', []),
    clusterRoleBinding('system:node-proxier', [user('system:kube-proxy')]),
    clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterRoleBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
  ];
}

/** controller_policy.go: one role per kube-controller-manager controller, bound to its service account. */
const CONTROLLER_PREFIX = 'system:controller:';

function controllerRole(name: string, rules: PolicyRule[]): ClusterRole {
  return clusterRole(CONTROLLER_PREFIX + name, rules);
}

/** eventsRule(): every controller records events through either API. */
const events = rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']);

/** controller_policy.go buildControllerRoles(), default feature gates. */
function controllerRoles(): ClusterRole[] {
  return [
    controllerRole('attachdetach-controller', [
      rule(['list', 'watch'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(READ, [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['list', 'watch'], [''], ['pods']),
      events,
      rule(['create', 'delete', 'get', 'list', 'watch'], ['storage.k8s.io'], ['volumeattachments']),
      rule(READ, ['storage.k8s.io'], ['csidrivers']),
      rule(READ, ['storage.k8s.io'], ['csinodes']),
    ]),
    controllerRole('certificate-controller', [
      rule(['delete', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
      rule(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet',
        'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      events,
    ]),
    controllerRole('clusterrole-aggregation-controller', [
      rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], [GROUP], ['clusterroles']),
    ]),
    controllerRole('cronjob-controller', [
      rule(['get', 'list', 'update', 'watch'], ['batch'], ['cronjobs']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['cronjobs/status']),
      rule(['update'], ['batch'], ['cronjobs/finalizers']),
      rule(['delete', 'list', 'watch'], [''], ['pods']),
      events,
    ]),
    controllerRole('daemon-set-controller', [
      rule(READ, ['apps', 'extensions'], ['daemonsets']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/status']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps'], ['controllerrevisions']),
      events,
    ]),
    controllerRole('deployment-controller', [
      rule(['get', 'list', 'update', 'watch'], ['apps', 'extensions'], ['deployments']),
      rule(['update'], ['apps', 'extensions'], ['deployments/status']),
      rule(['update'], ['apps', 'extensions'], ['deployments/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps', 'extensions'], ['replicasets']),
      rule(['get', 'list', 'update', 'watch'], [''], ['pods']),
      events,
    ]),
    controllerRole('disruption-controller', [
      rule(READ, ['apps', 'extensions'], ['deployments']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, [''], ['replicationcontrollers']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
      events,
    ]),
    controllerRole('endpoint-controller', [
      rule(READ, [''], ['pods', 'services']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['endpoints']),
      rule(['create'], [''], ['endpoints/restricted']),
      events,
    ]),
    controllerRole('endpointslice-controller', [
      rule(READ, [''], ['nodes', 'pods', 'services']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
      events,
    ]),
    controllerRole('endpointslicemirroring-controller', [
      rule(READ, [''], ['endpoints', 'services']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['update'], [''], ['endpoints/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
      events,
    ]),
    controllerRole('ephemeral-volume-controller', [
      rule(READ, [''], ['pods']),
      rule(['update'], [''], ['pods/finalizers']),
      rule(['create', 'get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
      events,
    ]),
    controllerRole('expand-controller', [
      rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(['patch', 'update'], [''], ['persistentvolumeclaims/status']),
      rule(READ, [''], ['persistentvolumeclaims']),
      events,
    ]),
    controllerRole('generic-garbage-collector', [
      rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], ['*'], ['*']),
      events,
    ]),
    controllerRole('horizontal-pod-autoscaler', [
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list', 'watch'], [''], ['pods']),
      rule(['list', 'watch'], ['metrics.k8s.io'], ['pods']),
      rule(READ, ['custom.metrics.k8s.io'], ['*']),
      rule(READ, ['external.metrics.k8s.io'], ['*']),
      events,
    ]),
    controllerRole('job-controller', [
      rule(['get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['jobs/status']),
      rule(['update'], ['batch'], ['jobs/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      events,
    ]),
    controllerRole('legacy-service-account-token-cleaner', [
      rule(['get'], [''], ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']),
      rule(['delete', 'patch'], [''], ['secrets']),
    ]),
    controllerRole('namespace-controller', [
      rule(['delete', 'get', 'list', 'watch'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['delete', 'deletecollection', 'get', 'list', 'watch'], ['*'], ['*']),
    ]),
    controllerRole('node-controller', [
      rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
      events,
    ]),
    controllerRole('persistent-volume-binder', [
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['pods']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['list', 'watch'], [''], ['nodes']),
      events,
      rule(['watch'], [''], ['events']),
    ]),
    controllerRole('pod-garbage-collector', [
      rule(['delete', 'list', 'watch'], [''], ['pods']),
      rule(READ, [''], ['nodes']),
      rule(['patch'], [''], ['pods/status']),
    ]),
    controllerRole('pv-protection-controller', [
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumes']),
      events,
    ]),
    controllerRole('pvc-protection-controller', [
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(READ, [''], ['pods']),
      events,
    ]),
    controllerRole('replicaset-controller', [
      rule(['get', 'list', 'update', 'watch'], ['apps', 'extensions'], ['replicasets']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/status']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      events,
    ]),
    controllerRole('replication-controller', [
      rule(['get', 'list', 'update', 'watch'], [''], ['replicationcontrollers']),
      rule(['update'], [''], ['replicationcontrollers/status']),
      rule(['update'], [''], ['replicationcontrollers/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      events,
    ]),
    controllerRole('resourcequota-controller', [
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['update'], [''], ['resourcequotas/status']),
      events,
    ]),
    controllerRole('root-ca-cert-publisher', [
      rule(['create', 'update'], [''], ['configmaps']),
      events,
    ]),
    controllerRole('route-controller', [
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['patch'], [''], ['nodes/status']),
      events,
    ]),
    controllerRole('service-account-controller', [
      rule(['create'], [''], ['serviceaccounts']),
      events,
    ]),
    controllerRole('service-controller', [
      rule(READ, [''], ['services']),
      rule(['patch', 'update'], [''], ['services/status']),
      rule(['list', 'watch'], [''], ['nodes']),
      events,
    ]),
    controllerRole('statefulset-controller', [
      rule(['list', 'watch'], [''], ['pods']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status']),
      rule(['update'], ['apps'], ['statefulsets/finalizers']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [''], ['pods']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps'], ['controllerrevisions']),
      rule(['create', 'get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['delete', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['pods/finalizers']),
      events,
    ]),
    controllerRole('ttl-after-finished-controller', [
      rule(['delete', 'get', 'list', 'watch'], ['batch'], ['jobs']),
      events,
    ]),
    controllerRole('ttl-controller', [
      rule(['list', 'patch', 'update', 'watch'], [''], ['nodes']),
      events,
    ]),
    controllerRole('validatingadmissionpolicy-status-controller', [
      rule(READ, ['admissionregistration.k8s.io'], ['validatingadmissionpolicies']),
      rule(['get', 'patch', 'update'], ['admissionregistration.k8s.io'], ['validatingadmissionpolicies/status']),
      events,
    ]),
  ];
}

/** controller_policy.go addControllerRole: each role is bound to kube-system/<controller>, its service account. */
function controllerRoleBindings(): ClusterRoleBinding[] {
  return controllerRoles().map((r) => {
    const name = r.metadata!.name!;
    return clusterRoleBinding(name, [serviceAccount('kube-system', name.slice(CONTROLLER_PREFIX.length))]);
  });
}

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { kind: 'Role', apiVersion: API_VERSION, metadata: metadata(name, {}, namespace), rules };
}

function roleBinding(namespace: string, roleName: string, subjects: Subject[], name = roleName): RoleBinding {
  return {
    kind: 'RoleBinding', apiVersion: API_VERSION, metadata: metadata(name, {}, namespace), subjects,
    roleRef: { apiGroup: GROUP, kind: 'Role', name: roleName },
  };
}

/** namespace_policy.go NamespaceRoles(), by namespace. */
function namespaceRoles(): Record<string, Role[]> {
  return {
    'kube-public': [
      role('kube-public', 'system:controller:bootstrap-signer', [
        rule(READ, [''], ['configmaps']),
        rule(['update'], [''], ['configmaps'], ['cluster-info']),
        rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      ]),
    ],
    'kube-system': [
      role('kube-system', 'extension-apiserver-authentication-reader', [
        rule(['get', 'list', 'watch'], [''], ['configmaps'], ['extension-apiserver-authentication']),
      ]),
      role('kube-system', 'system::leader-locking-kube-controller-manager', [
        rule(['watch'], [''], ['configmaps']),
        rule(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager']),
      ]),
      role('kube-system', 'system::leader-locking-kube-scheduler', [
        rule(['watch'], [''], ['configmaps']),
        rule(['get', 'update'], [''], ['configmaps'], ['kube-scheduler']),
      ]),
      role('kube-system', 'system:controller:bootstrap-signer', [rule(READ, [''], ['secrets'])]),
      role('kube-system', 'system:controller:cloud-provider', [rule(['create', 'get', 'list', 'watch'], [''], ['configmaps'])]),
      role('kube-system', 'system:controller:token-cleaner', [
        rule(['delete', 'get', 'list', 'watch'], [''], ['secrets']),
        rule(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      ]),
    ],
  };
}

/** namespace_policy.go NamespaceRoleBindings(), by namespace. */
function namespaceRoleBindings(): Record<string, RoleBinding[]> {
  return {
    'kube-public': [
      roleBinding('kube-public', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
    ],
    'kube-system': [
      roleBinding('kube-system', 'extension-apiserver-authentication-reader',
        [user('system:kube-controller-manager'), user('system:kube-scheduler')], 'system::extension-apiserver-authentication-reader'),
      roleBinding('kube-system', 'system::leader-locking-kube-controller-manager',
        [user('system:kube-controller-manager'), serviceAccount('kube-system', 'kube-controller-manager')]),
      roleBinding('kube-system', 'system::leader-locking-kube-scheduler',
        [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
      roleBinding('kube-system', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
      roleBinding('kube-system', 'system:controller:cloud-provider', [serviceAccount('kube-system', 'cloud-provider')]),
      roleBinding('kube-system', 'system:controller:token-cleaner', [serviceAccount('kube-system', 'token-cleaner')]),
    ],
  };
}

export interface BootstrapPolicy {
  clusterRoles: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
  roles: Record<string, Role[]>;
  roleBindings: Record<string, RoleBinding[]>;
}

/** The whole policy, fresh objects each call (the caller may change them). */
export function bootstrapPolicy(): BootstrapPolicy {
  return {
    clusterRoles: [...policyClusterRoles(), ...controllerRoles()],
    clusterRoleBindings: [...policyClusterRoleBindings(), ...controllerRoleBindings()],
    roles: namespaceRoles(),
    roleBindings: namespaceRoleBindings(),
  };
}

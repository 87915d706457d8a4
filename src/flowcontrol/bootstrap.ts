/**
 * The configuration objects kube-apiserver keeps in the cluster
 * (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go of v1.32): the
 * mandatory and the suggested priority levels and flow schemas, as defaulted.
 */
import type { FlowSchema, PolicyRulesWithSubjects, PriorityLevelConfiguration, ResourcePolicyRule, Subject } from './types.js';

/** flowcontrol.AutoUpdateAnnotationKey: the apiserver keeps objects carrying it "true" at their bootstrap spec. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

const meta = (name: string) => ({ name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } });

function limited(name: string, shares: number, lendablePercent: number,
  queuing?: { queues: number; handSize: number; queueLengthLimit: number }): PriorityLevelConfiguration {
  return {
    metadata: meta(name),
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: shares,
        limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' },
        lendablePercent,
      },
    },
  };
}

export const PL_EXEMPT: PriorityLevelConfiguration = {
  metadata: meta('exempt'),
  spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
};
export const PL_CATCH_ALL = limited('catch-all', 5, 0);

export const MANDATORY_PRIORITY_LEVELS = [PL_CATCH_ALL, PL_EXEMPT];
export const SUGGESTED_PRIORITY_LEVELS = [
  limited('system', 30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
  limited('node-high', 40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
  limited('leader-election', 10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
  limited('workload-high', 40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  limited('workload-low', 100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  limited('global-default', 20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
];

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): ResourcePolicyRule {
  return clusterScope
    ? { verbs, apiGroups, resources, clusterScope, namespaces: ['*'] }
    : { verbs, apiGroups, resources, namespaces: ['*'] };
}
const everything = resourceRule(['*'], ['*'], ['*'], true);
const everyNonResource = { verbs: ['*'], nonResourceURLs: ['*'] };

function flowSchema(name: string, pl: string, matchingPrecedence: number, distinguisher: '' | 'ByUser' | 'ByNamespace',
  rule: PolicyRulesWithSubjects): FlowSchema {
  return {
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: pl },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  };
}

const all = (subjects: Subject[]): PolicyRulesWithSubjects =>
  ({ subjects, resourceRules: [everything], nonResourceRules: [everyNonResource] });

export const FS_EXEMPT = flowSchema('exempt', 'exempt', 1, '', all(groups('system:masters')));
export const FS_CATCH_ALL = flowSchema('catch-all', 'catch-all', 10000, 'ByUser', all(groups('system:unauthenticated', 'system:authenticated')));

export const MANDATORY_FLOW_SCHEMAS = [FS_EXEMPT, FS_CATCH_ALL];
export const SUGGESTED_FLOW_SCHEMAS = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', all(groups('system:nodes'))),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [
      resourceRule(['*'], [''], ['nodes', 'nodes/status'], true),
      resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false),
    ],
  }),
  flowSchema('probes', 'exempt', 2, '', {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')],
    resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [
      resourceRule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], false),
      resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false),
    ],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', all(users('system:kube-controller-manager'))),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', all(users('system:kube-scheduler'))),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', all(kubeSystemServiceAccounts('*'))),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', all(groups('system:serviceaccounts'))),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', all(groups('system:unauthenticated', 'system:authenticated'))),
];

/** Malformed FlowSchemas and PriorityLevelConfigurations: upstream's validation answers, and nothing stored. */
import { after, before, test } from 'node:test';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const PL = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const anyone = [{ kind: 'Group', group: { name: 'system:authenticated' } }];
const everything = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] };

function flowSchema(name: string, spec: Record<string, unknown>, message: string): MalformedCase {
  return {
    name: `FlowSchema ${name}: ${message}`, method: 'POST', path: FS, status: 422, reason: 'Invalid',
    body: JSON.stringify({ metadata: { name }, spec: { priorityLevelConfiguration: { name: 'global-default' }, ...spec } }),
    message: `FlowSchema.flowcontrol.apiserver.k8s.io "${name}" is invalid: ${message}`, absent: `${FS}/${name}`,
  };
}

function priorityLevel(name: string, spec: Record<string, unknown>, message: string): MalformedCase {
  return {
    name: `PriorityLevelConfiguration ${name}: ${message}`, method: 'POST', path: PL, status: 422, reason: 'Invalid',
    body: JSON.stringify({ metadata: { name }, spec }),
    message: `PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "${name}" is invalid: ${message}`, absent: `${PL}/${name}`,
  };
}

const queue = (queuing: Record<string, unknown>) => ({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing } } });

const cases: MalformedCase[] = [
  flowSchema('too-late', { matchingPrecedence: 20000, rules: [{ subjects: anyone, ...everything }] },
    'spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000'),
  flowSchema('no-level', { priorityLevelConfiguration: { name: '' }, rules: [{ subjects: anyone, ...everything }] },
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level'),
  flowSchema('empty-rule', { rules: [{}] },
    '[spec.rules[0].subjects: Required value: subjects must contain at least one value, spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty]'),
  flowSchema('robot', { rules: [{ subjects: [{ kind: 'Robot' }], ...everything }] },
    'spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"'),
  flowSchema('no-sa-namespace', { rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'x' } }], ...everything }] },
    'spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account'),
  flowSchema('relative-url', { rules: [{ subjects: anyone, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['metrics'] }] }] },
    'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "metrics": must start with slash'),
  flowSchema('star-and-get', { rules: [{ subjects: anyone, resourceRules: [{ verbs: ['*', 'get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }] },
    'spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if \'*\' is present, must not specify other verbs'),
  flowSchema('no-namespaces', { rules: [{ subjects: anyone, resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }] },
    'spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace'),
  priorityLevel('limitless', { type: 'Limited' }, 'spec.limited: Required value: must not be empty when type is Limited'),
  priorityLevel('fake-exempt', { type: 'Exempt', exempt: {} }, 'spec.type: Invalid value: "Exempt": type must be \'Exempt\' if and only if name is \'exempt\''),
  priorityLevel('reject-with-queues', { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 1 } } } },
    'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited'),
  priorityLevel('big-hand', queue({ handSize: 100 }), 'spec.limited.limitResponse.queuing.handSize: Invalid value: 100: should not be greater than queues (64)'),
  priorityLevel('negative-queue', queue({ queueLengthLimit: -1 }), 'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive'),
  priorityLevel('negative-shares', { type: 'Limited', limited: { nominalConcurrencyShares: -1, limitResponse: { type: 'Reject' } } },
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer'),
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));

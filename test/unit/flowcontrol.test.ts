/** API Priority and Fairness core: classification, shuffle sharding, seats and queues, Retry-After. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowControl, danglingCondition } from '../../src/flowcontrol/controller.js';
import { flowDistinguisher, hashFlowID, selectFlowSchema } from '../../src/flowcontrol/classify.js';
import { dealHand, requiredEntropyBits } from '../../src/apimachinery/shuffle-sharding.js';
import { QueueSet } from '../../src/flowcontrol/queue-set.js';
import { DroppedRequestsTracker } from '../../src/flowcontrol/dropped-requests.js';
import {
  FS_CATCH_ALL, FS_EXEMPT, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
} from '../../src/flowcontrol/bootstrap.js';
import type { FlowSchema, PriorityLevelConfiguration, RequestDigest } from '../../src/flowcontrol/types.js';

const SA = { name: 'system:serviceaccount:default:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] };
const ADMIN = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };

function resource(user: RequestDigest['user'], verb: string, group: string, res: string, namespace = '', subresource = ''): RequestDigest {
  return { user, isResourceRequest: true, verb, apiGroup: group, namespace, resource: res, subresource, path: '' };
}
function nonResource(user: RequestDigest['user'], verb: string, path: string): RequestDigest {
  return { user, isResourceRequest: false, verb, apiGroup: '', namespace: '', resource: '', subresource: '', path };
}

const defaults = () => {
  const fc = new FlowControl();
  fc.digest([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS], [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]);
  return fc;
};
const schemaOf = (fc: FlowControl, d: RequestDigest) => fc.classify(d).flowSchema.metadata.name;

test('classification: the default schemas, in matchingPrecedence order', () => {
  const fc = defaults();
  assert.equal(schemaOf(fc, resource(ADMIN, 'list', '', 'pods', 'default')), 'exempt');
  assert.equal(schemaOf(fc, resource(SA, 'list', '', 'configmaps', 'default')), 'service-accounts');
  assert.equal(fc.classify(resource(SA, 'list', '', 'configmaps', 'default')).level.pl.metadata.name, 'workload-low');
  const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  assert.equal(schemaOf(fc, nonResource(anon, 'get', '/healthz')), 'probes');
  assert.equal(schemaOf(fc, nonResource(anon, 'get', '/version')), 'global-default');
  const node = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  assert.equal(schemaOf(fc, resource(node, 'update', '', 'nodes', '', 'status')), 'system-node-high');
  assert.equal(schemaOf(fc, resource(node, 'update', 'coordination.k8s.io', 'leases', 'kube-node-lease')), 'system-node-high');
  assert.equal(schemaOf(fc, resource(node, 'get', '', 'pods', 'default')), 'system-nodes');
  const kcm = { name: 'system:kube-controller-manager', groups: ['system:authenticated'] };
  assert.equal(schemaOf(fc, resource(kcm, 'update', 'coordination.k8s.io', 'leases', 'kube-system')), 'system-leader-election');
  assert.equal(schemaOf(fc, resource(kcm, 'get', '', 'endpoints', 'default')), 'endpoint-controller');
  assert.equal(schemaOf(fc, resource(kcm, 'list', 'apps', 'deployments')), 'kube-controller-manager');
  const ksa = { name: 'system:serviceaccount:kube-system:foo', groups: ['system:serviceaccounts', 'system:authenticated'] };
  assert.equal(schemaOf(fc, resource(ksa, 'create', '', 'configmaps', 'kube-system')), 'workload-leader-election');
  assert.equal(schemaOf(fc, resource(ksa, 'list', '', 'pods', 'default')), 'kube-system-service-accounts');
  // A namespace prefix is not a namespace: kube-systemx's accounts are ordinary ones.
  const other = { name: 'system:serviceaccount:kube-systemx:foo', groups: ['system:serviceaccounts', 'system:authenticated'] };
  assert.equal(schemaOf(fc, resource(other, 'list', '', 'pods', 'default')), 'service-accounts');
  // Cluster-scoped requests match only clusterScope rules.
  assert.equal(schemaOf(fc, resource(node, 'update', 'coordination.k8s.io', 'leases')), 'system-nodes');
});

test('classification: non-resource URL rules match exactly, by prefix, or by suffix wildcard', () => {
  const fs: FlowSchema = {
    metadata: { name: 'urls' },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 50,
      rules: [{ subjects: [{ kind: 'User', user: { name: '*' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/apis/*'] }] }],
    },
  };
  const seq = [FS_EXEMPT, fs, FS_CATCH_ALL];
  const u = { name: 'u', groups: ['system:authenticated'] };
  assert.equal(selectFlowSchema(nonResource(u, 'get', '/metrics'), seq).metadata.name, 'urls');
  assert.equal(selectFlowSchema(nonResource(u, 'get', '/metrics/x'), seq).metadata.name, 'urls');
  assert.equal(selectFlowSchema(nonResource(u, 'get', '/metricsx'), seq).metadata.name, 'catch-all');
  assert.equal(selectFlowSchema(nonResource(u, 'get', '/apis/apps'), seq).metadata.name, 'urls');
  assert.equal(selectFlowSchema(nonResource(u, 'post', '/metrics'), seq).metadata.name, 'catch-all');
});

test('flow distinguisher and hashFlowID: the first 8 bytes of sha256(name NUL distinguisher), little endian', () => {
  const sa = SUGGESTED_FLOW_SCHEMAS.find((f) => f.metadata.name === 'service-accounts')!;
  const d = resource(SA, 'list', '', 'configmaps', 'default');
  assert.equal(flowDistinguisher(d, sa), SA.name);
  assert.equal(flowDistinguisher(d, SUGGESTED_FLOW_SCHEMAS.find((f) => f.metadata.name === 'kube-scheduler')!), 'default');
  assert.equal(flowDistinguisher(d, FS_EXEMPT), '');
  assert.equal(hashFlowID('service-accounts', SA.name), 13424615363282033023n);
});

test('shuffle sharding: Dealer.Deal draws distinct cards from the hash value', () => {
  assert.deepEqual(dealHand(7n, 4, 2), [3, 1]);
  assert.deepEqual(dealHand(5n, 4, 3), [1, 2, 0]);
  for (const h of [0n, 1n, 13424615363282033023n, 2n ** 64n - 1n]) {
    const hand = dealHand(h, 128, 6);
    assert.equal(new Set(hand).size, 6);
    assert.ok(hand.every((c) => c >= 0 && c < 128));
  }
  assert.equal(requiredEntropyBits(1024, 6), 60);
  assert.equal(requiredEntropyBits(512, 8), 72);
});

test('concurrency limits: nominalConcurrencyShares over the server\'s 600 seats', () => {
  const fc = defaults();
  // Shares: 30+40+10+40+100+20+5 (+0 exempt) = 245.
  const cl = (name: string) => fc.level(name)!.nominalCL;
  assert.equal(cl('workload-low'), Math.ceil(600 * 100 / 245));
  assert.equal(cl('catch-all'), Math.ceil(600 * 5 / 245));
  assert.equal(cl('exempt'), 0);
  // MAX(1, MIN(ceil(0.15 * nominalCL), nominalCL / handSize))
  assert.equal(fc.level('workload-low')!.maxSeats, 37);
});

test('missing mandatory objects are imagined; a schema of a missing level is dangling and unused', () => {
  const fc = new FlowControl();
  const orphan: FlowSchema = {
    metadata: { name: 'orphan' },
    spec: { priorityLevelConfiguration: { name: 'nope' }, matchingPrecedence: 10, rules: [{ subjects: [{ kind: 'Group', group: { name: '*' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] },
  };
  const now = new Date('2024-01-02T03:04:05.678Z');
  const updates = fc.digest([], [orphan], now);
  assert.deepEqual(updates, [{
    name: 'orphan',
    condition: {
      type: 'Dangling', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'NotFound',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "nope" but there is no such object',
    },
  }]);
  const u = { name: 'u', groups: ['system:authenticated'] };
  assert.equal(schemaOf(fc, nonResource(u, 'get', '/x')), 'catch-all');
  assert.equal(schemaOf(fc, nonResource(ADMIN, 'get', '/x')), 'exempt');
  // Once the status says so, nothing more is written.
  const [first] = updates;
  assert.ok(first);
  const found = { ...FS_EXEMPT, status: { conditions: [first.condition] } };
  assert.equal(danglingCondition({ ...orphan, status: found.status }, true, now), undefined);
  assert.equal(danglingCondition(FS_EXEMPT, false, now)?.reason, 'Found');
});

test('queue set: runs within the limit, queues per flow up to queueLengthLimit, then rejects; finishing dispatches', async () => {
  const qs = new QueueSet({ concurrencyLimit: 2, queuing: { queues: 4, handSize: 1, queueLengthLimit: 2 } });
  const a = qs.startRequest(1, 0n)!;
  const b = qs.startRequest(1, 0n)!;
  assert.equal(await a.dispatched, true);
  assert.equal(await b.dispatched, true);
  assert.equal(qs.seatsInUse, 2);
  const c = qs.startRequest(1, 0n)!;
  const d = qs.startRequest(1, 0n)!;
  assert.equal(qs.requestsWaiting, 2);
  // Full level and full queue: rejected.
  assert.equal(qs.startRequest(1, 0n), undefined);
  // Another flow's queue still has room.
  const other = qs.startRequest(1, 1n)!;
  assert.ok(other);
  // The flow that has had no service yet goes first.
  a.finish();
  assert.equal(await other.dispatched, true);
  // A waiting request that gives up leaves its queue.
  d.cancel();
  assert.equal(await d.dispatched, false);
  assert.equal(qs.requestsWaiting, 1);
  b.finish();
  assert.equal(await c.dispatched, true);
  c.finish(); other.finish();
  assert.ok(qs.isIdle());
});

test('queue set: fair dispatch serves a flow that has had nothing before a flow that has had a seat', async () => {
  const qs = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 8, handSize: 1, queueLengthLimit: 10 } });
  const first = qs.startRequest(1, 0n)!;
  const order: string[] = [];
  const heavy = [1, 2, 3].map(() => qs.startRequest(1, 0n)!);
  const light = qs.startRequest(1, 1n)!;
  heavy.forEach((t, i) => void t.dispatched.then(() => { order.push(`heavy${i}`); t.finish(); }));
  void light.dispatched.then(() => { order.push('light'); light.finish(); });
  first.finish();
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(order, ['light', 'heavy0', 'heavy1', 'heavy2']);
});

test('queue set: seats, the Reject response and the exempt level', () => {
  const reject = new QueueSet({ concurrencyLimit: 3 });
  const big = reject.startRequest(2, 0n)!;
  assert.ok(big);
  assert.equal(reject.startRequest(2, 0n), undefined);
  assert.ok(reject.startRequest(1, 0n));
  big.finish();
  // A request wider than the limit runs only alone.
  const lone = new QueueSet({ concurrencyLimit: 3 });
  assert.ok(lone.startRequest(5, 0n));
  assert.equal(lone.startRequest(1, 0n), undefined);
  const exempt = new QueueSet({ concurrencyLimit: 0, exempt: true });
  for (let i = 0; i < 1000; i++) assert.ok(exempt.startRequest(1, 0n));
});

test('Retry-After: 1 s, doubled while rejections keep coming, lowered when they stop', () => {
  let now = 1_000_000;
  const t = new DroppedRequestsTracker(() => now);
  assert.equal(t.retryAfter('workload-low'), 1);
  const burst = (n: number) => { for (let i = 0; i < n; i++) t.record('workload-low'); };
  burst(10);
  now += 1000; burst(1);
  assert.equal(t.retryAfter('workload-low'), 2);
  assert.equal(t.retryAfter('global-default'), 1);
  now += 10_000; burst(1);
  assert.equal(t.retryAfter('workload-low'), 1);
});

test('bootstrap objects: upstream\'s names, levels and precedences', () => {
  const levels = [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS] as PriorityLevelConfiguration[];
  assert.deepEqual(levels.map((p) => p.metadata.name).sort(),
    ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
  const schemas = [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS];
  assert.deepEqual(Object.fromEntries(schemas.map((f) => [f.metadata.name, `${f.spec.priorityLevelConfiguration.name}/${f.spec.matchingPrecedence}`])), {
    'exempt': 'exempt/1', 'catch-all': 'catch-all/10000', 'system-nodes': 'system/500', 'system-node-high': 'node-high/400',
    'probes': 'exempt/2', 'system-leader-election': 'leader-election/100', 'workload-leader-election': 'leader-election/200',
    'endpoint-controller': 'workload-high/150', 'kube-controller-manager': 'workload-high/800', 'kube-scheduler': 'workload-high/800',
    'kube-system-service-accounts': 'workload-high/900', 'service-accounts': 'workload-low/9000', 'global-default': 'global-default/9900',
  });
  for (const o of [...levels, ...schemas]) assert.deepEqual(o.metadata.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
});

test('request digest: RequestInfo verbs, namespaces and non-resource paths; the queue wait limit', async () => {
  const { requestDigest, queueWaitLimitMs } = await import('../../src/api/priority-and-fairness.js');
  const q = (s = '') => new URLSearchParams(s);
  const d = (method: string, path: string, query = '') => requestDigest(method, path, q(query), { name: 'u', groups: ['g'] });
  assert.deepEqual(d('GET', '/api/v1/namespaces/default/pods'), {
    user: { name: 'u', groups: ['g'] }, isResourceRequest: true, verb: 'list', apiGroup: '', namespace: 'default', resource: 'pods', subresource: '', path: '/api/v1/namespaces/default/pods',
  });
  assert.equal(d('GET', '/api/v1/namespaces/default/pods', 'watch=1').verb, 'watch');
  assert.equal(d('GET', '/api/v1/watch/namespaces/default/pods').verb, 'watch');
  assert.equal(d('GET', '/apis/apps/v1/namespaces/default/deployments/web').verb, 'get');
  assert.equal(d('DELETE', '/api/v1/namespaces/default/pods').verb, 'deletecollection');
  assert.equal(d('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale').subresource, 'scale');
  assert.equal(d('GET', '/api/v1/namespaces/kube-system').namespace, 'kube-system');
  assert.equal(d('PUT', '/api/v1/namespaces/kube-system/finalize').namespace, 'kube-system');
  const h = d('GET', '/healthz');
  assert.equal(h.isResourceRequest, false);
  assert.equal(h.verb, 'get');
  assert.equal(h.path, '/healthz');
  assert.equal(queueWaitLimitMs(d('GET', '/api/v1/pods'), q()), 15_000);
  assert.equal(queueWaitLimitMs(d('GET', '/api/v1/pods'), q('timeout=4s')), 1_000);
  assert.equal(queueWaitLimitMs(d('GET', '/api/v1/pods'), q('timeout=10m')), 15_000);
  assert.equal(queueWaitLimitMs(d('GET', '/api/v1/pods', 'watch=true&timeout=4s'), q('watch=true&timeout=4s')), 15_000);
});

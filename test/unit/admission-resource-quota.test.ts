/**
 * ResourceQuota: what the evaluators count, the admission plugin's refusals
 * with upstream's messages (through the real Store), and the quota
 * controller's status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectCountEvaluator, podEvaluator, pvcEvaluator, serviceEvaluator } from '../../src/admission/quota-evaluators.js';
import { toJSON } from '../../src/meta/resource-lists.js';
import { QuotaLookup, quotaStatus } from '../../src/controllers/resource-quota.js';
import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { ADMISSION_ORDER } from '../../src/admission/chain.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';

serviceAccountLookup.defaultAttempts = 1;
const now = new Date();

test('pod usage: containers summed, init containers as a floor, overhead added; terminal pods only count', () => {
  const pod = {
    metadata: {},
    spec: {
      overhead: { cpu: '100m' },
      initContainers: [{ name: 'i', resources: { requests: { cpu: '2', memory: '64Mi' } } }],
      containers: [
        { name: 'a', resources: { requests: { cpu: '500m', memory: '128Mi', 'nvidia.com/gpu': '1' }, limits: { memory: '256Mi', 'nvidia.com/gpu': '1' } } },
        { name: 'b', resources: { requests: { cpu: '250m', memory: '128Mi' } } },
      ],
    },
  };
  assert.deepEqual(toJSON(podEvaluator.usage(pod, now)), {
    'count/pods': '1', cpu: '2100m', 'limits.memory': '256Mi', memory: '256Mi', pods: '1',
    'requests.cpu': '2100m', 'requests.memory': '256Mi', 'requests.nvidia.com/gpu': '1',
  });
  assert.deepEqual(toJSON(podEvaluator.usage({ ...pod, status: { phase: 'Succeeded' } }, now)), { 'count/pods': '1' });
  assert.deepEqual(podEvaluator.matchingResources(['pods', 'requests.nvidia.com/gpu', 'services', 'hugepages-2Mi']), ['pods', 'requests.nvidia.com/gpu', 'hugepages-2Mi']);
  assert.equal(podEvaluator.constraints(['requests.cpu', 'limits.memory', 'pods'], { spec: { containers: [{ name: 'b' }, { name: 'a', resources: { requests: { cpu: '1' } } }] } }),
    'must specify limits.memory for: a,b; requests.cpu for: b');
});

test('service, claim and object-count usage', () => {
  assert.deepEqual(toJSON(serviceEvaluator.usage({ spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] } }, now)),
    { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '2' });
  assert.deepEqual(toJSON(serviceEvaluator.usage({ spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30080 }, { port: 81 }] } }, now)),
    { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
  assert.deepEqual(toJSON(pvcEvaluator.usage({ spec: { storageClassName: 'fast', resources: { requests: { storage: '1.5' } } } }, now)), {
    'count/persistentvolumeclaims': '1', 'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
    'fast.storageclass.storage.k8s.io/requests.storage': '2', persistentvolumeclaims: '1', 'requests.storage': '2',
  });
  assert.deepEqual(pvcEvaluator.matchingResources(['requests.storage', 'gold.storageclass.storage.k8s.io/requests.storage', 'pods']),
    ['requests.storage', 'gold.storageclass.storage.k8s.io/requests.storage']);
  assert.deepEqual(toJSON(objectCountEvaluator('', 'secrets').usage({}, now)), { 'count/secrets': '1', secrets: '1' });
  assert.deepEqual(objectCountEvaluator('apps', 'deployments').matchingResources(['count/deployments.apps', 'pods']), ['count/deployments.apps']);
});

test('ResourceQuota is the last plugin of the chain; LimitRanger comes before ServiceAccount, PodSecurity before Priority', () => {
  const names = ADMISSION_ORDER.map((p) => p.name);
  assert.equal(names[names.length - 1], 'ResourceQuota');
  assert.ok(names.indexOf('LimitRanger') < names.indexOf('ServiceAccount'));
  assert.ok(names.indexOf('PodSecurity') < names.indexOf('Priority'));
  assert.ok(names.indexOf('DefaultTolerationSeconds') < names.indexOf('RuntimeClass'));
});

// --- through the store -------------------------------------------------------------------

const defs = allResources();
const def = (group: string, r: string): ResourceDef => defs.find((d) => d.group === group && d.resource === r)!;
const ctx = (namespace: string, dryRun = false): WriteContext => ({ namespace, now: new Date(), dryRun, fieldManager: 'test', warn: () => {} });
const pod = (name: string, cpu?: string) => ({
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx', ...(cpu ? { resources: { requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '64Mi' } } } : {}) }] },
});

async function fixture(hard: Record<string, string>, extra: any = {}) {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, defs);
  await store.create(def('', 'namespaces'), '', { metadata: { name: 'ns' } }, ctx(''));
  await store.create(def('', 'serviceaccounts'), 'ns', { metadata: { name: 'default' } }, ctx('ns'));
  await store.create(def('', 'resourcequotas'), 'ns', { metadata: { name: 'q' }, spec: { hard, ...extra } }, ctx('ns'));
  return { storage, store };
}

const refusal = (message: string) => (e: unknown) => {
  assert.ok(e instanceof StatusError, String(e));
  assert.equal(e.status.code, 403);
  assert.equal(e.status.reason, 'Forbidden');
  assert.equal(e.status.message, message);
  return true;
};

test('exceeded quota: requested, used and limited of the exceeded resources only', async () => {
  const { storage, store } = await fixture({ pods: '2', 'requests.cpu': '1', 'limits.memory': '1Gi' });
  await store.create(def('', 'pods'), 'ns', pod('a', '400m'), ctx('ns'));
  await store.create(def('', 'pods'), 'ns', pod('b', '400m'), ctx('ns'));
  await assert.rejects(store.create(def('', 'pods'), 'ns', pod('c', '400m'), ctx('ns')),
    refusal('pods "c" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=400m, used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1'));
  await assert.rejects(store.create(def('', 'pods'), 'ns', pod('d'), ctx('ns')),
    refusal('pods "d" is forbidden: failed quota: q: must specify limits.memory for: c; requests.cpu for: c'));
  // A pod that has finished frees its compute quota.
  await store.update(def('', 'pods'), 'ns', 'a', (o: any) => ({ ...o, status: { ...o.status, phase: 'Succeeded' } }), ctx('ns'), 'status');
  await store.create(def('', 'pods'), 'ns', pod('c', '400m'), ctx('ns'));
  await storage.close();
});

test('object counts, dry runs, scopes and concurrent creates', async () => {
  const { storage, store } = await fixture({ 'count/deployments.apps': '1', configmaps: '1', services: '5' });
  const deploy = (name: string) => ({
    metadata: { name },
    spec: { selector: { matchLabels: { a: name } }, template: { metadata: { labels: { a: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  // A dry run is checked but charges nothing.
  await store.create(def('apps', 'deployments'), 'ns', deploy('dry'), ctx('ns', true));
  await store.create(def('apps', 'deployments'), 'ns', deploy('one'), ctx('ns'));
  await assert.rejects(store.create(def('apps', 'deployments'), 'ns', deploy('two'), ctx('ns')),
    refusal('deployments.apps "two" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1'));
  // Updates are not charged for object counts.
  await store.update(def('apps', 'deployments'), 'ns', 'one', (o: any) => ({ ...o, spec: { ...o.spec, replicas: 3 } }), ctx('ns'));
  // Of two racing creates only one gets the last configmap.
  const results = await Promise.allSettled(['x', 'y'].map((n) => store.create(def('', 'configmaps'), 'ns', { metadata: { name: n } }, ctx('ns'))));
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  await storage.close();

  // A BestEffort-scoped quota counts only BestEffort pods.
  const scoped = await fixture({ pods: '1' }, { scopes: ['BestEffort'] });
  await scoped.store.create(def('', 'pods'), 'ns', pod('burst', '100m'), ctx('ns'));
  await scoped.store.create(def('', 'pods'), 'ns', pod('be1'), ctx('ns'));
  await assert.rejects(scoped.store.create(def('', 'pods'), 'ns', pod('be2'), ctx('ns')),
    refusal('pods "be2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1'));
  await scoped.storage.close();
});

test('the quota controller status: hard from spec, used from the namespace, zeros included', async () => {
  const { storage, store } = await fixture({ pods: '10', 'requests.cpu': '2', 'count/deployments.apps': '3', services: '2', 'requests.storage': '10Gi' });
  await store.create(def('', 'pods'), 'ns', pod('a', '250m'), ctx('ns'));
  await store.create(def('', 'pods'), 'ns', pod('b', '500m'), ctx('ns'));
  const rq = await store.get('', 'resourcequotas', 'ns', 'q');
  const lookup = await QuotaLookup.discover(new LoopbackClient(store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager'));
  const status = await quotaStatus(lookup, rq!, new Date());
  assert.deepEqual(toJSON(status.hard), { 'count/deployments.apps': '3', pods: '10', 'requests.cpu': '2', 'requests.storage': '10Gi', services: '2' });
  assert.deepEqual(toJSON(status.used), { 'count/deployments.apps': '0', pods: '2', 'requests.cpu': '750m', 'requests.storage': '0', services: '0' });
  await storage.close();
});

/**
 * LimitRanger admission: defaults for containers and init containers, the
 * annotation, and the Container / Pod / PersistentVolumeClaim constraints
 * with upstream's messages, alone and through the real Store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LIMIT_RANGER_ANNOTATION, limitRequestRatioConstraint, maxConstraint, minConstraint, mutatePod, validatePVC, validatePod,
} from '../../src/admission/limit-ranger.js';
import { parseList } from '../../src/meta/resource-lists.js';
import { parseQuantity } from '../../src/apimachinery/quantity.js';
import { defaultLimitRange } from '../../src/registry/core/limitranges.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';

serviceAccountLookup.defaultAttempts = 1;

function limitRange(limits: any[]): KObject {
  const lr: any = { metadata: { name: 'lr' }, spec: { limits } };
  defaultLimitRange(lr);
  return lr;
}

const q = parseQuantity;

test('constraint messages', () => {
  assert.equal(minConstraint('Container', 'cpu', q('100m'), {}, {}), 'minimum cpu usage per Container is 100m.  No request is specified');
  assert.equal(minConstraint('Container', 'cpu', q('100m'), parseList({ cpu: '50m' }), {}), 'minimum cpu usage per Container is 100m, but request is 50m');
  assert.equal(minConstraint('Container', 'cpu', q('100m'), parseList({ cpu: '200m' }), parseList({ cpu: '90m' })), 'minimum cpu usage per Container is 100m, but limit is 90m');
  assert.equal(maxConstraint('Container', 'memory', q('1Gi'), {}, {}), 'maximum memory usage per Container is 1Gi.  No limit is specified');
  assert.equal(maxConstraint('Pod', 'memory', q('1Gi'), {}, parseList({ memory: '2Gi' })), 'maximum memory usage per Pod is 1Gi, but limit is 2Gi');
  assert.equal(maxConstraint('Container', 'cpu', q('1'), parseList({ cpu: '1500m' }), parseList({ cpu: '1' })), 'maximum cpu usage per Container is 1, but request is 1500m');
  assert.equal(limitRequestRatioConstraint('Container', 'cpu', q('2'), parseList({ cpu: '100m' }), parseList({ cpu: '250m' })),
    'cpu max limit to request ratio per Container is 2, but provided ratio is 2.500000');
  assert.equal(limitRequestRatioConstraint('Container', 'cpu', q('2'), parseList({ cpu: '100m' }), parseList({ cpu: '200m' })), undefined);
  assert.equal(limitRequestRatioConstraint('Container', 'cpu', q('2'), {}, parseList({ cpu: '200m' })),
    'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0');
  assert.equal(limitRequestRatioConstraint('Container', 'cpu', q('2'), parseList({ cpu: '1' }), {}),
    'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0');
});

test('defaults fill only what a container lacks, and the annotation says what was set', () => {
  const lr = limitRange([{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '250m' } }]);
  const pod: any = {
    metadata: { name: 'p' },
    spec: {
      initContainers: [{ name: 'init' }],
      containers: [{ name: 'a' }, { name: 'b', resources: { limits: { memory: '1Gi' }, requests: { memory: '1Gi' } } }],
    },
  };
  mutatePod(lr, pod);
  // The LimitRange's own defaulting made defaultRequest.memory from default.memory.
  assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '256Mi' } });
  assert.deepEqual(pod.spec.containers[1].resources, { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '250m', memory: '1Gi' } });
  assert.deepEqual(pod.spec.initContainers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '256Mi' } });
  assert.equal(pod.metadata.annotations[LIMIT_RANGER_ANNOTATION],
    'LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; cpu request for container b; cpu limit for container b; ' +
    'cpu, memory request for init container init; cpu, memory limit for init container init');
  // Nothing to set: no annotation.
  const done: any = { metadata: {}, spec: { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }] } };
  mutatePod(lr, done);
  assert.equal(done.metadata.annotations, undefined);
});

test('validation: containers, init containers and the pod total; several errors aggregate', () => {
  const lr = limitRange([
    { type: 'Container', max: { cpu: '1' }, min: { memory: '64Mi' } },
    { type: 'Pod', max: { cpu: '1500m' } },
  ]);
  const pod: any = {
    metadata: {},
    spec: { containers: [
      { name: 'a', resources: { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1', memory: '128Mi' } } },
      { name: 'b', resources: { limits: { cpu: '2', memory: '32Mi' }, requests: { cpu: '2', memory: '32Mi' } } },
    ] },
  };
  assert.equal(validatePod(lr, pod),
    '[minimum memory usage per Container is 64Mi, but request is 32Mi, maximum cpu usage per Container is 1, but limit is 2, maximum cpu usage per Pod is 1500m, but limit is 3]');
  const ok: any = { metadata: {}, spec: { containers: [{ name: 'a', resources: { limits: { cpu: '500m', memory: '64Mi' }, requests: { cpu: '500m', memory: '64Mi' } } }] } };
  assert.equal(validatePod(lr, ok), undefined);
});

test('PersistentVolumeClaims: storage min and max against the request', () => {
  const lr = limitRange([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]);
  const pvc = (storage?: string): any => ({ metadata: {}, spec: { resources: storage ? { requests: { storage } } : {} } });
  assert.equal(validatePVC(lr, pvc('500Mi')), 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
  assert.equal(validatePVC(lr, pvc('20Gi')), 'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
  assert.equal(validatePVC(lr, pvc()),
    '[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]');
  assert.equal(validatePVC(lr, pvc('5Gi')), undefined);
});

// --- through the store ----------------------------------------------------------------

const defs = allResources();
const def = (r: string): ResourceDef => defs.find((d) => d.group === '' && d.resource === r)!;
const ctx = (namespace: string): WriteContext => ({ namespace, now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {} });

test('store: defaults land before the QoS class is computed; violations are 403 Forbidden; pod updates are not checked', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, defs);
  await store.create(def('namespaces'), '', { metadata: { name: 'ns' } }, ctx(''));
  await store.create(def('serviceaccounts'), 'ns', { metadata: { name: 'default' } }, ctx('ns'));
  await store.create(def('limitranges'), 'ns', { metadata: { name: 'lr' }, spec: { limits: [
    { type: 'Container', default: { cpu: '500m', memory: '128Mi' }, max: { cpu: '1' } },
    { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } },
  ] } }, ctx('ns'));
  const pod: any = await store.create(def('pods'), 'ns', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ctx('ns'));
  // default becomes defaultRequest too, so requests equal limits: Guaranteed.
  assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '500m', memory: '128Mi' } });
  assert.equal(pod.status.qosClass, 'Guaranteed');
  await assert.rejects(store.create(def('pods'), 'ns', { metadata: { name: 'big' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '2' } } }] } }, ctx('ns')),
    (e: unknown) => e instanceof StatusError && e.status.code === 403 && e.status.reason === 'Forbidden' &&
      e.status.message === 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  await assert.rejects(store.create(def('persistentvolumeclaims'), 'ns', {
    metadata: { name: 'small' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '100Mi' } } },
  }, ctx('ns')), (e: unknown) => e instanceof StatusError &&
    e.status.message === 'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi');
  // A stricter LimitRange added later does not affect updates of existing pods.
  await store.update(def('limitranges'), 'ns', 'lr', (o: any) => ({ ...o, spec: { limits: [{ type: 'Container', max: { cpu: '100m' } }] } }), ctx('ns'));
  await store.update(def('pods'), 'ns', 'p', (o: any) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } } }), ctx('ns'));
  await storage.close();
});

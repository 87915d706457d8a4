import { test } from 'node:test';
import { plain } from '../../src/client/plain.js';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { PodControl, podsPrefix } from '../../src/controllers/pod-control.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { controllerServiceAccount } from '../../src/client/identities.js';
import { pods } from '../../src/client/resources.js';


serviceAccountLookup.defaultAttempts = 1;

const rs: KObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-5d4f8', namespace: 'default', uid: 'rs-uid' } };
const template = {
  metadata: { labels: { app: 'web' }, annotations: { a: 'b' } },
  spec: { containers: [{ name: 'web', image: 'nginx' }], serviceAccountName: 'default' },
};

async function setup() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await store.create(store.find('', 'v1', 'namespaces')!, '', { metadata: { name: 'default' } } as KObject, inProcessWriteContext('test'));
  await store.create(store.find('', 'v1', 'serviceaccounts')!, 'default', { metadata: { name: 'default' } } as KObject, { ...inProcessWriteContext('test'), namespace: 'default' });
  const client = new LoopbackClient(store, controllerServiceAccount('replicaset-controller'), 'kube-controller-manager');
  return { store, storage, control: new PodControl(client.resource(plain(pods)), new EventRecorder(loopback(store)), 'replicaset-controller') };
}

/** The namespace's events once `done` holds for them: the recorder writes them asynchronously. */
async function eventsWhen(store: Store, done: (events: any[]) => boolean): Promise<any[]> {
  // Past the deadline the events as they are, for the assertions to show what is missing.
  for (const deadline = Date.now() + 20_000; ;) {
    const events = (await store.list(store.find('', 'v1', 'events')!, 'default')).items as any[];
    if (done(events) || Date.now() > deadline) return events;
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('the pods prefix is the controller name and a dash, unless that is no valid name', () => {
  assert.equal(podsPrefix('web'), 'web-');
  assert.equal(podsPrefix('x'.repeat(253)), 'x'.repeat(253));
});

test('create: template labels and annotations, the controller reference, SuccessfulCreate on the owner', async () => {
  const { store, storage, control } = await setup();
  const pod = await control.create({ template, owner: rs, labels: { 'pod-template-hash': '5d4f8' } }) as any;
  assert.match(pod.metadata.name, /^web-5d4f8-[a-z0-9]{5}$/);
  assert.deepEqual(pod.metadata.labels, { app: 'web', 'pod-template-hash': '5d4f8' });
  assert.deepEqual(pod.metadata.annotations, { a: 'b' });
  assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d4f8', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }]);
  const events = await eventsWhen(store, (e) => e.length > 0);
  assert.deepEqual(events.map((e) => [e.type, e.reason, e.message, e.source.component]), [['Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, 'replicaset-controller']]);
  await control.delete(rs, pod);
  const after = await eventsWhen(store, (e) => e.some((x) => x.reason === 'SuccessfulDelete'));
  assert.ok(after.some((e) => e.reason === 'SuccessfulDelete' && e.message === `Deleted pod: ${pod.metadata.name}`));
  await storage.close();
});

test('a refused create is a FailedCreate event with the API error, and the error is thrown', async () => {
  const { store, storage, control } = await setup();
  const bad = { ...template, spec: { containers: [{ name: 'web' }] } };
  await assert.rejects(control.create({ template: bad, owner: rs }), /spec.containers\[0\].image: Required value/);
  const [ev] = await eventsWhen(store, (e) => e.length > 0);
  assert.equal(ev.reason, 'FailedCreate');
  assert.match(ev.message, /^Error creating: Pod "web-5d4f8-[a-z0-9]{5}" is invalid: spec.containers\[0\].image: Required value$/);
  await storage.close();
});

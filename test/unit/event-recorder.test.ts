/**
 * EventRecorder: the shapes client-go's two recorders write, and the
 * correlation that folds a repeat into the stored event.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { EventRecorder, referenceTo } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import type { KObject } from '../../src/apimachinery/object.js';

async function setup() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  for (const name of ['default', 'ns']) await store.create(store.find('', 'v1', 'namespaces')!, '', { metadata: { name } } as KObject, inProcessWriteContext('test'));
  return { store, storage, recorder: new EventRecorder(loopback(store)) };
}

const pod: KObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'ns', uid: 'u-1', resourceVersion: '7' } };

test('record writes a core/v1 event as tools/record does and counts a repeat on the same object', async () => {
  const { store, storage, recorder } = await setup();
  await recorder.record(referenceTo(pod, 'spec.containers{web}'), 'Normal', 'Pulling', 'Pulling image "nginx"', 'kubelet', 'linux-1');
  await recorder.record(referenceTo(pod, 'spec.containers{web}'), 'Normal', 'Pulling', 'Pulling image "nginx"', 'kubelet', 'linux-1');
  const items = (await store.list(store.find('', 'v1', 'events')!, 'ns')).items as any[];
  assert.equal(items.length, 1);
  const ev = items[0];
  assert.match(ev.metadata.name, /^web-0\.[0-9a-f]+$/);
  assert.deepEqual(ev.involvedObject, { kind: 'Pod', namespace: 'ns', name: 'web-0', uid: 'u-1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{web}' });
  assert.deepEqual(ev.source, { component: 'kubelet', host: 'linux-1' });
  assert.equal(ev.count, 2);
  assert.equal(ev.type, 'Normal');
  assert.equal(ev.reportingComponent, 'kubelet');
  assert.equal(ev.reportingInstance, 'linux-1');
  assert.equal(ev.eventTime, null);
  assert.match(ev.firstTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  await storage.close();
});

test('a repeat sent while the first event is still being created counts on that event', async () => {
  const { store, storage, recorder } = await setup();
  const ref = referenceTo(pod);
  await Promise.all([1, 2, 3].map(() => recorder.emit(ref, 'Normal', 'WaitForFirstConsumer', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding', 'persistentvolume-controller')));
  await Promise.all([1, 2].map(() => recorder.record(ref, 'Normal', 'Pulled', 'Container image "nginx" already present on machine', 'kubelet', 'linux-1')));
  const items = (await store.list(store.find('', 'v1', 'events')!, 'ns')).items as any[];
  assert.deepEqual(items.map((e) => [e.reason, e.series?.count ?? e.count]).sort(), [['Pulled', 2], ['WaitForFirstConsumer', 3]]);
  await storage.close();
});

test('emit writes an events.k8s.io-style event with a series on repeat; cluster-scoped objects go to default', async () => {
  const { store, storage, recorder } = await setup();
  await recorder.emit(referenceTo(pod), 'Warning', 'FailedScheduling', 'Scheduling', '0/6 nodes are available.', 'default-scheduler');
  await recorder.emit(referenceTo(pod), 'Warning', 'FailedScheduling', 'Scheduling', '0/6 nodes are available.', 'default-scheduler');
  const [ev] = (await store.list(store.find('', 'v1', 'events')!, 'ns')).items as any[];
  assert.equal(ev.action, 'Scheduling');
  assert.equal(ev.reportingComponent, 'default-scheduler');
  assert.match(ev.reportingInstance, /^default-scheduler-/);
  assert.match(ev.eventTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(ev.series.count, 2);
  const node: KObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'win2019-1', uid: 'n-1' } };
  await recorder.record(referenceTo(node), 'Normal', 'NodeReady', 'Node win2019-1 status is now: NodeReady', 'kubelet', 'win2019-1');
  const [nodeEvent] = (await store.list(store.find('', 'v1', 'events')!, 'default')).items as any[];
  assert.equal(nodeEvent.involvedObject.name, 'win2019-1');
  assert.equal(nodeEvent.involvedObject.namespace, undefined);
  await storage.close();
});

test('two events in the same millisecond get distinct names', async () => {
  const { store, storage, recorder } = await setup();
  await Promise.all([
    recorder.record(referenceTo(pod), 'Normal', 'Created', 'Created container a', 'kubelet', 'linux-1'),
    recorder.record(referenceTo(pod), 'Normal', 'Created', 'Created container b', 'kubelet', 'linux-1'),
  ]);
  const names = (await store.list(store.find('', 'v1', 'events')!, 'ns')).items.map((e) => e.metadata.name);
  assert.equal(new Set(names).size, 2);
  await storage.close();
});

/** TTL-after-finished: a finished Job goes ttlSecondsAfterFinished after its terminal condition. */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { TTLAfterFinishedController } from '../../src/controllers/ttl-after-finished.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

test('a finished job is deleted in the foreground once its TTL has passed, not before; unfinished jobs stay', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: 'default' };
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }, inProcessWriteContext('test'));
  let now = Date.parse('2026-01-01T00:10:00Z');
  const ttl = new TTLAfterFinishedController(newControllerContext({ client: loopback(store) }), { now: () => new Date(now) });
  const jobs = store.find('batch', 'v1', 'jobs')!;
  for (const name of ['done', 'running']) {
    await store.create(jobs, 'default', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
      spec: { ttlSecondsAfterFinished: 60, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    }, ctx);
  }
  const at = '2026-01-01T00:09:30Z';
  await store.update(jobs, 'default', 'done', (cur: any) => ({ ...cur, status: { conditions: [{ type: 'Complete', status: 'True', lastProbeTime: at, lastTransitionTime: at }], completionTime: at } }), ctx, 'status');
  assert.equal(await ttl.sync('default/done'), 30_000);
  assert.equal(await ttl.sync('default/running'), undefined);
  now += 30_000;
  assert.equal(await ttl.sync('default/done'), 0);
  // Foreground propagation: the Job stays, marked for deletion, until the garbage collector has deleted its pods.
  const deleting = await store.get('batch', 'jobs', 'default', 'done');
  assert.ok(deleting?.metadata.deletionTimestamp);
  assert.deepEqual(deleting.metadata.finalizers, ['foregroundDeletion']);
  // Already being deleted: nothing more to do.
  assert.equal(await ttl.sync('default/done'), undefined);
  assert.ok(await store.get('batch', 'jobs', 'default', 'running'));
  ttl.stop();
  await storage.close();
});

import { test } from 'node:test';
import { loopback } from '../helpers/loopback.js';
import assert from 'node:assert/strict';
import { PodGCController } from '../../src/controllers/podgc.js';
import { eventually, fixture } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { realClock } from '../../src/apimachinery/clock.js';

test('pod gc: terminated pods over the threshold, orphans after quarantine, unscheduled terminating pods', async () => {
  const f = await fixture();
  let clock = Date.now();
  await f.node('alive', { ready: 'True' });
  await f.pod('ns', 'done-1', { node: 'alive', phase: 'Succeeded' });
  await new Promise((r) => setTimeout(r, 1100)); // creationTimestamp has whole seconds
  await f.pod('ns', 'done-2', { node: 'alive', phase: 'Failed' });
  await f.pod('ns', 'running', { node: 'alive', ip: '10.244.0.9', ready: true });
  await f.pod('ns', 'orphan', { node: 'vanished', ip: '10.244.7.2', ready: true });
  await f.store.create(f.def('', 'pods'), 'ns', { metadata: { name: 'pending' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, f.ctx('ns'));
  await f.store.delete(f.def('', 'pods'), 'ns', 'pending', { gracePeriodSeconds: 30 }, f.ctx('ns'));
  const gc = new PodGCController(newControllerContext({ client: loopback(f.store), clock: { now: () => clock, after: (ms, fn) => realClock.after(ms, fn) } }), { terminatedPodThreshold: 1, gcCheckPeriodMs: 3_600_000, quarantineMs: 40_000 });
  await gc.start();
  await gc.gc();
  const names = async () => (await f.store.list(f.def('', 'pods'), 'ns')).items.map((p) => p.metadata.name).sort();
  // The oldest terminated pod goes; the orphan waits out the quarantine; the unscheduled terminating pod is force-deleted.
  assert.deepEqual(await names(), ['done-2', 'orphan', 'running']);
  clock += 41_000;
  // Watch the orphan's last status write before it is deleted.
  const seen: any[] = [];
  const w = await f.store.watch(f.def('', 'pods'), 'ns', Number((await f.store.list(f.def('', 'pods'), 'ns')).revision), {}, (t, o) => { if (o.metadata.name === 'orphan') seen.push([t, o]); });
  await gc.gc();
  assert.deepEqual(await names(), ['done-2', 'running']);
  // The watch delivers behind the writes: wait for the DELETED event rather than for a fixed time.
  await eventually(() => (seen.at(-1)?.[0] === 'DELETED' ? true : undefined), 'the orphan\'s DELETED event');
  w.cancel();
  const failed = seen.find(([t, o]) => t === 'MODIFIED' && o.status.phase === 'Failed')?.[1];
  const cond = failed.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
  assert.deepEqual([cond.status, cond.reason, cond.message], ['True', 'DeletionByPodGC', 'PodGC: node no longer exists']);
  assert.equal(seen.at(-1)[0], 'DELETED');
  gc.stop();
  await f.close();
});

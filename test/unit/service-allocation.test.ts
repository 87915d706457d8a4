/**
 * Service allocation is atomic, as upstream's allocators are: writes issued
 * together against one Store cannot both take a value, a write that is not
 * stored gives back what it took, and the table keeps nothing once every
 * write has ended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture } from './service-fixture.js';
import { allocationTableOf, ServiceAllocationTable } from '../../src/registry/core/service-allocation-table.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';

const nodePort = (name: string, port: number, extra: { clusterIP?: string; portName?: string } = {}): KObject => ({
  metadata: { name },
  spec: {
    type: 'NodePort', ...(extra.clusterIP ? { clusterIP: extra.clusterIP } : {}),
    ports: [{ port: 80, nodePort: port, ...(extra.portName ? { name: extra.portName } : {}) }],
  },
} as KObject);

const messageOf = (r: PromiseSettledResult<unknown>) =>
  (r.status === 'rejected' && r.reason instanceof StatusError ? r.reason.status.message : String(r.status));

test('creates issued in the same turn asking for one node port: exactly one is stored', async () => {
  const f = await fixture();
  try {
    const svcs = f.def('', 'services');
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) =>
      f.store.create(svcs, 'default', nodePort(`s${i}`, 30080), f.ctx('default'))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const [i, r] of results.entries()) {
      if (r.status === 'fulfilled') continue;
      assert.equal(messageOf(r), `Service "s${i}" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`);
    }
    assert.equal(allocationTableOf(f.store).size, 0);
  } finally {
    await f.close();
  }
});

test('creates issued in the same turn asking for one cluster IP: exactly one is stored', async () => {
  const f = await fixture();
  try {
    const svcs = f.def('', 'services');
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) =>
      f.store.create(svcs, 'default', { metadata: { name: `s${i}` }, spec: { clusterIP: '10.96.0.50', ports: [{ port: 80 }] } } as KObject,
        f.ctx('default'))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const [i, r] of results.entries()) {
      if (r.status === 'fulfilled') continue;
      assert.equal(messageOf(r), `Service "s${i}" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: ` +
        'failed to allocate IP 10.96.0.50: provided IP is already allocated');
    }
  } finally {
    await f.close();
  }
});

test('a create refused after allocating, and a dry run, hold nothing; the values are free for the next create', async () => {
  const f = await fixture();
  try {
    const svcs = f.def('', 'services');
    // Allocation happens before validation, which then refuses the port name.
    const bad = nodePort('a', 30500, { clusterIP: '10.96.0.60', portName: 'Not_Valid' });
    await assert.rejects(f.store.create(svcs, 'default', bad, f.ctx('default')), (e: StatusError) => e.status.reason === 'Invalid');
    assert.equal(allocationTableOf(f.store).size, 0);
    // A dry run and a real create issued together: the dry run takes nothing from the real one.
    const [dry, real] = await Promise.allSettled([
      f.store.create(svcs, 'default', nodePort('b', 30500, { clusterIP: '10.96.0.60' }), { ...f.ctx('default'), dryRun: true }),
      f.store.create(svcs, 'default', nodePort('c', 30500, { clusterIP: '10.96.0.60' }), f.ctx('default')),
    ]);
    assert.deepEqual([dry.status, real.status], ['fulfilled', 'fulfilled']);
    assert.equal(allocationTableOf(f.store).size, 0);
  } finally {
    await f.close();
  }
});

test('the table: a value stored after an allocation started stays visible to it until it ends', () => {
  const t = new ServiceAllocationTable();
  const early = t.begin('svc-early', false);
  const writer = t.begin('svc-writer', false);
  writer.take('port/30080');
  assert.equal(early.held('port/30080'), true, 'in flight');
  writer.finish(true);
  // early may have listed the services before the write was stored.
  assert.equal(early.held('port/30080'), true, 'stored after early began');
  // A later allocation lists after the write: storage answers for it.
  const late = t.begin('svc-late', false);
  assert.equal(late.held('port/30080'), false);
  assert.equal(t.size, 1);
  early.finish(false);
  late.finish(false);
  assert.equal(t.size, 0);
  // A write that is not stored frees its values at once; a Service's own values never conflict with it.
  const failed = t.begin('svc-a', false);
  failed.take('ip/49');
  const same = t.begin('svc-a', false);
  assert.equal(same.held('ip/49'), false);
  failed.finish(false);
  same.finish(false);
  assert.equal(t.size, 0);
});

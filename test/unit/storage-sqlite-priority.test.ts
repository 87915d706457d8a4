import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';

/**
 * Node Lease writes are served ahead of the writes already queued (APF's
 * system-nodes priority level): issued in the same turn after a burst of
 * pod writes, they are committed first, in the order they came, and every
 * write still commits once.
 */
test('node Lease writes commit ahead of queued writes, in arrival order among themselves', async () => {
  const s = new SqliteStorage(':memory:');
  try {
    const lease = (n: string) => `/coordination.k8s.io/leases/kube-node-lease/${n}`;
    await s.create(lease('n1'), '"l1"');
    await s.create(lease('n2'), '"l2"');
    const order: string[] = [];
    const seen = s.watch('/', s.currentRevision(), (events) => { for (const e of events) order.push(e.key); });
    await seen;
    const writes: Promise<unknown>[] = [];
    // 600 pod writes: more than one commit's worth (256), so some are still queued behind the first slice.
    for (let i = 0; i < 600; i++) writes.push(s.create(`/pods/default/p${String(i).padStart(3, '0')}`, '"p"'));
    writes.push(s.update(lease('n1'), '"l1b"', 1));
    // A Lease in another namespace is ordinary traffic.
    writes.push(s.create('/coordination.k8s.io/leases/kube-system/ctrl', '"c"'));
    writes.push(s.update(lease('n2'), '"l2b"', 2));
    await Promise.all(writes);
    assert.equal(order.length, 603);
    assert.deepEqual(order.slice(0, 2), [lease('n1'), lease('n2')]);
    assert.deepEqual(order.slice(2, 4), ['/pods/default/p000', '/pods/default/p001']);
    assert.deepEqual(order.slice(-2), ['/pods/default/p599', '/coordination.k8s.io/leases/kube-system/ctrl']);
    // Revisions follow commit order: the Leases got the first two.
    assert.equal((await s.get(lease('n1')))!.modRevision, 3);
    assert.equal((await s.get(lease('n2')))!.modRevision, 4);
    assert.equal((await s.get('/pods/default/p000'))!.modRevision, 5);

    // Queued while a slice is being committed: the Lease write goes into the next slice, before the remaining pods.
    order.length = 0;
    const more: Promise<unknown>[] = [];
    for (let i = 0; i < 600; i++) more.push(s.create(`/pods/other/q${String(i).padStart(3, '0')}`, '"q"'));
    const leaseDone = new Promise<void>((resolve) => setImmediate(() => { more.push(s.update(lease('n1'), '"l1c"', 3).then(() => resolve())); }));
    await leaseDone;
    await Promise.all(more);
    const at = order.indexOf(lease('n1'));
    assert.equal(at, 256, 'committed first in the slice after the one under way');
    assert.equal(order.length, 601);
  } finally {
    await s.close();
  }
});

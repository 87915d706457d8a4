import { test } from 'node:test';
import { loopback } from '../helpers/loopback.js';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { componentElector, LeaderElector, leaderIdentity } from '../../src/controllers/leader-election.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { eventually, fixture } from './service-fixture.js';

test('leader election: one of two electors leads; the other takes over when the leader stops renewing', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  const timing = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 50 };
  const log: string[] = [];
  const client = new LoopbackClient(f.store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager');
  const make = (id: string) => new LeaderElector(client, { namespace: 'kube-system', name: 'kube-controller-manager', identity: id, component: 'kube-controller-manager', ...timing }, {
    onStartedLeading: () => { log.push(`${id} started`); },
    onStoppedLeading: () => { log.push(`${id} stopped`); },
  }, events);
  const a = make('host-a_1');
  await a.start();
  await eventually(() => (a.isLeader ? true : undefined), 'a leads');
  const b = make('host-b_2');
  await b.start();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(b.isLeader, false);
  const lease: any = await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-controller-manager');
  assert.equal(lease.spec.holderIdentity, 'host-a_1');
  assert.equal(lease.spec.leaseDurationSeconds, 1);
  assert.equal(lease.spec.leaseTransitions, 0);
  assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  // a crashes (stops renewing, does not release): b waits out the lease duration, then takes it.
  const crashedAt = Date.now();
  await a.stop(false);
  await eventually(() => (b.isLeader ? true : undefined), 'b leads');
  assert.ok(Date.now() - crashedAt >= 900, 'b waited for the lease to expire');
  const taken: any = await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-controller-manager');
  assert.equal(taken.spec.holderIdentity, 'host-b_2');
  assert.equal(taken.spec.leaseTransitions, 1);
  // b releases on stop: a new candidate takes over without waiting the full duration.
  const c = make('host-c_3');
  await c.start();
  await b.stop(true);
  const released = (await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-controller-manager'))!.spec as Lease['spec'];
  assert.notEqual(released?.holderIdentity, 'host-b_2', 'b gave the lease up');
  await eventually(() => (c.isLeader ? true : undefined), 'c leads');
  assert.equal(((await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-controller-manager'))!.spec as any).leaseTransitions, 2);
  await c.stop(true);
  assert.deepEqual(log, ['host-a_1 started', 'host-a_1 stopped', 'host-b_2 started', 'host-b_2 stopped', 'host-c_3 started', 'host-c_3 stopped']);
  // The recorder writes behind the elections: wait for the third leader's event.
  const evs = await eventually(async () => {
    const items = (await f.store.list(f.def('', 'events'), 'kube-system')).items as any[];
    return items.filter((e) => e.reason === 'LeaderElection').length >= 3 ? items : undefined;
  }, 'three LeaderElection events');
  assert.deepEqual(evs.filter((e) => e.reason === 'LeaderElection').map((e) => e.message).sort(),
    ['host-a_1 became leader', 'host-b_2 became leader', 'host-c_3 became leader']);
  const kcm = componentElector(client, 'kube-scheduler', { onStartedLeading() {}, onStoppedLeading() {} });
  assert.deepEqual({ ...kcm.config, identity: undefined }, { namespace: 'kube-system', name: 'kube-scheduler', identity: undefined,
    component: 'kube-scheduler', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  assert.match(leaderIdentity(), /^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  await f.close();
});

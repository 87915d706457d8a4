/**
 * Two kube-controller-managers (two winkube servers) on one store: only the
 * one holding the kube-controller-manager Lease acts; one that loses the
 * lease stops its controllers; a released lease is taken over at once.
 */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import type { Client } from '../../src/client/types.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { LeaderElector, type LeaderCallbacks } from '../../src/controllers/leader-election.js';
import { runControllerManager } from '../../src/controllers/manager.js';
import { LBPool } from '../../src/network/lb-pool.js';
import type { EventRecorder as Recorder } from '../../src/events/recorder.js';
import { eventually, fixture } from './service-fixture.js';

// Short, but with room for a loaded machine: a renewal late by more than the deadline would hand the lease over.
const TIMING = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 100 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('kube-controller-manager leader election: one of two servers acts; a lost lease stops the controllers; a released one is taken over', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  const logs: string[] = [];
  const client = new LoopbackClient(f.store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager');
  const manager = (identity: string) => runControllerManager({
    client, newContext: () => newControllerContext({ client, events, log: (m) => logs.push(`${identity}: ${m}`) }),
    events, log: (m) => logs.push(`${identity}: ${m}`), ca: { cert: 'CA', key: '' }, workloads: { lbPool: LBPool.parse('192.0.2.0/29') },
  }, (c: Client, component, callbacks: LeaderCallbacks, ev?: Recorder, log?: (m: string) => void) =>
    new LeaderElector(c, { namespace: 'kube-system', name: component, identity, component, ...TIMING }, callbacks, ev, log));
  const rsDef = f.def('apps', 'replicasets');
  const podsOf = async (app: string) => (await f.store.list(f.def('', 'pods'), 'default')).items.filter((p) => p.metadata.labels?.app === app);
  const replicaSet = (name: string, replicas: number) => f.store.create(rsDef, 'default', {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  }, f.ctx('default'));

  const a = await manager('server-a_1');
  const b = await manager('server-b_2');
  assert.equal(a.elector.isLeader, true);
  assert.equal(b.elector.isLeader, false);

  // Both servers watch the ReplicaSet; only the leader's controller creates its two pods.
  await replicaSet('first', 2);
  await eventually(async () => ((await podsOf('first')).length === 2 ? true : undefined), 'two pods');
  await sleep(300);
  assert.equal((await podsOf('first')).length, 2, 'no second set of pods from the other server');

  // Someone else holds the lease (a cannot renew it): after the renew deadline a stops leading and its controllers stop.
  const leases = f.def('coordination.k8s.io', 'leases');
  const takeLease = (seconds: number) => f.store.update(leases, 'kube-system', 'kube-controller-manager', (l: any) => {
    l.spec = { ...l.spec, holderIdentity: 'intruder_3', leaseDurationSeconds: seconds, renewTime: new Date().toISOString().replace('Z', '000Z') };
    return l;
  }, f.ctx('kube-system'));
  await takeLease(30);
  await eventually(() => (a.elector.isLeader ? undefined : true), 'a stops leading');
  assert.equal(b.elector.isLeader, false);
  await replicaSet('second', 1);
  await sleep(300);
  assert.deepEqual(await podsOf('second'), [], 'no controller acts without the lease');

  // The intruder's lease runs out: whichever server saw it unchanged for its duration first takes it over and acts.
  await takeLease(2);
  const leader = await eventually(() => (a.elector.isLeader ? a : b.elector.isLeader ? b : undefined), 'a new leader');
  const [next, other] = leader === a ? ['server-a_1', 'server-b_2'] : ['server-b_2', 'server-a_1'];
  await eventually(async () => ((await podsOf('second')).length === 1 ? true : undefined), `${next} creates the pod`);
  const lease: any = await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-controller-manager');
  assert.equal(lease.spec.holderIdentity, next);
  assert.equal(lease.spec.leaseTransitions, 1);

  // The leader shuts down cleanly and releases the lease; the other takes over without waiting out the duration.
  await leader.stop();
  // Released (no holder, a 1 s duration) rather than left to expire: the follower's next try takes it.
  const released = (await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-controller-manager'))!.spec as Lease['spec'];
  assert.notEqual(released?.holderIdentity, next, 'the stopped leader gave the lease up');
  const follower = leader === a ? b : a;
  await eventually(() => (follower.elector.isLeader ? true : undefined), `${other} leads`);
  await replicaSet('third', 1);
  await eventually(async () => ((await podsOf('third')).length === 1 ? true : undefined), `${other} acts`);
  await follower.stop();
  // The recorder writes behind the elections: wait for both identities' events and the repeat's count.
  const messages = await eventually(async () => {
    const m = ((await f.store.list(f.def('', 'events'), 'kube-system')).items as any[])
      .filter((e) => e.reason === 'LeaderElection').sort((x, y) => (x.message < y.message ? -1 : 1));
    return m.length >= 2 && m[0].count >= 2 ? m : undefined;
  }, 'the LeaderElection events');
  // One event per identity: leading again is counted on the first one, as the EventCorrelator does (a led at least twice).
  assert.deepEqual(messages.map((e) => e.message), ['server-a_1 became leader', 'server-b_2 became leader']);
  assert.ok(messages[0].count >= 2, `a's LeaderElection event counted ${messages[0].count} times`);
  await f.close();
});

/**
 * Components under a Lease (src/cluster/leader-elected.ts): one of two servers runs them; a term
 * lost stops them; the node farm (`once`) is then left to the other server, while the scheduler
 * campaigns again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { APISERVER_LOOPBACK } from '../../src/client/identities.js';
import { rfc3339Micro } from '../../src/apimachinery/time.js';
import { NODE_FARM_LEASE, runLeaderElected } from '../../src/cluster/leader-elected.js';
import { eventually, fixture, type Fixture } from './service-fixture.js';

// Short, with room for a loaded machine: a renewal late by more than the deadline would hand the lease over.
const TIMING = { leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 50 };

/** Another holder writes the lease, as a server that took it would: the current leader cannot renew. */
async function steal(f: Fixture, name: string): Promise<void> {
  const now = rfc3339Micro(new Date());
  await f.store.update(f.def('coordination.k8s.io', 'leases'), 'kube-system', name, (l) => ({
    ...l, spec: { ...(l.spec as Lease['spec']), holderIdentity: 'thief_0', leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
  }), f.ctx('kube-system'));
}

const holder = async (f: Fixture, name: string) => ((await f.store.get('coordination.k8s.io', 'leases', 'kube-system', name))?.spec as Lease['spec'])?.holderIdentity;

test('the node farm runs in one server; a lost term leaves it to the other for good', async () => {
  const f = await fixture();
  const client = new LoopbackClient(f.store, APISERVER_LOOPBACK, NODE_FARM_LEASE);
  const terms: string[] = [];
  const logs: string[] = [];
  const server = (id: string) => runLeaderElected(client, NODE_FARM_LEASE, TIMING, async () => {
    terms.push(`${id} started`);
    return async () => { terms.push(`${id} stopped`); };
  }, undefined, (m) => logs.push(`${id}: ${m}`), true);
  const a = await server('a');
  const b = await server('b');
  assert.deepEqual(terms, ['a started']);
  assert.equal(await holder(f, NODE_FARM_LEASE), a.elector.config.identity);
  await steal(f, NODE_FARM_LEASE);
  // b takes the lease once the thief's record has stood for its second; a never campaigns again.
  await eventually(() => (b.elector.isLeader ? true : undefined), 'b leads');
  assert.deepEqual(terms, ['a started', 'a stopped', 'b started']);
  assert.ok(logs.includes('a: leaderelection lost: kube-system/winkube-node-farm is left to the other servers until this one restarts'));
  await b.stop();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(a.elector.isLeader, false);
  assert.deepEqual(terms, ['a started', 'a stopped', 'b started', 'b stopped']);
  await a.stop();
  await f.close();
});

test('the scheduler campaigns again after a lost term; terms never overlap', async () => {
  const f = await fixture();
  const client = new LoopbackClient(f.store, APISERVER_LOOPBACK, 'kube-scheduler');
  const terms: string[] = [];
  let running = 0;
  const a = await runLeaderElected(client, 'kube-scheduler', TIMING, async () => {
    running++;
    terms.push(`started with ${running} running`);
    await new Promise((r) => setTimeout(r, 20));
    return async () => { running--; terms.push('stopped'); };
  }, undefined, () => {});
  await steal(f, 'kube-scheduler');
  await eventually(() => (terms.length === 3 ? true : undefined), 'a leads again');
  assert.deepEqual(terms, ['started with 1 running', 'stopped', 'started with 1 running']);
  assert.equal(await holder(f, 'kube-scheduler'), a.elector.config.identity);
  await a.stop();
  assert.deepEqual(terms, ['started with 1 running', 'stopped', 'started with 1 running', 'stopped']);
  // Released on stop: the next server need not wait out the lease.
  assert.equal(((await f.store.get('coordination.k8s.io', 'leases', 'kube-system', 'kube-scheduler'))?.spec as Lease['spec'])?.leaseDurationSeconds, 1);
  await f.close();
});

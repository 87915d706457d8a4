import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { NodeFarm } from '../../src/node/farm.js';
import type { Client, ResourceClient, ResourceRef, UserInfo } from '../../src/client/types.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { kubeletClient } from '../helpers/kubelet-client.js';
import { eventually } from './service-fixture.js';

/** The farm's client, noting each node status post (its kubelet's updateStatus of its Node) in `posts`. */
function countingStatusPosts(store: Store, posts: string[]): Client {
  const base = kubeletClient(store);
  return Object.assign(Object.create(base) as Client, {
    as(user: UserInfo, fieldManager: string): Client {
      const kubelet = base.as(user, fieldManager);
      return Object.assign(Object.create(kubelet) as Client, {
        resource<T>(ref: ResourceRef<T>): ResourceClient<T> {
          const r = kubelet.resource(ref);
          if (ref.resource !== 'nodes') return r;
          return Object.assign(Object.create(r) as ResourceClient<T>, {
            updateStatus: (...args: Parameters<ResourceClient<T>['updateStatus']>) => { posts.push(args[1]); return r.updateStatus(...args); },
          });
        },
      });
    },
  });
}

test('timer wheel: one-shot and periodic tasks, cancel', () => {
  const wheel = new TimerWheel(1000, 8);
  const fired: string[] = [];
  wheel.schedule(2500, () => fired.push('once'));
  const every = wheel.every(10_000, () => fired.push('tick'));
  const cancelled = wheel.schedule(1000, () => fired.push('never'));
  cancelled.cancel();
  for (let i = 0; i < 25; i++) wheel.advance();
  assert.deepEqual(fired, ['once', 'tick', 'tick']);
  every.cancel();
  for (let i = 0; i < 20; i++) wheel.advance();
  assert.deepEqual(fired, ['once', 'tick', 'tick']);
  wheel.stop();
});

test('the farm registers every node Ready, tainted not-ready by admission until the node lifecycle controller clears it, with its Lease, and renews leases on the wheel', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const wheel = new TimerWheel(1000);
  const farm = new NodeFarm(kubeletClient(store), expandPools(DEFAULT_POOLS), () => {}, wheel);
  await farm.start();
  const nodes = await store.listAll('', 'nodes', '');
  assert.deepEqual(nodes.map((n) => n.metadata.name).sort(),
    ['linux-1', 'linux-2', 'win2019-1', 'win2019-2', 'win2022-1', 'winkube-control-plane']);
  // TaintNodesByCondition admission taints every new node not-ready (no timeAdded); removing that taint
  // once the node is Ready is the node lifecycle controller's job (test/unit/node-lifecycle-controller.test.ts),
  // not the farm's.
  const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
  for (const n of nodes) {
    const ready = (n.status as any).conditions.find((c: any) => c.type === 'Ready');
    assert.equal(ready.status, 'True');
    if (n.metadata.name === 'winkube-control-plane') continue;
    assert.deepEqual((n.spec as any).taints, [notReady], `${n.metadata.name} taints`);
  }
  const cp = nodes.find((n) => n.metadata.name === 'winkube-control-plane')!;
  assert.deepEqual((cp.spec as any).taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }, notReady]);
  const leases = await store.listAll('coordination.k8s.io', 'leases', 'kube-node-lease');
  assert.equal(leases.length, 6);
  const before = (await store.get('coordination.k8s.io', 'leases', 'kube-node-lease', 'linux-1'))!;
  assert.equal(before.metadata.ownerReferences?.[0]?.uid, nodes.find((n) => n.metadata.name === 'linux-1')!.metadata.uid);
  await new Promise((r) => setTimeout(r, 5));
  for (let i = 0; i < 10; i++) wheel.advance();
  const after = await eventually(async () => {
    const lease = (await store.get('coordination.k8s.io', 'leases', 'kube-node-lease', 'linux-1'))!;
    return lease.metadata.resourceVersion !== before.metadata.resourceVersion ? lease : undefined;
  }, 'the renewed lease');
  assert.ok((after.spec as any).renewTime > (before.spec as any).renewTime);
  await farm.stop();

  // A restart: the nodes exist; a new farm posts status over them and keeps transition times.
  const again = new NodeFarm(kubeletClient(store), expandPools(DEFAULT_POOLS), () => {}, new TimerWheel(1000));
  await again.start();
  const n2 = (await store.get('', 'nodes', '', 'linux-1'))!;
  assert.equal(n2.metadata.uid, nodes.find((n) => n.metadata.name === 'linux-1')!.metadata.uid);
  assert.notEqual((n2.status as any).nodeInfo.bootID, (nodes.find((n) => n.metadata.name === 'linux-1')!.status as any).nodeInfo.bootID);
  assert.equal((n2.status as any).nodeInfo.machineID, (nodes.find((n) => n.metadata.name === 'linux-1')!.status as any).nodeInfo.machineID);
  assert.equal(((await store.get('', 'nodes', '', 'win2019-1'))!.status as any).nodeInfo.bootID, '2');
  // The farm posts status over the existing Node: its taints stay as they were (no second not-ready taint).
  assert.deepEqual(((await store.get('', 'nodes', '', 'win2019-1'))!.spec as any).taints, [notReady]);
  await again.stop();
  await storage.close();
});

test('nodes started together post their first periodic status spread over the report period, then every period', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const wheel = new TimerWheel(1000);
  const configs = expandPools(DEFAULT_POOLS);
  // The status posts the farm makes, by node (an unchanged status within the same second writes nothing, so count the posts).
  const posts: string[] = [];
  const farm = new NodeFarm(countingStatusPosts(store, posts), configs, () => {}, wheel);
  await farm.start();
  let seen = posts.length;
  const posted = () => { const p = posts.slice(seen); seen = posts.length; return p; };
  // The ticks, then the posts they should make written (the writes run behind the wheel), and a moment for any beyond them.
  const advance = async (ticks: number, expected: number) => {
    for (let i = 0; i < ticks; i++) wheel.advance();
    await eventually(() => (posts.length - seen >= expected ? true : undefined), `${expected} status posts`);
    await new Promise((r) => setTimeout(r, 20));
  };
  // 6 nodes over nodeStatusReportFrequency (5 min): the i-th node (from 1) first posts at i × 50 s.
  await advance(49, 0);
  assert.deepEqual(posted(), []);
  await advance(1, 1);
  assert.deepEqual(posted(), [configs[0]?.name]);
  await advance(50, 1);
  assert.deepEqual(posted(), [configs[1]?.name]);
  await advance(200, 4);
  assert.deepEqual(posted(), configs.slice(2).map((c) => c.name));
  // Then each every 5 min from its first post: the first node again at 350 s.
  await advance(49, 0);
  assert.deepEqual(posted(), []);
  await advance(1, 1);
  assert.deepEqual(posted(), [configs[0]?.name]);
  await farm.stop();
  await storage.close();
});

test('cordon and uncordon: each running kubelet records NodeNotSchedulable / NodeSchedulable on its next 10 s status sync', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const wheel = new TimerWheel(1000);
  const recorded: string[] = [];
  // Each kubelet records through a recorder of its own identity, as the node it is.
  const events = { as: (user: { name: string }) => ({ record: async (ref: { name: string }, _t: string, reason: string, message: string) => {
    recorded.push(`${user.name} ${ref.name} ${reason} ${message}`);
  } }) };
  const farm = new NodeFarm(kubeletClient(store), expandPools(DEFAULT_POOLS), () => {}, wheel, [], events as never);
  await farm.start();
  const schedulable = () => recorded.filter((r) => / Node(Not)?Schedulable /.test(r));
  // The ticks, then the events they should have recorded by then (the syncs run behind the wheel), and a moment for any beyond them.
  const advance = async (ticks: number, recordedBy: number) => {
    for (let i = 0; i < ticks; i++) wheel.advance();
    await eventually(() => (schedulable().length >= recordedBy ? true : undefined), `${recordedBy} schedulable events`);
    await new Promise((r) => setTimeout(r, 30));
  };
  const setUnschedulable = (name: string, value: boolean) => store.update(store.find('', 'v1', 'nodes')!, '', name, (n) => {
    n.spec = { ...(n.spec as object), unschedulable: value || undefined };
    return n;
  }, inProcessWriteContext('kubectl'));
  await advance(10, 0);
  assert.deepEqual(schedulable(), [], 'nothing changed');
  await setUnschedulable('linux-1', true);
  await advance(9, 0);
  assert.deepEqual(schedulable(), [], 'not before the next sync');
  await advance(1, 1);
  assert.deepEqual(schedulable(), ['system:node:linux-1 linux-1 NodeNotSchedulable Node linux-1 status is now: NodeNotSchedulable']);
  await advance(10, 1);
  assert.equal(schedulable().length, 1, 'recorded once');
  await setUnschedulable('linux-1', false);
  await advance(10, 2);
  assert.deepEqual(schedulable().slice(1), ['system:node:linux-1 linux-1 NodeSchedulable Node linux-1 status is now: NodeSchedulable']);
  await farm.stop();
});

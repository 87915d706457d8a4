import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { NodeFarm, type FarmListener } from '../../src/node/farm.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import { NodeOperations } from '../../src/node/control/operations.js';
import { applyNodeChanges, loadNodeChanges } from '../../src/node/control/node-changes.js';
import { kubeletClient } from '../helpers/kubelet-client.js';
import { eventually } from './service-fixture.js';

const settle = () => new Promise((r) => setTimeout(r, 30));

test('node operations: listeners hear every change; stop ends renewals, start reboots, remove deletes, add takes the next index', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-unit-'));
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const wheel = new TimerWheel(1000);
  const farm = new NodeFarm(kubeletClient(store), expandPools(DEFAULT_POOLS), () => {}, wheel, DEFAULT_POOLS);
  const heard: string[] = [];
  const listener: FarmListener = {
    onNodeAdded: (cfg) => heard.push(`added ${cfg.name} ${cfg.os}`),
    onNodeRemoved: (n) => heard.push(`removed ${n}`),
    onNodeStopped: (n) => heard.push(`stopped ${n}`),
    onNodeStarted: (n) => heard.push(`started ${n}`),
  };
  farm.addListener(listener);
  await farm.start();
  assert.deepEqual(heard, ['added winkube-control-plane linux', 'added linux-1 linux', 'added linux-2 linux',
    'added win2019-1 windows', 'added win2019-2 windows', 'added win2022-1 windows']);
  heard.length = 0;
  const ops = new NodeOperations(farm, dir);
  const renew = async (n: string) => ((await store.get('coordination.k8s.io', 'leases', 'kube-node-lease', n))!.spec as any).renewTime as string;

  await ops.stop('win2019-1');
  const frozen = await renew('win2019-1');
  const other = await renew('win2019-2');
  await settle();
  for (let i = 0; i < 25; i++) wheel.advance();
  await eventually(async () => (await renew('win2019-2') !== other ? true : undefined), 'the running node\'s renewal');
  await settle();
  assert.equal(await renew('win2019-1'), frozen);

  await ops.start('win2019-1');
  const node = (await store.get('', 'nodes', '', 'win2019-1'))!;
  assert.equal((node.status as any).nodeInfo.bootID, '2');
  assert.ok(await renew('win2019-1') > frozen);

  assert.deepEqual(await ops.add({ pool: 'linux', count: 2 }), ['linux-3', 'linux-4']);
  assert.equal(((await store.get('', 'nodes', '', 'linux-4'))!.spec as any).podCIDR, '10.244.7.0/24');
  await ops.remove('linux-3');
  assert.equal(await store.get('', 'nodes', '', 'linux-3'), undefined);
  assert.equal(await store.get('coordination.k8s.io', 'leases', 'kube-node-lease', 'linux-3'), undefined);
  await ops.remove('linux-1');
  assert.deepEqual(heard, ['stopped win2019-1', 'started win2019-1', 'added linux-3 linux', 'added linux-4 linux', 'removed linux-3', 'removed linux-1']);

  await assert.rejects(ops.stop('linux-3'), { message: 'nodes "linux-3" not found' });
  await assert.rejects(ops.add({ name: 'linux-2', fields: { os: 'linux' } }), { message: 'nodes "linux-2" already exists' });
  await assert.rejects(ops.add({ pool: 'linux', count: 0 }), { message: 'count must be a positive integer' });
  await ops.stop('win2022-1');

  // What a restarted server starts from.
  const changes = loadNodeChanges(dir);
  assert.deepEqual(changes.added.map((n) => [n.name, n.index]), [['linux-4', 7]]);
  assert.deepEqual(changes.removed, ['linux-1']);
  assert.deepEqual(changes.stopped, ['win2022-1']);
  const applied = applyNodeChanges(expandPools(DEFAULT_POOLS), changes);
  assert.deepEqual(applied.nodes.map((n) => [n.name, n.index]),
    [['winkube-control-plane', 0], ['linux-2', 2], ['win2019-1', 3], ['win2019-2', 4], ['win2022-1', 5], ['linux-4', 7]]);
  assert.deepEqual([...applied.stopped], ['win2022-1']);
  assert.match(readFileSync(join(dir, 'nodes.json'), 'utf8'), /"name": "linux-4"/);
  await farm.stop();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

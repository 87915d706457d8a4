import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { NodeFarm } from '../../src/node/farm.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import { NodeImages, nodeStatusImages } from '../../src/node/kubelet/images.js';
import { kubeletClient } from '../helpers/kubelet-client.js';
import { eventually } from './service-fixture.js';

test('nodestatus.Images: biggest first, at most nodeStatusMaxImages (50), at most 5 names each', () => {
  const images = Array.from({ length: 60 }, (_, i) => ({ names: [`r/img${i}@sha256:${i}`, `r/img${i}:1`, 'a', 'b', 'c', 'd'], sizeBytes: (i % 7) * 1000 + i }));
  const out = nodeStatusImages(images);
  assert.equal(out.length, 50);
  out.slice(1).forEach((img, i) => assert.ok((out[i]?.sizeBytes ?? -Infinity) >= img.sizeBytes, 'sorted by size, descending'));
  assert.ok(out.every((i) => i.names.length === 5));
  assert.deepEqual(out[0]?.names, ['r/img55@sha256:55', 'r/img55:1', 'a', 'b', 'c']);
  assert.equal(nodeStatusImages(images, -1).length, 60, '-1 lifts the cap');
});

test('a node image store lists each image by repo digest then repo tag, and says when a new image arrived', () => {
  let changes = 0;
  const images = new NodeImages({ os: 'linux', arch: 'amd64' }, 0, () => [], () => { changes++; });
  images.add('registry.k8s.io/pause:3.10');
  const r = images.ensure('uid-1', 'nginx:1.27', 'IfNotPresent');
  assert.equal(r.kind, 'pulling');
  const done = (r as { finish(): any }).finish();
  assert.equal(done.kind, 'ready');
  assert.equal(changes, 1);
  // Pulled again with Always: nothing new on the node.
  (images.ensure('uid-2', 'nginx:1.27', 'Always') as { finish(): any }).finish();
  assert.equal(changes, 1);
  const list = nodeStatusImages(images.images());
  assert.deepEqual(list.map((i) => i.names[1]), ['docker.io/library/nginx:1.27', 'registry.k8s.io/pause:3.10']);
  assert.equal(list[0]?.names[0], done.imageID, 'the repo digest is the imageID pods report');
  assert.equal(list[0]?.sizeBytes, 72_195_292);
});

test('the farm registers nodes with the pre-pulled sandbox image and posts new images within nodeStatusUpdateFrequency', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const wheel = new TimerWheel(1000);
  const farm = new NodeFarm(kubeletClient(store), expandPools(DEFAULT_POOLS), () => {}, wheel);
  await farm.start();
  const images = async (name: string) => ((await store.get('', 'nodes', '', name))!.status as any).images;
  const pause = await images('linux-1');
  assert.equal(pause.length, 1);
  assert.match(pause[0].names[0], /^registry\.k8s\.io\/pause@sha256:[0-9a-f]{64}$/);
  assert.deepEqual(pause[0].names.slice(1), ['registry.k8s.io/pause:3.10']);
  assert.equal(pause[0].sizeBytes, 320_368);
  const store1 = new NodeImages({ os: 'linux', arch: 'amd64' }, 0);
  store1.add('registry.k8s.io/pause:3.10');
  store1.add('busybox:1.36');
  farm.setImageSource((n) => (n === 'linux-1' ? store1.images() : undefined));
  farm.imagesChanged('linux-1');
  farm.imagesChanged('linux-1');
  for (let i = 0; i < 9; i++) wheel.advance();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal((await images('linux-1')).length, 1, 'not before the 10 s status update period');
  wheel.advance();
  // The tenth tick's status post is written behind the wheel: wait for it rather than for a fixed time.
  const updated = await eventually(async () => { const list = await images('linux-1'); return list.length > 1 ? list : undefined; }, 'the images in the status update');
  assert.deepEqual(updated.map((i: any) => i.names[1]), ['docker.io/library/busybox:1.36', 'registry.k8s.io/pause:3.10']);
  assert.equal((await images('linux-2')).length, 1);
  await farm.stop();
  await storage.close();
});

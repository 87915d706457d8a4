import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { NodeFarm } from '../../src/node/farm.js';
import { ContainerLogs } from '../../src/node/logs/container-logs.js';
import { Kubelet } from '../../src/node/kubelet/kubelet.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import { kubeletClient } from '../helpers/kubelet-client.js';
import { eventually } from './service-fixture.js';

/**
 * Pod workers start from a queue, in slices between turns of the event loop,
 * not inside the watch callback: a burst of pods bound in one commit all get
 * a worker and runs.
 */
test('a burst of bound pods: every pod gets a worker and runs', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const configs = expandPools(DEFAULT_POOLS);
  const farm = new NodeFarm(kubeletClient(store), configs, () => {}, new TimerWheel(1000));
  await farm.start();
  const events = new EventRecorder(loopback(store), () => {});
  const kubelet = new Kubelet(kubeletClient(store), configs, { logs: new ContainerLogs(), events, pullMs: 0 });
  await kubelet.start();
  const podDef = store.find('', 'v1', 'pods')!;
  const ctx = { ...inProcessWriteContext('test'), namespace: 'default' };
  const pod = (name: string, nodeName: string) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }], containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] },
  });
  await store.create(store.find('', 'v1', 'serviceaccounts')!, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as any, ctx);
  const names = Array.from({ length: 60 }, (_, i) => `p${i}`);
  await Promise.all(names.map((n, i) => store.create(podDef, 'default', pod(n, i % 2 ? 'linux-1' : 'linux-2') as any, ctx)));
  const phases = async () => new Map((await store.listAll('', 'pods', 'default')).map((p) => [p.metadata.name!, (p.status as any)?.phase]));
  const notRunning = async () => [...(await phases()).entries()].filter(([, p]) => p !== 'Running');
  await eventually(async () => ((await notRunning()).length === 0 ? true : undefined), 'every pod Running');
  assert.deepEqual(await notRunning(), []);
  for (const n of names) assert.ok(kubelet.worker('default', n), `${n} has a worker`);
  await kubelet.stop();
  await farm.stop();
  await storage.close();
});

/** The kubelet of the default cluster's nodes on a FakeClock, over in-memory storage: the harness of the clock-driven kubelet tests. */
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from './loopback.js';
import { NodeFarm } from '../../src/node/farm.js';
import { ContainerLogs } from '../../src/node/logs/container-logs.js';
import { Kubelet } from '../../src/node/kubelet/kubelet.js';
import { FakeClock } from '../../src/node/kubelet/clock.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { kubeletClient } from './kubelet-client.js';

export type Obj = Record<string, unknown>;
interface ContainerStatus { ready: boolean; restartCount: number; state: Record<string, { reason?: string }>; lastState: { terminated?: { exitCode: number } } }
export interface PodStatus { containerStatuses?: ContainerStatus[]; conditions?: { type: string; status: string }[] }

/**
 * The kubelet on a clock only the test moves: restarts, back-off waits and
 * probe periods happen when the clock is stepped, not after real seconds
 * (the real waits below only let the in-process writes land).
 */
export async function kubeletOnFakeClock() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const configs = expandPools(DEFAULT_POOLS);
  const farm = new NodeFarm(kubeletClient(store), configs, () => {}, new TimerWheel(1000));
  await farm.start();
  const clock = new FakeClock(Date.parse('2025-06-01T12:00:00Z'));
  const logs = new ContainerLogs();
  const kubelet = new Kubelet(kubeletClient(store), configs, { logs, events: new EventRecorder(loopback(store), () => {}), pullMs: 0, clock });
  await kubelet.start();
  const ctx = { ...inProcessWriteContext('test'), namespace: 'default' };
  await store.create(store.find('', 'v1', 'serviceaccounts')!, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as unknown as KObject, ctx);
  const create = (pod: Obj) => store.create(store.find('', 'v1', 'pods')!, 'default', pod as KObject, ctx);
  const status = async (name: string) => ((await store.get('', 'pods', 'default', name))!.status ?? {}) as PodStatus;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /**
   * Lets the in-process work a clock step started land: until nothing is written for 3 polls in a row.
   * The store's revision counts every write, so the events the recorder writes behind a pod's
   * status are waited for too, not only the pods.
   */
  const podsDef = store.find('', 'v1', 'pods')!;
  const settle = async () => {
    await sleep(100);
    let last = '';
    for (let quiet = 0; quiet < 3;) {
      const revision = String((await store.list(podsDef, 'default')).revision);
      quiet = revision === last ? quiet + 1 : 0;
      last = revision;
      await sleep(30);
    }
  };
  const stop = async () => { await kubelet.stop(); await farm.stop(); await storage.close(); };
  const remove = (name: string) => store.delete(store.find('', 'v1', 'pods')!, 'default', name, {}, ctx);
  const exists = async (name: string) => !!(await store.get('', 'pods', 'default', name));
  /** What `kubectl debug` writes: one more ephemeral container, through pods/ephemeralcontainers. */
  const addEphemeral = (name: string, container: Obj) => store.update(store.find('', 'v1', 'pods')!, 'default', name, (cur) => {
    const spec = (cur.spec ?? {}) as { ephemeralContainers?: Obj[] };
    return { ...cur, spec: { ...spec, ephemeralContainers: [...(spec.ephemeralContainers ?? []), container] } };
  }, ctx, 'ephemeralcontainers');
  /** `type reason fieldPath: message` of the events about a pod, oldest first. */
  const events = async (name: string) => (await store.listAll('', 'events', 'default'))
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!))
    .map((e) => e as unknown as { type: string; reason: string; message: string; involvedObject: { name: string; fieldPath?: string } })
    .filter((e) => e.involvedObject.name === name)
    .map((e) => `${e.type} ${e.reason} ${e.involvedObject.fieldPath ?? ''}: ${e.message}`);
  /** An update of the pod's spec (the fields a pod allows to change), as a client's PUT. */
  const updateSpec = (name: string, change: (spec: Obj) => void) => store.update(store.find('', 'v1', 'pods')!, 'default', name, (cur) => {
    const spec = { ...(cur.spec ?? {}) } as Obj;
    change(spec);
    return { ...cur, spec };
  }, ctx);
  /** The log lines of a container instance. */
  const logLines = async (name: string, container: string, restartCount = 0) => {
    const uid = (await store.get('', 'pods', 'default', name))!.metadata.uid!;
    return logs.lines(uid, container, restartCount).map((l) => l.text);
  };
  return { clock, kubelet, create, status, settle, stop, remove, exists, addEphemeral, updateSpec, events, logLines };
}

export const pod = (name: string, container: Obj, script: Obj, extra: Obj = {}) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'default', annotations: { 'winkube.io/script': JSON.stringify({ app: script }) } },
  spec: { nodeName: 'linux-1', automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }], containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'], ...container }], ...extra },
});

export const summary = (s: PodStatus) => {
  const c = s.containerStatuses?.[0];
  if (!c) return 'no status';
  const state = Object.keys(c.state)[0];
  return `${state}${c.state.waiting ? ` ${c.state.waiting.reason}` : ''} restarts=${c.restartCount}`;
};


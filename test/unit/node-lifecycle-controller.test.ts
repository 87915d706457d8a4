import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NodeLifecycleController, nodeLifecycleOptionsFromEnv } from '../../src/controllers/node-lifecycle/controller.js';
import { parseDuration } from '../../src/apimachinery/duration.js';
import { TaintEvictionController } from '../../src/controllers/node-lifecycle/taint-eviction.js';
import { matchingTolerations, minTolerationMs, noScheduleTaintDiff } from '../../src/controllers/node-lifecycle/taints.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { eventually, fixture } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const micro = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

test('node lifecycle: a silent node goes Unknown, is tainted unreachable, its pods go NotReady and are evicted by toleration', async () => {
  const f = await fixture();
  const leaseDef = f.def('coordination.k8s.io', 'leases');
  const lease = (name: string) => f.store.create(leaseDef, 'kube-node-lease', {
    metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro(new Date()) },
  }, f.ctx('kube-node-lease'));
  await f.node('good', { ready: 'True' });
  await lease('good');
  await f.node('gone', { ready: 'True' });
  await lease('gone');
  await f.node('hand');
  // Renewed every 50 ms against a 1.5 s grace period: a loaded machine's stalls do not make it look silent.
  const renew = setInterval(() => void f.store.update(leaseDef, 'kube-node-lease', 'good', (l: any) => {
    l.spec.renewTime = micro(new Date()); return l;
  }, f.ctx('kube-node-lease')).catch(() => {}), 50);
  const unreachable = (seconds?: number) => [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) }];
  await f.pod('ns', 'now', { node: 'gone', ip: '10.244.9.2', ready: true, tolerations: unreachable(0) });
  await f.pod('ns', 'later', { node: 'gone', ip: '10.244.9.3', ready: true, tolerations: unreachable(3) });
  await f.pod('ns', 'forever', { node: 'gone', ip: '10.244.9.4', ready: true, tolerations: unreachable() });
  await f.pod('ns', 'elsewhere', { node: 'good', ip: '10.244.8.2', ready: true });
  const events = new EventRecorder(loopback(f.store));
  const nlc = new NodeLifecycleController(newControllerContext({ client: loopback(f.store), events: events }), { monitorPeriodMs: 50, gracePeriodMs: 1500, startupGracePeriodMs: 1500, evictionRate: 1000 });
  const tec = new TaintEvictionController(newControllerContext({ client: loopback(f.store), events: events }));
  await nlc.start();
  await tec.start();
  let renew2: NodeJS.Timeout | undefined;
  try {

  const gone: any = await eventually(async () => {
    const n: any = await f.store.get('', 'nodes', '', 'gone');
    return (n.spec.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute') ? n : undefined;
  }, 'unreachable taint');
  const ready = gone.status.conditions.find((c: any) => c.type === 'Ready');
  assert.equal(ready.status, 'Unknown');
  assert.equal(ready.reason, 'NodeStatusUnknown');
  assert.equal(ready.message, 'Kubelet stopped posting node status.');
  const goneNoSchedule = await eventually(async () => {
    const n: any = await f.store.get('', 'nodes', '', 'gone');
    return n.spec.taints.find((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoSchedule');
  }, 'unreachable NoSchedule taint');
  assert.match(goneNoSchedule.timeAdded, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const good: any = await f.store.get('', 'nodes', '', 'good');
  assert.deepEqual(good.spec.taints ?? [], []);
  assert.equal(good.status.conditions.find((c: any) => c.type === 'Ready').status, 'True');

  // A node that never posted status: every condition Unknown, never updated.
  const hand: any = await eventually(async () => {
    const n: any = await f.store.get('', 'nodes', '', 'hand');
    return n.status?.conditions?.length === 4 ? n : undefined;
  }, 'hand conditions');
  assert.deepEqual(hand.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
    ['Ready', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
    ['MemoryPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
    ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
    ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
  ]);

  // Evicted: marked for deletion with the pod's grace period (the kubelet finishes it), DisruptionTarget first.
  const deleting = async (name: string) => {
    const p: any = await f.store.get('', 'pods', 'ns', name);
    return p?.metadata.deletionTimestamp ? p : undefined;
  };
  const now: any = await eventually(() => deleting('now'), 'pod "now" evicted');
  const dt = now.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
  assert.deepEqual([dt.status, dt.reason, dt.message], ['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint']);
  const later: any = await f.store.get('', 'pods', 'ns', 'later');
  assert.equal(later.metadata.deletionTimestamp, undefined, 'a pod tolerating for 3 s is still there');
  assert.equal(later.status.conditions.find((c: any) => c.type === 'Ready').status, 'False');
  await eventually(() => deleting('later'), 'pod "later" evicted');
  assert.equal((await f.store.get('', 'pods', 'ns', 'forever'))!.metadata.deletionTimestamp, undefined);
  assert.equal(((await f.store.get('', 'pods', 'ns', 'elsewhere'))!.status as any).conditions[0].status, 'True');

  // The recorder writes behind the controllers: wait for every event asserted below.
  const evs = await eventually(async () => {
    const items = (await f.store.list(f.def('', 'events'), '')).items as any[];
    const has = (reason: string, kind: string, n = 1) => items.filter((e) => e.reason === reason && e.involvedObject.kind === kind).length >= n;
    return has('NodeNotReady', 'Node') && has('NodeNotReady', 'Pod') && has('TaintManagerEviction', 'Pod', 2) && has('RegisteredNode', 'Node') ? items : undefined;
  }, 'the node and eviction events');
  const nodeNotReady = evs.find((e) => e.reason === 'NodeNotReady' && e.involvedObject.kind === 'Node');
  assert.equal(nodeNotReady.message, 'Node gone status is now: NodeNotReady');
  assert.equal(nodeNotReady.source.component, 'node-controller');
  assert.deepEqual(nodeNotReady.involvedObject, { kind: 'Node', name: 'gone', uid: gone.metadata.uid });
  assert.ok(evs.some((e) => e.reason === 'NodeNotReady' && e.involvedObject.kind === 'Pod' && e.involvedObject.name === 'forever' && e.message === 'Node is not ready' && e.type === 'Warning'));
  const marked = evs.filter((e) => e.reason === 'TaintManagerEviction').map((e) => e.message).sort();
  assert.deepEqual(marked, ['Marking for deletion Pod ns/later', 'Marking for deletion Pod ns/now']);
  assert.ok(evs.some((e) => e.reason === 'RegisteredNode' && e.message === 'Registered Node good in Controller'));

  // The node comes back: the NoExecute and NoSchedule taints go.
  await f.store.update(leaseDef, 'kube-node-lease', 'gone', (l: any) => { l.spec.renewTime = micro(new Date()); return l; }, f.ctx('kube-node-lease'));
  const stamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await f.store.update(f.def('', 'nodes'), '', 'gone', (n: any) => {
    n.status.conditions = n.status.conditions.map((c: any) => (c.type === 'Ready'
      ? { ...c, status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: stamp, lastTransitionTime: stamp } : c));
    return n;
  }, f.ctx(), 'status');
  renew2 = setInterval(() => void f.store.update(leaseDef, 'kube-node-lease', 'gone', (l: any) => {
    l.spec.renewTime = micro(new Date()); return l;
  }, f.ctx('kube-node-lease')).catch(() => {}), 50);
  await eventually(async () => {
    const n: any = await f.store.get('', 'nodes', '', 'gone');
    return (n.spec.taints ?? []).length === 0 ? n : undefined;
  }, 'taints removed');
  } finally {
    clearInterval(renew);
    clearInterval(renew2);
    nlc.stop();
    tec.stop();
    await f.close();
  }
});

test('node lifecycle: cordon adds the unschedulable taint; a Ready node loses the registration not-ready taint', async () => {
  const f = await fixture();
  await f.node('n', { ready: 'True', taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
  const nlc = new NodeLifecycleController(newControllerContext({ client: loopback(f.store) }), { monitorPeriodMs: 50 });
  await nlc.start();
  await eventually(async () => (((await f.store.get('', 'nodes', '', 'n'))!.spec as any).taints === undefined ? true : undefined), 'not-ready taint removed');
  await f.store.update(f.def('', 'nodes'), '', 'n', (n: any) => { n.spec.unschedulable = true; return n; }, f.ctx());
  const taint = await eventually(async () => ((await f.store.get('', 'nodes', '', 'n'))!.spec as any).taints?.[0], 'unschedulable taint');
  assert.equal(taint.key, 'node.kubernetes.io/unschedulable');
  assert.equal(taint.effect, 'NoSchedule');
  await f.store.update(f.def('', 'nodes'), '', 'n', (n: any) => { delete n.spec.unschedulable; return n; }, f.ctx());
  await eventually(async () => (((await f.store.get('', 'nodes', '', 'n'))!.spec as any).taints === undefined ? true : undefined), 'uncordoned');
  // The kubelet reports Ready=False: not-ready, NoSchedule at once and NoExecute through the rate-limited pass.
  await f.node('other', { ready: 'True' }); // the zone is not fully disrupted
  await f.store.update(f.def('', 'nodes'), '', 'n', (n: any) => {
    n.status.conditions[0] = { ...n.status.conditions[0], status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' };
    return n;
  }, f.ctx(), 'status');
  const taints = await eventually(async () => {
    const t = ((await f.store.get('', 'nodes', '', 'n'))!.spec as any).taints ?? [];
    return t.length === 2 ? t : undefined;
  }, 'not-ready taints');
  assert.deepEqual(taints.map((t: any) => [t.key, t.effect]).sort(), [['node.kubernetes.io/not-ready', 'NoExecute'], ['node.kubernetes.io/not-ready', 'NoSchedule']]);
  nlc.stop();
  await f.close();
});

test('taint helpers: tolerations, minimum toleration time, condition taints; durations', () => {
  const taints = [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }];
  assert.deepEqual(matchingTolerations(taints, []), { all: false, used: [] });
  const tol = [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }];
  assert.equal(matchingTolerations(taints, tol).all, true);
  assert.equal(minTolerationMs(matchingTolerations(taints, tol).used), 300_000);
  assert.equal(minTolerationMs([{ operator: 'Exists' }]), -1);
  assert.equal(matchingTolerations([{ key: 'a', value: 'x', effect: 'NoExecute' }], [{ key: 'a', value: 'y' }]).all, false);
  assert.deepEqual(noScheduleTaintDiff({ spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
    status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'True' }] } }), {
    add: [{ key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    remove: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }],
  });
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('5x'), undefined);
  assert.equal(nodeLifecycleOptionsFromEnv({}).gracePeriodMs, 50_000);
  assert.equal(nodeLifecycleOptionsFromEnv({ WINKUBE_NODE_MONITOR_GRACE_PERIOD: '2s' }).gracePeriodMs, 2000);
});

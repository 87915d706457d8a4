import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PersistentVolumeController } from '../../src/controllers/persistentvolume/controller.js';
import { defaultStorageClass, LocalProvisioner } from '../../src/controllers/persistentvolume/provisioner.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { KUBE_SCHEDULER } from '../../src/client/identities.js';
import { SCHEDULER, Scheduler } from '../../src/scheduler/scheduler.js';
import { fixture, eventually } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const until = <T>(what: string, f: () => Promise<T | undefined>) => eventually(f, what);

/** A Ready node with room for pods (the fixture's nodes have no allocatable). */
async function schedulableNode(f: Awaited<ReturnType<typeof fixture>>, name: string): Promise<void> {
  await f.node(name, { ready: 'True' });
  await f.store.update(f.def('', 'nodes'), '', name, (n: any) => {
    n.status.allocatable = { cpu: '4', memory: '16Gi', pods: '110' };
    n.status.capacity = { cpu: '4', memory: '16Gi', pods: '110' };
    return n;
  }, f.ctx(), 'status');
}

test('VolumeBinding PreBind: the claim gets selected-node, the pod is bound only once the claim is Bound', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  await f.store.create(f.def('storage.k8s.io', 'storageclasses'), '', defaultStorageClass(), f.ctx());
  await schedulableNode(f, 'n1');
  const sched = new Scheduler(loopback(f.store, KUBE_SCHEDULER, SCHEDULER), events);
  await sched.start();
  await f.store.create(f.def('', 'persistentvolumeclaims'), 'ns', { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, f.ctx('ns'));
  await f.store.create(f.def('', 'pods'), 'ns', {
    metadata: { name: 'app' },
    spec: {
      // A new node carries the not-ready taint until its kubelet reports; none runs here.
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
  }, f.ctx('ns'));
  const annotated: any = await until('selected-node', async () => {
    const c: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'data');
    return c.metadata.annotations?.['volume.kubernetes.io/selected-node'] ? c : undefined;
  });
  assert.equal(annotated.metadata.annotations['volume.kubernetes.io/selected-node'], 'n1');
  // No PV controller runs yet: the binding cycle waits in PreBind, the pod is not bound.
  assert.equal(((await f.store.get('', 'pods', 'ns', 'app')) as any).spec.nodeName, undefined);
  assert.equal(sched.bindings, 1);

  const ctrl = new PersistentVolumeController(newControllerContext({ client: loopback(f.store), events: events }));
  const prov = new LocalProvisioner(newControllerContext({ client: loopback(f.store), events: events }));
  await ctrl.start();
  await prov.start();
  const pod: any = await until('the pod bound', async () => {
    const p: any = await f.store.get('', 'pods', 'ns', 'app');
    return p.spec.nodeName ? p : undefined;
  });
  assert.equal(pod.spec.nodeName, 'n1');
  const claim: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'data');
  assert.equal(claim.status.phase, 'Bound', 'bound before the pod');
  assert.equal(claim.spec.volumeName, `pvc-${claim.metadata.uid}`);
  await sched.stop();
  ctrl.stop();
  prov.stop();
  await f.close();
});

test('VolumeBinding PreBind: a provisioner that removes selected-node fails the binding cycle with upstream\'s error, and the pod is retried', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  await f.store.create(f.def('storage.k8s.io', 'storageclasses'), '', defaultStorageClass(), f.ctx());
  await schedulableNode(f, 'n1');
  const sched = new Scheduler(loopback(f.store, KUBE_SCHEDULER, SCHEDULER), events);
  await sched.start();
  const pvcs = f.def('', 'persistentvolumeclaims');
  await f.store.create(pvcs, 'ns', { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, f.ctx('ns'));
  await f.store.create(f.def('', 'pods'), 'ns', {
    metadata: { name: 'app' },
    spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
  }, f.ctx('ns'));
  const selected = async () => ((await f.store.get('', 'persistentvolumeclaims', 'ns', 'data')) as any).metadata.annotations?.['volume.kubernetes.io/selected-node'];
  await until('selected-node', async () => ((await selected()) ? true : undefined));
  // What sig-storage-lib-external-provisioner's rescheduleProvisioning does when provisioning on that node failed
  // (the claim keeps the PV controller's provisioner annotation; with no annotation left the error would be "selectedNode annotation reset").
  await f.store.update(pvcs, 'ns', 'data', (c: any) => {
    c.metadata.annotations = { 'volume.kubernetes.io/storage-provisioner': 'winkube.io/local' };
    return c;
  }, f.ctx('ns'));
  const msg = await until('FailedScheduling', async () => {
    const e = (await f.store.list(f.def('', 'events'), 'ns')).items.find((x: any) => x.reason === 'FailedScheduling') as any;
    return e?.message;
  });
  assert.equal(msg, 'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "data"');
  // The scheduler writes the event and the condition side by side: wait for the condition too.
  const cond = await until('the SchedulerError condition', async () => {
    const c = ((await f.store.get('', 'pods', 'ns', 'app')) as any).status.conditions?.find((x: any) => x.type === 'PodScheduled');
    return c?.reason === 'SchedulerError' ? c : undefined;
  });
  assert.deepEqual([cond.status, cond.reason, cond.message], ['False', 'SchedulerError', msg]);
  // After its backoff the pod is scheduled again and its claim gets the node again.
  assert.equal(await until('selected-node again', async () => selected()), 'n1');
  await sched.stop();
  await f.close();
});

test('VolumeBinding PreBind, pre-created local volume: the pod goes to the volume\'s node, the scheduler sets its claimRef, the PV controller completes the binding', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  await f.store.create(f.def('storage.k8s.io', 'storageclasses'), '', {
    metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer',
  }, f.ctx());
  for (const n of ['n1', 'n2']) await schedulableNode(f, n);
  await f.store.create(f.def('', 'persistentvolumes'), '', {
    metadata: { name: 'disk-n2' },
    spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'local', persistentVolumeReclaimPolicy: 'Retain', local: { path: '/mnt/disk' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n2'] }] }] } } },
  }, f.ctx());
  const ctrl = new PersistentVolumeController(newControllerContext({ client: loopback(f.store), events: events }));
  await ctrl.start();
  const sched = new Scheduler(loopback(f.store, KUBE_SCHEDULER, SCHEDULER), events);
  await sched.start();
  await f.store.create(f.def('', 'persistentvolumeclaims'), 'ns', {
    metadata: { name: 'data' }, spec: { storageClassName: 'local', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }, f.ctx('ns'));
  await f.store.create(f.def('', 'pods'), 'ns', {
    metadata: { name: 'app' },
    spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
  }, f.ctx('ns'));
  const pod: any = await until('the pod bound', async () => {
    const p: any = await f.store.get('', 'pods', 'ns', 'app');
    return p.spec.nodeName ? p : undefined;
  });
  assert.equal(pod.spec.nodeName, 'n2');
  const claim: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'data');
  assert.equal(claim.spec.volumeName, 'disk-n2');
  assert.equal(claim.status.phase, 'Bound');
  assert.deepEqual(claim.metadata.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
  const pv: any = await until('the volume Bound', async () => {
    const v: any = await f.store.get('', 'persistentvolumes', '', 'disk-n2');
    return v.status?.phase === 'Bound' ? v : undefined;
  });
  assert.equal(pv.spec.claimRef.uid, claim.metadata.uid);
  assert.deepEqual(pv.metadata.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
  await sched.stop();
  ctrl.stop();
  await f.close();
});

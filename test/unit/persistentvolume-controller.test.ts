import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bindClaimToVolume, bindVolumeToClaim, boundClaimStatus, findBestMatch, volumeSatisfyError,
} from '../../src/component-helpers/pv-helpers.js';
import { PersistentVolumeController } from '../../src/controllers/persistentvolume/controller.js';
import { defaultStorageClass, LocalProvisioner, provisionedVolume } from '../../src/controllers/persistentvolume/provisioner.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { fixture, eventually } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const claim = (name: string, spec: any = {}, extra: any = {}) => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', ...extra },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual', ...spec },
});
const volume = (name: string, storage: string, spec: any = {}, labels?: any) => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], storageClassName: 'manual', hostPath: { path: `/d/${name}` }, ...spec },
  status: { phase: 'Available' },
});

test('findBestMatch: the smallest Available volume of the class, modes, size and labels; a pre-bound volume first; delayed binding only pre-bound', () => {
  const vols = [
    volume('big', '10Gi'), volume('small', '2Gi'), volume('tiny', '500Mi'), volume('other-class', '1Gi', { storageClassName: 'fast' }),
    volume('rwx-only', '1Gi', { accessModes: ['ReadWriteMany'] }), volume('block', '1Gi', { volumeMode: 'Block' }),
    volume('taken', '1Gi', { claimRef: { namespace: 'ns', name: 'someone-else' } }),
  ];
  assert.equal(findBestMatch(claim('c'), vols, false)?.metadata.name, 'small');
  assert.equal(findBestMatch(claim('c', { storageClassName: 'fast' }), vols, false)?.metadata.name, 'other-class');
  assert.equal(findBestMatch(claim('c', { volumeMode: 'Block' }), vols, false)?.metadata.name, 'block');
  assert.equal(findBestMatch(claim('c', { resources: { requests: { storage: '20Gi' } } }), vols, false), undefined);
  const labelled = [...vols, volume('labelled', '5Gi', {}, { tier: 'gold' })];
  assert.equal(findBestMatch(claim('c', { selector: { matchLabels: { tier: 'gold' } } }), labelled, false)?.metadata.name, 'labelled');
  // Pre-bound by name (no uid yet) wins over a smaller free volume, and is the only match under WaitForFirstConsumer.
  const pre = volume('pre', '5Gi', { claimRef: { namespace: 'ns', name: 'c' } });
  assert.equal(findBestMatch(claim('c'), [...vols, pre], false)?.metadata.name, 'pre');
  assert.equal(findBestMatch(claim('c'), [...vols, pre], true)?.metadata.name, 'pre');
  assert.equal(findBestMatch(claim('c'), vols, true), undefined);
  // Pre-bound to another claim with the same name (different uid): not a match.
  assert.equal(findBestMatch(claim('c'), [volume('x', '1Gi', { claimRef: { namespace: 'ns', name: 'c', uid: 'old' } })], false), undefined);
});

test('checkVolumeSatisfyClaim reasons, and the fields a binding writes on both sides', () => {
  assert.equal(volumeSatisfyError(volume('v', '500Mi'), claim('c')), 'requested PV is too small');
  assert.equal(volumeSatisfyError(volume('v', '1Gi', { storageClassName: 'x' }), claim('c')), 'storageClassName does not match');
  assert.equal(volumeSatisfyError(volume('v', '1Gi', { volumeMode: 'Block' }), claim('c')), 'incompatible volumeMode');
  assert.equal(volumeSatisfyError(volume('v', '1Gi', { accessModes: ['ReadOnlyMany'] }), claim('c')), 'incompatible accessMode');
  assert.equal(volumeSatisfyError(volume('v', '1Gi'), claim('c')), undefined);

  const c = claim('c');
  const pv = bindVolumeToClaim(volume('v', '2Gi'), c)!;
  assert.deepEqual(pv.spec.claimRef, { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'c', uid: 'uid-c', apiVersion: 'v1', resourceVersion: '7' });
  assert.deepEqual(pv.metadata.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
  assert.equal(bindVolumeToClaim(pv, c), undefined, 'already bound: nothing to write');
  // A volume the user (or a provisioner) pre-bound keeps its annotations.
  const preBound = bindVolumeToClaim(volume('p', '2Gi', { claimRef: { namespace: 'ns', name: 'c' } }), c)!;
  assert.equal(preBound.metadata.annotations, undefined);
  assert.equal(preBound.spec.claimRef.uid, 'uid-c');

  const bound = bindClaimToVolume(c, pv)!;
  assert.equal(bound.spec.volumeName, 'v');
  assert.deepEqual(bound.metadata.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes', 'pv.kubernetes.io/bind-completed': 'yes' });
  assert.equal(bindClaimToVolume(bound, pv), undefined);
  // The user named the volume: only bind-completed.
  const named = bindClaimToVolume(claim('n', { volumeName: 'v' }), pv)!;
  assert.deepEqual(named.metadata.annotations, { 'pv.kubernetes.io/bind-completed': 'yes' });
  assert.deepEqual(boundClaimStatus(c, pv), { phase: 'Bound', accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], capacity: { storage: '2Gi' } });
});

test('the provisioned volume: pvc-<uid>, pinned to the node, a local directory per OS, the class reclaim policy', () => {
  const c = claim('data', { storageClassName: 'standard' });
  const linux = provisionedVolume(c, defaultStorageClass(), { metadata: { name: 'kind-worker', labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': 'kind-worker' } } });
  assert.deepEqual(linux, {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: { name: 'pvc-uid-data', annotations: { 'pv.kubernetes.io/provisioned-by': 'winkube.io/local' } },
    spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'standard',
      volumeMode: 'Filesystem',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'data', uid: 'uid-data', apiVersion: 'v1', resourceVersion: '7' },
      local: { path: '/var/lib/winkube/storage/pvc-uid-data' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['kind-worker'] }] }] } },
    },
  });
  const win = provisionedVolume(c, { ...defaultStorageClass(), reclaimPolicy: 'Retain' }, { metadata: { name: 'win-1', labels: { 'kubernetes.io/os': 'windows' } } });
  assert.deepEqual(win.spec.local, { path: 'C:\\ProgramData\\winkube\\storage\\pvc-uid-data' });
  assert.equal(win.spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.deepEqual(win.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, ['win-1']);
});

const until = <T>(what: string, f: () => Promise<T | undefined>) => eventually(f, what);

test('controller and provisioner: a delayed claim waits for selected-node, is provisioned and bound; deleting it deletes the volume', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  await f.store.create(f.def('storage.k8s.io', 'storageclasses'), '', defaultStorageClass(), f.ctx());
  await f.node('w1', { ready: 'True', labels: { 'kubernetes.io/os': 'windows' } });
  const ctrl = new PersistentVolumeController(newControllerContext({ client: loopback(f.store), events: events }));
  const prov = new LocalProvisioner(newControllerContext({ client: loopback(f.store), events: events }));
  await ctrl.start();
  await prov.start();
  const pvcs = f.def('', 'persistentvolumeclaims');
  const pvs = f.def('', 'persistentvolumes');
  const created = await f.store.create(pvcs, 'ns', { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } } } }, f.ctx('ns'));
  // DefaultStorageClass admission filled the class.
  assert.equal((created as any).spec.storageClassName, 'standard');
  // Distinct messages: the controller repeats its events on each sync, as upstream's does.
  const msgs = async (reason: string) => [...new Set((await f.store.list(f.def('', 'events'), 'ns')).items
    .filter((e: any) => e.reason === reason && e.involvedObject.name === 'data').map((e: any) => e.message))];
  await until('the WaitForFirstConsumer event', async () => ((await msgs('WaitForFirstConsumer')).length ? true : undefined));
  assert.deepEqual(await msgs('WaitForFirstConsumer'), ['waiting for first consumer to be created before binding']);
  let cur: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'data');
  assert.equal(cur.metadata.annotations, undefined, 'no provisioner annotation before a node is selected');
  assert.equal(cur.status.phase, 'Pending');

  // What the scheduler's PreBind writes.
  await f.store.update(pvcs, 'ns', 'data', (c: any) => { c.metadata.annotations = { 'volume.kubernetes.io/selected-node': 'w1' }; return c; }, f.ctx('ns'));
  cur = await until('the claim bound', async () => {
    const c: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'data');
    return c.status?.phase === 'Bound' ? c : undefined;
  });
  const pvName = `pvc-${cur.metadata.uid}`;
  assert.equal(cur.spec.volumeName, pvName);
  assert.deepEqual(cur.metadata.annotations, {
    'volume.kubernetes.io/selected-node': 'w1', 'volume.beta.kubernetes.io/storage-provisioner': 'winkube.io/local',
    'volume.kubernetes.io/storage-provisioner': 'winkube.io/local', 'pv.kubernetes.io/bound-by-controller': 'yes', 'pv.kubernetes.io/bind-completed': 'yes',
  });
  assert.deepEqual(cur.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '3Gi' } });
  const pv: any = await until('the volume bound', async () => {
    const v: any = await f.store.get('', 'persistentvolumes', '', pvName);
    return v?.status?.phase === 'Bound' ? v : undefined;
  });
  assert.deepEqual(pv.metadata.annotations, { 'pv.kubernetes.io/provisioned-by': 'winkube.io/local' });
  assert.equal(pv.spec.claimRef.uid, cur.metadata.uid);
  assert.deepEqual(pv.spec.local, { path: `C:\\ProgramData\\winkube\\storage\\${pvName}` });
  assert.deepEqual(pv.metadata.finalizers, ['kubernetes.io/pv-protection']);
  // The provisioner's last event is written behind the volume it made.
  await until('the ProvisioningSucceeded event', async () => ((await msgs('ProvisioningSucceeded')).length ? true : undefined));
  assert.deepEqual(await msgs('ExternalProvisioning'), [
    "Waiting for a volume to be created either by the external provisioner 'winkube.io/local' or manually by the system administrator. " +
    'If volume creation is delayed, please verify that the provisioner is running and correctly registered.']);
  assert.deepEqual(await msgs('Provisioning'), ['External provisioner is provisioning volume for claim "ns/data"']);
  assert.deepEqual(await msgs('ProvisioningSucceeded'), [`Successfully provisioned volume ${pvName}`]);

  // A scheduled pod using the claim keeps it (pvc-protection) until it terminates.
  await f.store.create(f.def('', 'pods'), 'ns', {
    metadata: { name: 'user' }, spec: { nodeName: 'w1', containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
  }, f.ctx('ns'));
  await f.store.delete(pvcs, 'ns', 'data', {}, f.ctx('ns'));
  await until('the controller to see the deletion', async () => ((ctrl.claims.get('ns/data') as any)?.metadata.deletionTimestamp ? true : undefined));
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(await f.store.get('', 'persistentvolumeclaims', 'ns', 'data'), 'kept while the pod uses it');
  await f.setPodStatus('ns', 'user', (s) => { s.phase = 'Succeeded'; });
  await until('the claim gone', async () => (await f.store.get('', 'persistentvolumeclaims', 'ns', 'data') ? undefined : true));
  // Released, then deleted by its provisioner (reclaim policy Delete), the pv-protection finalizer removed once not Bound.
  await until('the volume gone', async () => (await f.store.get('', 'persistentvolumes', '', pvName) ? undefined : true));
  ctrl.stop();
  prov.stop();
  void pvs;
  await f.close();
});

test('controller: an Immediate claim binds the smallest matching static volume; one naming a volume too small gets VolumeMismatch', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  await f.store.create(f.def('storage.k8s.io', 'storageclasses'), '', { metadata: { name: 'manual' }, provisioner: 'kubernetes.io/no-provisioner' }, f.ctx());
  const pvs = f.def('', 'persistentvolumes');
  const pvcs = f.def('', 'persistentvolumeclaims');
  for (const [name, size] of [['pv-5', '5Gi'], ['pv-2', '2Gi']]) {
    await f.store.create(pvs, '', { metadata: { name }, spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/d/${name}` } } }, f.ctx());
  }
  const ctrl = new PersistentVolumeController(newControllerContext({ client: loopback(f.store), events: events }));
  await ctrl.start();
  await until('volumes Available', async () => {
    const items = (await f.store.list(pvs, '')).items as any[];
    return items.every((v) => v.status?.phase === 'Available') ? true : undefined;
  });
  await f.store.create(pvcs, 'ns', { metadata: { name: 'c' }, spec: { storageClassName: 'manual', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, f.ctx('ns'));
  const c: any = await until('bound', async () => {
    const o: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'c');
    return o.status?.phase === 'Bound' ? o : undefined;
  });
  assert.equal(c.spec.volumeName, 'pv-2');
  assert.deepEqual(c.status.capacity, { storage: '2Gi' });
  const pv: any = await until('pv bound', async () => {
    const o: any = await f.store.get('', 'persistentvolumes', '', 'pv-2');
    return o.status?.phase === 'Bound' ? o : undefined;
  });
  assert.deepEqual(pv.metadata.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
  assert.equal(pv.spec.claimRef.name, 'c');

  await f.store.create(pvcs, 'ns', { metadata: { name: 'big' }, spec: { storageClassName: 'manual', volumeName: 'pv-5', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }, f.ctx('ns'));
  const mismatch = await until('VolumeMismatch', async () => {
    const e = (await f.store.list(f.def('', 'events'), 'ns')).items.find((x: any) => x.reason === 'VolumeMismatch') as any;
    return e?.message;
  });
  assert.equal(mismatch, 'Cannot bind to requested volume "pv-5": requested PV is too small');
  assert.equal(((await f.store.get('', 'persistentvolumeclaims', 'ns', 'big')) as any).status.phase, 'Pending');
  ctrl.stop();
  await f.close();
});

test('provisioner: a selected node that does not exist fails provisioning and hands the claim back to the scheduler', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  await f.store.create(f.def('storage.k8s.io', 'storageclasses'), '', defaultStorageClass(), f.ctx());
  const ctrl = new PersistentVolumeController(newControllerContext({ client: loopback(f.store), events: events }));
  const prov = new LocalProvisioner(newControllerContext({ client: loopback(f.store), events: events }));
  await ctrl.start();
  await prov.start();
  await f.store.create(f.def('', 'persistentvolumeclaims'), 'ns', {
    metadata: { name: 'data', annotations: { 'volume.kubernetes.io/selected-node': 'gone' } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }, f.ctx('ns'));
  const failed = await until('ProvisioningFailed', async () =>
    ((await f.store.list(f.def('', 'events'), 'ns')).items.find((e: any) => e.reason === 'ProvisioningFailed') as any)?.message);
  assert.equal(failed, 'failed to provision volume with StorageClass "standard": nodes "gone" not found');
  const c: any = await until('selected-node removed', async () => {
    const o: any = await f.store.get('', 'persistentvolumeclaims', 'ns', 'data');
    return o.metadata.annotations?.['volume.kubernetes.io/selected-node'] ? undefined : o;
  });
  assert.equal(c.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'winkube.io/local');
  assert.equal((await f.store.list(f.def('', 'persistentvolumes'), '')).items.length, 0);
  ctrl.stop();
  prov.stop();
  await f.close();
});

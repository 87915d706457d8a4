import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printerFor } from '../../src/registry/printers/index.js';
import { fixture } from './service-fixture.js';

test('storageclasses: defaults, validation, fields fixed after creation, and the printer marks the default class', async () => {
  const f = await fixture();
  const def = f.def('storage.k8s.io', 'storageclasses');
  const sc: any = await f.store.create(def, '', { metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'example.com/disk' }, f.ctx());
  assert.equal(sc.reclaimPolicy, 'Delete');
  assert.equal(sc.volumeBindingMode, 'Immediate');
  await assert.rejects(f.store.create(def, '', { metadata: { name: 'bad' }, provisioner: '', volumeBindingMode: 'Later' }, f.ctx()),
    (e: any) => /provisioner: Required value/.test(e.message) && /volumeBindingMode: Unsupported value: "Later"/.test(e.message));
  await assert.rejects(f.store.update(def, '', 'fast', (o: any) => { o.provisioner = 'example.com/other'; o.reclaimPolicy = 'Retain'; return o; }, f.ctx()),
    (e: any) => /provisioner: Forbidden: updates to provisioner are forbidden\./.test(e.message) && /reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden\./.test(e.message));
  const printer = printerFor('storage.k8s.io', 'storageclasses');
  assert.deepEqual(printer.columns.map((c) => c.name), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  assert.deepEqual(printer.cells(sc, Date.now()).slice(0, 5), ['fast (default)', 'example.com/disk', 'Delete', 'Immediate', 'false']);
  await f.close();
});

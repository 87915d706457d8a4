/**
 * The validating half of the Priority admission plugin through the real
 * Store: only one PriorityClass may be globalDefault, on create and update
 * (plugin/pkg/admission/priority/admission.go validatePriorityClass).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';

const defs = allResources();
const pcs: ResourceDef = defs.find((d) => d.group === 'scheduling.k8s.io' && d.resource === 'priorityclasses')!;
const ctx = (): WriteContext => ({ namespace: '', now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {} });
const pc = (name: string, value: number, globalDefault?: boolean) =>
  ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...(globalDefault === undefined ? {} : { globalDefault }) });

function refusedAsSecondDefault(name: string, current: string) {
  return (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.deepEqual(e.status, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `priorityclasses.scheduling.k8s.io "${name}" is forbidden: PriorityClass ${current} is already marked as default. Only one default can exist`,
      reason: 'Forbidden', details: { name, group: 'scheduling.k8s.io', kind: 'priorityclasses' }, code: 403,
    });
    return true;
  };
}

test('a second globalDefault PriorityClass is refused on create and on update; the default itself may be re-saved', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, defs);
  await store.create(pcs, '', pc('first', 100, true), ctx());
  await assert.rejects(store.create(pcs, '', pc('second', 200, true), ctx()), refusedAsSecondDefault('second', 'first'));
  await store.create(pcs, '', pc('third', 300, false), ctx());
  await assert.rejects(store.update(pcs, '', 'third', (o) => ({ ...o, globalDefault: true }), ctx()), refusedAsSecondDefault('third', 'first'));
  const resaved = await store.update(pcs, '', 'first', (o) => ({ ...o, description: 'the default' }), ctx());
  assert.equal(resaved.globalDefault, true);
  // Once the default gives the flag up, another class may take it.
  await store.update(pcs, '', 'first', (o) => ({ ...o, globalDefault: false }), ctx());
  assert.equal((await store.update(pcs, '', 'third', (o) => ({ ...o, globalDefault: true }), ctx())).globalDefault, true);
  await storage.close();
});

/**
 * Golden defaulting cases for the non-core groups: the request body run
 * through the store's create-time steps (metadata, defaults,
 * prepareForCreate) must equal upstream's answer, volatile keys aside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupResources } from '../../src/registry/groups/index.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { goldenCases, normalize } from '../helpers/golden.js';

const CASES = ['gen-default-deployment', 'gen-default-daemonset', 'gen-default-replicaset',
  'gen-default-statefulset', 'gen-default-cronjob', 'gen-default-runtimeclass'];

const ctx: WriteContext = { namespace: '', now: new Date('2026-01-01T00:00:00Z'), dryRun: false, fieldManager: 'test', warn: () => {} };

/** The def a request path names: /apis/<group>/<version>/[namespaces/<ns>/]<resource>. */
function defFor(path: string): { def: ResourceDef; namespace: string } {
  const parts = path.split('/').filter(Boolean);
  const [, group, version, ...rest] = parts;
  const namespace = rest[0] === 'namespaces' ? rest[1] ?? '' : '';
  const resource = rest[0] === 'namespaces' ? rest[2] : rest[0];
  const def = groupResources.find((d) => d.group === group && d.version === version && d.resource === resource);
  assert.ok(def, `no def for ${path}`);
  return { def, namespace };
}

/** What Store.create does before validation. */
function createSteps(def: ResourceDef, namespace: string, body: KObject): KObject {
  const obj = structuredClone(body);
  const meta = obj.metadata;
  if (def.namespaced) meta.namespace = namespace;
  meta.uid = '00000000-0000-0000-0000-000000000001';
  meta.creationTimestamp = '2026-01-01T00:00:00Z';
  if (def.hasGeneration) meta.generation = 1;
  def.defaults?.(obj);
  def.prepareForCreate?.(obj, { ...ctx, namespace });
  return obj;
}

for (const c of goldenCases('gen-default-').filter((g) => CASES.includes(g.name))) {
  test(`golden ${c.name}`, () => {
    const { def, namespace } = defFor(c.request.path);
    const got = createSteps(def, namespace, c.request.body as KObject);
    assert.deepEqual(normalize(JSON.parse(JSON.stringify(got))), normalize(c.response.body));
    assert.deepEqual(def.validate?.(got) ?? [], []);
  });
}

test('every golden case named here exists', () => {
  assert.equal(goldenCases('gen-default-').filter((g) => CASES.includes(g.name)).length, CASES.length);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generate } from '../../scripts/gen-patch-schema.js';
import { EMPTY_SCHEMA, hasPatchSchema, patchSchemaFor, PatchSchema } from '../../src/patch/schema.js';
import { unsupportedPatchTypeStatus, applyPatch, PatchError, patchErrorStatus } from '../../src/patch/index.js';

test('patch schema: built-in kinds resolve to upstream strategies', () => {
  const dep = patchSchemaFor('apps', 'v1', 'Deployment');
  const podSpec = dep.lookupForMap('spec').schema.lookupForMap('template').schema.lookupForMap('spec').schema;
  const containers = podSpec.lookupForSlice('containers');
  assert.deepEqual([containers.strategies, containers.mergeKey], [['merge'], 'name']);
  assert.deepEqual(containers.schema.lookupForSlice('env').mergeKey, 'name');
  assert.deepEqual(podSpec.lookupForSlice('volumes').strategies, ['merge', 'retainKeys']);
  assert.deepEqual(podSpec.lookupForSlice('tolerations').strategies, []);
  assert.deepEqual(dep.lookupForMap('spec').schema.lookupForMap('strategy').strategies, ['retainKeys']);
  assert.deepEqual(dep.lookupForMap('metadata').schema.lookupForSlice('finalizers').strategies, ['merge']);
  assert.deepEqual(patchSchemaFor('policy', 'v1', 'PodDisruptionBudget').lookupForMap('spec').schema
    .lookupForMap('selector').strategies, ['replace']);
  assert.ok(hasPatchSchema('', 'v1', 'Pod'));
  assert.ok(!hasPatchSchema('example.com', 'v1', 'Widget'));
  assert.equal(patchSchemaFor('example.com', 'v1', 'Widget'), EMPTY_SCHEMA);
  assert.equal(EMPTY_SCHEMA.lookupForMap('anything').schema, EMPTY_SCHEMA);
});

test('patch schema: the committed file is compact (no descriptions)', () => {
  const raw = readFileSync(new URL('../../../src/patch/patch-schema.json', import.meta.url), 'utf8');
  assert.ok(!raw.includes('description'));
  assert.ok(raw.length < 40_000);
});

test('patch schema: generator keeps only fields that carry or lead to strategies', () => {
  const data = generate({
    info: { version: 'v9' },
    definitions: {
      'io.k8s.api.demo.v1.Thing': {
        'x-kubernetes-group-version-kind': [{ group: 'demo', version: 'v1', kind: 'Thing' }, { group: 'demo', version: 'v1', kind: 'ThingList' }],
        properties: {
          spec: { $ref: '#/definitions/io.k8s.api.demo.v1.ThingSpec' },
          note: { type: 'string' },
          other: { $ref: '#/definitions/io.k8s.api.demo.v1.Plain' },
        },
      },
      'io.k8s.api.demo.v1.ThingSpec': {
        properties: {
          parts: { type: 'array', items: { $ref: '#/definitions/io.k8s.api.demo.v1.Plain' }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'id' },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
          byName: { type: 'object', additionalProperties: { $ref: '#/definitions/io.k8s.api.demo.v1.ThingSpec' } },
        },
      },
      'io.k8s.api.demo.v1.Plain': { properties: { id: { type: 'string' } } },
    },
  });
  assert.deepEqual(data, {
    source: 'Kubernetes v9',
    kinds: { 'demo/v1/Thing': 'demo.v1.Thing' },
    defs: {
      'demo.v1.Thing': { spec: { ref: 'demo.v1.ThingSpec' } },
      'demo.v1.ThingSpec': {
        byName: { values: 'demo.v1.ThingSpec' },
        parts: { strategy: 'merge', key: 'id', list: true },
        tags: { strategy: 'merge', list: true },
      },
    },
  });
  const spec = PatchSchema.of(data, 'demo.v1.Thing').lookupForMap('spec').schema;
  assert.equal(spec.lookupForMap('byName').schema.lookupForMap('x').schema.lookupForSlice('parts').mergeKey, 'id');
});

test('index: unsupported content types', () => {
  assert.throws(() => applyPatch('application/json', {}, '{}', { group: '', version: 'v1', kind: 'Pod' }),
    (e: unknown) => e instanceof PatchError && patchErrorStatus(e).code === 500);
  assert.deepEqual(unsupportedPatchTypeStatus(false), {
    code: 415,
    reason: 'UnsupportedMediaType',
    message: 'the body of the request was in an unknown format - accepted media types include: '
      + 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  });
});

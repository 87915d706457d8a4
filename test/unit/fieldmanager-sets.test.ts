/**
 * Field sets as structured-merge-diff's fieldpath.Set: FieldsV1 in and out,
 * the set algebra server-side apply is built on, and paths as conflicts print them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { format, generate, readDefinitions } from '../../scripts/gen-fieldmanager-schema.js';
import {
  FieldSet, difference, fromFieldsV1, intersection, keyPE, pathString, recursiveDifference, setFromPaths, toFieldsV1, union, valuePE,
} from '../../src/fieldmanager/fieldset.js';
import { builtinSchema } from '../../src/fieldmanager/schema.js';
import { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, validate } from '../../src/fieldmanager/typed.js';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields, isResetManagedFields, managerIdentifier, ManagedFieldsError } from '../../src/fieldmanager/managed.js';
import { join } from 'node:path';
import { GOLDEN_DIR } from '../helpers/golden.js';

const paths = (s: FieldSet) => s.paths().map(pathString);

test('FieldsV1: "." marks a node that is a member and has members below; round trip', () => {
  const v1 = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:replicas': {} },
  };
  const s = fromFieldsV1(v1);
  // Depth first, the members of a node before what lies below its children.
  assert.deepEqual(paths(s), [
    '.metadata.labels', '.metadata.labels.app', '.spec.replicas',
    '.spec.containers[name="web"]', '.spec.containers[name="web"].image', '.spec.containers[name="web"].name',
  ]);
  assert.deepEqual(toFieldsV1(s), v1);
  assert.ok(s.has(['f:spec', 'f:replicas']));
  assert.ok(!s.has(['f:spec']));
  assert.ok(s.has(['f:metadata', 'f:labels']));
});

test('FieldsV1: elements sort as upstream orders them (fields, keys, values, indexes; numbers before strings)', () => {
  const s = setFromPaths([
    ['f:b'], ['f:a'], ['i:2'], [valuePE('x')], [valuePE(10)], [valuePE(9)],
    [keyPE([['port', 80], ['protocol', 'TCP']])], [keyPE([['protocol', 'TCP'], ['port', 443]])],
  ]);
  assert.deepEqual(Object.keys(toFieldsV1(s)), [
    'f:a', 'f:b', 'k:{"port":80,"protocol":"TCP"}', 'k:{"port":443,"protocol":"TCP"}', 'v:9', 'v:10', 'v:"x"', 'i:2',
  ]);
});

test('key elements are canonical: key fields sorted by name, HTML characters escaped as Go does', () => {
  assert.equal(keyPE([['protocol', 'TCP'], ['containerPort', 80]]), 'k:{"containerPort":80,"protocol":"TCP"}');
  assert.equal(valuePE('a<b&c>'), 'v:"a\\u003cb\\u0026c\\u003e"');
  // Client-written elements are re-spelled on the way in.
  const s = fromFieldsV1({ 'f:spec': { 'f:ports': { 'k:{"protocol":"TCP", "port":80}': { '.': {} } } } }, true);
  assert.deepEqual(toFieldsV1(s), { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': {} } } });
  assert.throws(() => fromFieldsV1({ 'x:bogus': {} }, true));
});

test('paths print as in conflict messages', () => {
  assert.equal(pathString(['f:spec', 'f:template', 'f:spec', 'f:containers', keyPE([['name', 'web']]), 'f:image']),
    '.spec.template.spec.containers[name="web"].image');
  assert.equal(pathString(['f:spec', 'f:ports', keyPE([['port', 80], ['protocol', 'TCP']])]), '.spec.ports[port=80,protocol="TCP"]');
  assert.equal(pathString(['f:metadata', 'f:finalizers', valuePE('x')]), '.metadata.finalizers[="x"]');
  assert.equal(pathString(['f:list', 'i:3']), '.list[3]');
});

test('set algebra: union, difference (members only), recursive difference, intersection', () => {
  const a = setFromPaths([['f:a'], ['f:a', 'f:b'], ['f:c', 'f:d'], ['f:e']]);
  const b = setFromPaths([['f:a'], ['f:c', 'f:d'], ['f:x']]);
  assert.deepEqual(paths(union(a, b)), ['.a', '.e', '.x', '.a.b', '.c.d']);
  assert.deepEqual(paths(difference(a, b)), ['.e', '.a.b']);
  assert.deepEqual(paths(recursiveDifference(a, b)), ['.e']);
  assert.deepEqual(paths(intersection(a, b)), ['.a', '.c.d']);
  assert.ok(difference(a, a).empty());
  // Operands are not modified.
  assert.deepEqual(paths(a), ['.a', '.e', '.a.b', '.c.d']);
});

const pod = builtinSchema.kind('', 'v1', 'Pod')!;
const svc = builtinSchema.kind('', 'v1', 'Service')!;

test('ToFieldSet: leaves, list items and map entries are members; struct fields are not', () => {
  const s = toFieldSet(pod, {
    metadata: { labels: { app: 'web' }, finalizers: ['a/b'] },
    spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }], nodeSelector: { os: 'linux' }, tolerations: [{ key: 'k' }] },
  });
  assert.deepEqual(toFieldsV1(s), {
    'f:metadata': { 'f:finalizers': { 'v:"a/b"': {} }, 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } },
      'f:nodeSelector': {},
      'f:tolerations': {},
    },
  });
});

test('Compare: added nodes (containers too), removed and modified leaves; atomic lists compare whole', () => {
  const before = { spec: { containers: [{ name: 'web', image: 'a', env: [{ name: 'X', value: '1' }] }], tolerations: [{ key: 'a' }] } };
  const after = { spec: { containers: [{ name: 'web', image: 'b' }, { name: 'side', image: 'c' }], tolerations: [{ key: 'a' }, { key: 'b' }] } };
  const c = compare(pod, before, after);
  assert.deepEqual(paths(c.added), ['.spec.containers[name="side"]', '.spec.containers[name="side"].image', '.spec.containers[name="side"].name']);
  assert.deepEqual(paths(c.removed), [
    '.spec.containers[name="web"].env', '.spec.containers[name="web"].env[name="X"]',
    '.spec.containers[name="web"].env[name="X"].name', '.spec.containers[name="web"].env[name="X"].value',
  ]);
  assert.deepEqual(paths(c.modified), ['.spec.tolerations', '.spec.containers[name="web"].image']);
});

test('Merge: map lists merge by key (applied order for shared items), sets union, atomic lists and maps are replaced, maps merge', () => {
  const live = {
    metadata: { labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] },
    spec: {
      containers: [{ name: 'a', image: 'a1' }, { name: 'keep', image: 'k' }, { name: 'b', image: 'b1', env: [{ name: 'E', value: '1' }] }],
      nodeSelector: { os: 'linux', zone: 'z' },
      tolerations: [{ key: 't1' }, { key: 't2' }],
    },
  };
  const config = {
    metadata: { labels: { b: '3' }, finalizers: ['z', 'x'] },
    spec: { containers: [{ name: 'b', image: 'b2' }, { name: 'a' }], nodeSelector: { os: 'windows' }, tolerations: [{ key: 't3' }] },
  };
  assert.deepEqual(merge(pod, live, config), {
    metadata: { labels: { a: '1', b: '3' }, finalizers: ['z', 'x', 'y'] },
    spec: {
      containers: [{ name: 'keep', image: 'k' }, { name: 'b', image: 'b2', env: [{ name: 'E', value: '1' }] }, { name: 'a', image: 'a1' }],
      nodeSelector: { os: 'windows' },
      tolerations: [{ key: 't3' }],
    },
  });
});

test('Merge: a key field with a default (ports\' protocol) may be left out', () => {
  const live = { spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }, { port: 53, protocol: 'UDP' }] } };
  const config = { spec: { ports: [{ port: 80, name: 'http' }] } };
  assert.deepEqual(merge(svc, live, config), { spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 8080, name: 'http' }, { port: 53, protocol: 'UDP' }] } });
});

test('RemoveItems and EnsureNamedFieldsAreMembers', () => {
  const obj = { spec: { containers: [{ name: 'a', image: 'x', env: [{ name: 'E', value: '1' }] }, { name: 'b', image: 'y' }], restartPolicy: 'Always' } };
  const s = setFromPaths([['f:spec', 'f:containers', keyPE([['name', 'b']])], ['f:spec', 'f:containers', keyPE([['name', 'a']]), 'f:env', keyPE([['name', 'E']])]]);
  assert.deepEqual(removeItems(pod, obj, s), { spec: { containers: [{ name: 'a', image: 'x', env: null }], restartPolicy: 'Always' } });
  const named = ensureNamedFieldsAreMembers(setFromPaths([['f:spec', 'f:containers', keyPE([['name', 'a']]), 'f:image'], ['f:metadata', 'f:labels', 'f:x']]), pod);
  assert.deepEqual(paths(named), [
    '.metadata', '.spec', '.metadata.labels', '.metadata.labels.x', '.spec.containers',
    '.spec.containers[name="a"].image',
  ]);
});

test('validation of an applied configuration: undeclared fields, missing keys, duplicates', () => {
  assert.deepEqual(validate(pod, { spec: { contaners: [] } }), [{ path: '.spec.contaners', message: 'field not declared in schema' }]);
  // A container without name has the key's default (""); a repeated key is refused.
  assert.deepEqual(validate(pod, { spec: { containers: [{ image: 'x' }, { name: 'a' }, { name: 'a' }] } }), [
    { path: '.spec.containers', message: 'duplicate entries for key [name="a"]' },
  ]);
  assert.deepEqual(validate(svc, { spec: { ports: [{ name: 'x', protocol: 'TCP' }] } }), []);
  assert.deepEqual(validate(pod, { spec: { hostAliases: [{ hostnames: ['a'] }] } }), [
    { path: '.spec.hostAliases', message: 'element 0: associative list with keys has an element that omits key field "ip" (and doesn\'t have default value)' },
  ]);
  assert.deepEqual(validate(pod, { metadata: { finalizers: [{ a: 1 }] } }), [
    { path: '.metadata.finalizers', message: "element 0: associative list without keys has an element that's a map type" },
  ]);
  // Labels are a map: any key is declared.
  assert.deepEqual(validate(pod, { metadata: { labels: { anything: 'x' } } }), []);
});

test('managedFields: decode, identifiers, upstream sort order, reset, cap of ten Update managers', () => {
  const entries = [
    { manager: 'b', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:02Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } },
    { manager: 'a', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:02Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:y': {} } }, subresource: 'status' },
    { manager: 'z', operation: 'Apply', apiVersion: 'v1', time: '2024-01-01T00:00:09Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:z': {} } } },
  ];
  const m = decodeManagedFields(entries);
  assert.deepEqual([...m.keys()], [
    '{"manager":"b","operation":"Update","apiVersion":"v1"}',
    '{"manager":"a","operation":"Update","apiVersion":"v1","subresource":"status"}',
    '{"manager":"z","operation":"Apply"}',
  ]);
  assert.deepEqual(encodeManagedFields(m).map((e) => e.manager), ['z', 'a', 'b']);
  assert.deepEqual(encodeManagedFields(m)[1], entries[1]);
  assert.throws(() => decodeManagedFields([{ ...entries[0], operation: 'Patch' }]), ManagedFieldsError);
  assert.throws(() => decodeManagedFields([{ ...entries[0], fieldsType: 'FieldsV2' }]), /invalid fieldsType "FieldsV2" in managed fields entry 0/);
  assert.ok(isResetManagedFields([]) && isResetManagedFields([{}]) && !isResetManagedFields(undefined) && !isResetManagedFields(entries));

  const many = decodeManagedFields(Array.from({ length: 12 }, (_, i) => ({
    manager: `m${i}`, operation: 'Update', apiVersion: 'v1', time: `2024-01-01T00:00:${String(10 + i)}Z`, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { [`f:k${i}`]: {} } },
  })));
  capUpdateManagers(many);
  const out = encodeManagedFields(many);
  assert.equal(out.length, 10);
  assert.equal(out[0]?.manager, 'ancient-changes');
  assert.deepEqual(out[0]?.fieldsV1, { 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
  assert.equal(out[0]?.time, '2024-01-01T00:00:12Z');
  assert.equal(managerIdentifier('kubectl', 'Apply', 'apps/v1'), '{"manager":"kubectl","operation":"Apply"}');
});

test('the generated schema data is structure only', () => {
  const raw = readFileSync(new URL('../../../src/fieldmanager/schema-data.json', import.meta.url), 'utf8');
  // Names only: no string holds a space (no prose).
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { strings.push(k); walk(x); }
  };
  walk(JSON.parse(raw).defs);
  assert.ok(strings.length > 1000);
  assert.deepEqual(strings.filter((x) => x.includes(' ')), []);
  assert.ok(raw.length < 80_000);
});

test('the committed schema data is what the generator makes of the golden OpenAPI v3', (t) => {
  const dir = join(GOLDEN_DIR, 'openapi', 'v3');
  if (!existsSync(dir)) return t.skip('no golden OpenAPI');
  const { defs, version } = readDefinitions(dir);
  const committed = readFileSync(new URL('../../../src/fieldmanager/schema-data.json', import.meta.url), 'utf8');
  assert.equal(format(generate(defs, `Kubernetes ${version}`)), committed);
});

test('generator: list types from x-kubernetes-list-type, else from a merge patch strategy; map types; zero objects', () => {
  const ref = (n: string) => ({ allOf: [{ $ref: `#/components/schemas/${n}` }] });
  const data = generate({
    'x.v1.Thing': {
      'x-kubernetes-group-version-kind': [{ group: 'x', version: 'v1', kind: 'Thing' }],
      required: ['spec'],
      properties: { metadata: { default: {}, ...ref('x.v1.Meta') }, spec: { default: {}, ...ref('x.v1.Spec') } },
    },
    'x.v1.Meta': { properties: { name: { type: 'string' } } },
    'x.v1.Spec': {
      required: ['items', 'count'],
      properties: {
        items: { type: 'array', items: ref('x.v1.Item'), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'proto'] },
        merged: { type: 'array', items: ref('x.v1.Item'), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        plain: { type: 'array', items: ref('x.v1.Item') },
        sel: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        byName: { type: 'object', additionalProperties: ref('x.v1.Item') },
        ref: ref('x.v1.Ref'),
        count: { type: 'integer', default: 0 },
      },
    },
    'x.v1.Item': { properties: { name: { type: 'string', default: '' }, proto: { type: 'string', default: 'TCP' } } },
    'x.v1.Ref': { 'x-kubernetes-map-type': 'atomic', properties: { name: { type: 'string' } } },
  });
  assert.deepEqual(data.kinds, { 'x/v1/Thing': 'x.v1.Thing' });
  assert.deepEqual(data.zero['x/v1/Thing'], { metadata: {}, spec: { items: null, count: 0 } });
  assert.deepEqual(data.defs['x.v1.Spec']?.f, {
    byName: { m: 'x.v1.Item' }, count: 0,
    items: { k: ['name', 'proto'], i: 'x.v1.Item', d: { name: '', proto: 'TCP' } },
    merged: { k: ['name'], i: 'x.v1.Item', d: { name: '' } },
    plain: 0, ref: { a: 1 }, sel: { a: 1 }, tags: { s: 1 },
  });
});

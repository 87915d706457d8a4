/**
 * Field validation against upstream's own expectations: the bodies and the
 * expected messages come from kubernetes test/integration/apiserver/
 * field_validation_test.go (v1.32), which runs them against a real API server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { checkApplyPatchYAML, checkBodyFields, checkPatchedFields, fieldValidationOf, type FieldValidation } from '../../src/openapi/field-validation.js';
import { goFloat, goSprintValue, scanJSON, unknownFields, UNTYPED } from '../../src/openapi/strict.js';
import { goMarshal } from '../../src/apimachinery/go-json.js';
import { goQuote } from '../../src/apimachinery/go-quote.js';
import { shapes } from '../../src/openapi/schema.js';
import { applyPatch, type JsonObject } from '../../src/patch/index.js';
import { allResources } from '../../src/registry/resources.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import { StatusError } from '../../src/apimachinery/errors.js';

const deployments = allResources().find((d) => d.group === 'apps' && d.resource === 'deployments')!;

const invalidBodyJSON = `
{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {
    "name": "dupename",
    "name": "test-deployment",
    "labels": {"app": "nginx"},
    "unknownMeta": "metaVal"
  },
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {
        "containers": [{
          "name": "nginx",
          "image": "nginx:latest",
          "unknownNested": "val1",
          "imagePullPolicy": "Always",
          "imagePullPolicy": "Never"
        }]
      }
    }
  }
}`;

const invalidBodyYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: test-deployment
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never`;

const validDeployment = (): KObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name: 'test-deployment', namespace: 'default', labels: { app: 'nginx' }, uid: 'u', resourceVersion: '1' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Always' }] },
    },
  },
});

function create(body: string, directive: FieldValidation, contentType = 'application/json') {
  const obj = contentType === 'application/yaml'
    ? parseDocument(body, { uniqueKeys: false }).toJS() as Record<string, unknown>
    : JSON.parse(body) as Record<string, unknown>;
  const warnings: string[] = [];
  let error: StatusError | undefined;
  try {
    checkBodyFields(deployments, Buffer.from(body), contentType, obj, directive, (w) => warnings.push(w));
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    error = e;
  }
  return { obj, warnings, error };
}

const POST_JSON_ERRORS = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  // Fields both unknown and duplicated are reported as unknown only (typed decoding).
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];

test('create, Strict: 400 with every unknown and duplicate field, in document order', () => {
  const { error } = create(invalidBodyJSON, 'Strict');
  assert.equal(error?.status.code, 400);
  assert.equal(error?.status.reason, 'BadRequest');
  assert.equal(error?.status.message,
    `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${POST_JSON_ERRORS.join(', ')}`);
});

test('create, Warn (and absent): one warning each; unknown fields are dropped', () => {
  const { warnings, obj, error } = create(invalidBodyJSON, 'Warn');
  assert.equal(error, undefined);
  assert.deepEqual(warnings, POST_JSON_ERRORS);
  assert.deepEqual(Object.keys(obj.spec as object), ['paused', 'selector', 'template']);
  assert.deepEqual(Object.keys((obj.metadata as object)), ['name', 'labels']);
  const c = (obj.spec as any).template.spec.containers[0];
  assert.deepEqual(c, { name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Never' });
  assert.equal(fieldValidationOf(new URLSearchParams(''), 'CreateOptions'), 'Warn');
});

test('create, Ignore: no warnings, unknown fields still dropped', () => {
  const { warnings, obj, error } = create(invalidBodyJSON, 'Ignore');
  assert.equal(error, undefined);
  assert.deepEqual(warnings, []);
  assert.equal((obj.spec as any).unknown1, undefined);
  assert.equal((obj.metadata as any).unknownMeta, undefined);
});

test('create, YAML: the YAML converter\'s duplicate keys, then unknown fields in sorted order', () => {
  const yamlDups = [
    'line 5: key "name" already set in map',
    'line 12: key "unknownDupe" already set in map',
    'line 14: key "paused" already set in map',
    'line 28: key "imagePullPolicy" already set in map',
  ];
  const unknown = [
    'unknown field "metadata.unknownMeta"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknownDupe"',
  ];
  const strict = create(invalidBodyYAML, 'Strict', 'application/yaml');
  assert.ok(strict.error?.status.message?.endsWith(
    `strict decoding error: yaml: unmarshal errors:\n  ${yamlDups.join('\n  ')}, ${unknown.join(', ')}`), strict.error?.status.message);
  assert.deepEqual(create(invalidBodyYAML, 'Warn', 'application/yaml').warnings, [...yamlDups, ...unknown]);
});

test('create: a clean body passes untouched; protobuf bodies are not checked', () => {
  const body = JSON.stringify(validDeployment());
  const r = create(body, 'Strict');
  assert.equal(r.error, undefined);
  assert.deepEqual(r.obj, validDeployment());
  const obj = { spec: { bogus: 1 } };
  checkBodyFields(deployments, Buffer.from('k8s\0'), 'application/vnd.kubernetes.protobuf', obj, 'Strict', () => {});
  assert.deepEqual(obj, { spec: { bogus: 1 } });
});

test('create: maps, free-form fields and server-set fields', () => {
  const pods = allResources().find((d) => d.group === '' && d.resource === 'pods')!;
  const body = JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: 'p', labels: { a: '1' }, annotations: { b: '2' },
      managedFields: [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:anything': {} } } }],
    },
    spec: {
      os: { name: 'windows' }, nodeSelector: { 'kubernetes.io/os': 'windows' },
      containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } }, ports: [{ containerPort: 80, protocl: 'TCP' }] }],
      securityContext: { windowsOptions: { runAsUserName: 'x' }, supplementalGroupsPolicy: 'Merge', seLinuxChangePolicy: 'Recursive' },
    },
    status: { phase: 'Pending', hostIPs: [{ ip: '10.0.0.1' }], qosClass: 'BestEffort' },
  }).replace('"a":"1"', '"a":"1","a":"3"');
  const warnings: string[] = [];
  checkBodyFields(pods, Buffer.from(body), 'application/json', JSON.parse(body), 'Warn', (w) => warnings.push(w));
  assert.deepEqual(warnings, ['duplicate field "metadata.labels.a"', 'unknown field "spec.containers[0].ports[0].protocl"']);
});

test('fieldValidation: anything else is a 422 on the options kind', () => {
  assert.equal(fieldValidationOf(new URLSearchParams('fieldValidation=Strict'), 'PatchOptions'), 'Strict');
  assert.equal(fieldValidationOf(new URLSearchParams('fieldValidation=Ignore'), 'PatchOptions'), 'Ignore');
  assert.throws(() => fieldValidationOf(new URLSearchParams('fieldValidation=strict'), 'CreateOptions'), (e: StatusError) => {
    assert.equal(e.status.code, 422);
    assert.equal(e.status.message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"');
    return true;
  });
});

const mergePatchBody = `{
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "template": {
      "spec": {
        "containers": [{
          "name": "nginx",
          "image": "nginx:latest",
          "unknownNested": "val1",
          "imagePullPolicy": "Always",
          "imagePullPolicy": "Never"
        }]
      }
    }
  }
}`;

const jsonPatchBody = `[
  {"op": "add", "path": "/spec/unknown1", "value": "val1", "foo":"bar"},
  {"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
  {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
  {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
  {"op": "add", "path": "/spec/paused", "value": true},
  {"op": "add", "path": "/spec/paused", "value": false},
  {"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
  {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
  {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
]`;

const smpBody = `{
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {
        "containers": [{
          "name": "nginx",
          "unknownNested": "val1",
          "imagePullPolicy": "Always",
          "imagePullPolicy": "Never"
        }]
      }
    }
  }
}`;

function patch(type: string, body: string, directive: FieldValidation, def: ResourceDef = deployments, current = validDeployment()) {
  const patched = applyPatch(type, current as unknown as JsonObject, body, { group: def.group, version: def.version, kind: def.kind }) as unknown as KObject;
  const warnings: string[] = [];
  let error: StatusError | undefined;
  let result: KObject | undefined;
  try {
    result = checkPatchedFields(def, type, body, current, patched, directive, (w) => warnings.push(w));
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    error = e;
  }
  return { result, warnings, error };
}

const PATCH_ERRORS = [
  'duplicate field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
];

test('merge patch: duplicates in the patch, then the patched object\'s unknown fields; Strict is a 422 on "patch"', () => {
  const strict = patch('application/merge-patch+json', mergePatchBody, 'Strict');
  assert.equal(strict.error?.status.code, 422);
  assert.equal(strict.error?.status.reason, 'Invalid');
  const detail = `strict decoding error: ${PATCH_ERRORS.join(', ')}`;
  assert.ok(strict.error?.status.message?.startsWith(' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"apps/v1\\",'));
  assert.ok(strict.error?.status.message?.endsWith(`": ${detail}`));
  const cause = strict.error?.status.details?.causes?.[0];
  assert.equal(cause?.reason, 'FieldValueInvalid');
  assert.equal(cause?.field, 'patch');
  assert.equal(strict.error?.status.details?.kind, undefined);
  const warn = patch('application/merge-patch+json', mergePatchBody, 'Warn');
  assert.deepEqual(warn.warnings, PATCH_ERRORS);
  assert.equal((warn.result!.spec as any).unknown1, undefined);
  assert.equal((warn.result!.spec as any).paused, false);
  const ignore = patch('application/merge-patch+json', mergePatchBody, 'Ignore');
  assert.deepEqual(ignore.warnings, []);
  assert.equal((ignore.result!.spec as any).template.spec.containers[0].unknownNested, undefined);
});

test('merge patch without unknown fields: only the duplicates', () => {
  const body = '{"spec": {"paused": true, "paused": false, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}';
  assert.deepEqual(patch('application/merge-patch+json', body, 'Warn').warnings,
    ['duplicate field "spec.paused"', 'duplicate field "spec.template.spec.containers[0].imagePullPolicy"']);
});

test('JSON patch: the operations\' own unknown and duplicate fields, then the patched object\'s unknown fields', () => {
  const expected = [
    'json patch unknown field "[0].foo"',
    'json patch duplicate field "[1].path"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknown3"',
    'unknown field "spec.unknownDupe"',
  ];
  assert.deepEqual(patch('application/json-patch+json', jsonPatchBody, 'Warn').warnings, expected);
  const strict = patch('application/json-patch+json', jsonPatchBody, 'Strict');
  assert.ok(strict.error?.status.message?.endsWith(`strict decoding error: ${expected.join(', ')}`));
});

test('strategic merge patch: the value shown is the patch as Go prints the decoded map', () => {
  const warn = patch('application/strategic-merge-patch+json', smpBody, 'Warn');
  assert.deepEqual(warn.warnings, PATCH_ERRORS);
  const strict = patch('application/strategic-merge-patch+json', smpBody, 'Strict');
  const value = 'map[spec:map[paused:false selector:map[matchLabels:map[app:nginx]] template:map[metadata:map[labels:map[app:nginx]] ' +
    'spec:map[containers:[map[imagePullPolicy:Never name:nginx unknownNested:val1]]]] unknown1:val1 unknownDupe:valDupe2]]';
  assert.equal(strict.error?.status.message,
    ` "" is invalid: patch: Invalid value: ${goQuote(value)}: strict decoding error: ${PATCH_ERRORS.join(', ')}`);
  assert.equal(strict.error?.status.details?.causes?.[0]?.message,
    `Invalid value: ${goQuote(value)}: strict decoding error: ${PATCH_ERRORS.join(', ')}`);
});

test('patch: fields the stored object already has are not the patch\'s fault', () => {
  const current = validDeployment();
  (current.spec as any).legacy = 1;
  const r = patch('application/strategic-merge-patch+json', '{"spec":{"replicas":3}}', 'Strict', deployments, current);
  assert.equal(r.error, undefined);
  assert.equal((r.result!.spec as any).legacy, 1);
  assert.equal((r.result!.spec as any).replicas, 3);
});

test('server-side apply bodies: YAML duplicate keys only', () => {
  const body = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  paused: false\n  paused: true\n';
  const warnings: string[] = [];
  checkApplyPatchYAML(body, 'Warn', (w) => warnings.push(w));
  assert.deepEqual(warnings, ['line 7: key "paused" already set in map']);
  assert.throws(() => checkApplyPatchYAML(body, 'Strict', () => {}), (e: StatusError) =>
    e.status.code === 400 && e.status.message === 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "paused" already set in map');
  checkApplyPatchYAML(body, 'Ignore', () => assert.fail());
});

test('strict scanner: untyped duplicates at every depth, deduplicated, at most 100', () => {
  assert.deepEqual(scanJSON('{"a":{"b":1,"b":2},"a":[{"c":1,"c":1}]}', UNTYPED).messages,
    ['duplicate field "a.b"', 'duplicate field "a"', 'duplicate field "a[0].c"']);
  const many = `{"spec":{${Array.from({ length: 150 }, (_, i) => `"f${i}":1`).join(',')}}}`;
  assert.equal(scanJSON(many, shapes().forKind('apps', 'v1', 'Deployment')!).messages.length, 100);
  assert.deepEqual(scanJSON('{"spec":{"x\\u0041":1,"x\\u0041":2}}', shapes().forKind('apps', 'v1', 'Deployment')!).messages,
    ['unknown field "spec.xA"']);
});

test('Go formatting helpers', () => {
  assert.equal(goSprintValue('{"b":[1,2.5,"x",null,true],"a":{"z":1e6,"y":0.0001,"w":1.0,"v":123456.0,"u":1234567.0}}'),
    'map[a:map[u:1.234567e+06 v:123456 w:1 y:0.0001 z:1e+06] b:[1 2.5 x <nil> true]]');
  assert.equal(goFloat(1e-5), '1e-05');
  assert.equal(goMarshal({ b: '<&>', a: [1, { d: null, c: true }] }), '{"a":[1,{"c":true,"d":null}],"b":"\\u003c\\u0026\\u003e"}');
  assert.equal(goQuote('a"b\\c\nd\u0001é'), '"a\\"b\\\\c\\nd\\x01é"');
});

test('golden cases: every recorded request and response object fits the schema (nothing would warn or be dropped)', () => {
  const dir = new URL('../../../../shared/golden/cases/', import.meta.url);
  if (!existsSync(dir)) return;
  let checked = 0;
  for (const f of readdirSync(dir)) {
    const c = JSON.parse(readFileSync(new URL(f, dir), 'utf8'));
    for (const body of [c.request?.body, c.response?.body, ...(c.setup ?? []).map((s: { body?: unknown }) => s.body)]) {
      if (!body || typeof body !== 'object' || typeof body.kind !== 'string' || typeof body.apiVersion !== 'string') continue;
      const [g, v] = body.apiVersion.includes('/') ? body.apiVersion.split('/') : ['', body.apiVersion];
      const node = shapes().forKind(g, v, body.kind);
      if (!node) continue;
      checked++;
      assert.deepEqual(unknownFields(body, node, { sortKeys: false, mapKeysInPath: true }).map((u) => u.path), [], `${f}: ${body.kind}`);
    }
  }
  assert.ok(checked > 200);
});

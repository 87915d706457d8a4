import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { applyAdditions } from '../../scripts/gen-openapi-additions.js';
import { check, compact, format, loadGolden, SERVED_GROUP_VERSIONS, stripDoc, stripSchema } from '../../scripts/gen-openapi.js';
import { openApiData, type Schema } from '../../src/openapi/data.js';
import { OpenApiDocuments, servedPaths } from '../../src/openapi/documents.js';
import { definitionV2, isObject, refsOf, v2Document } from '../../src/openapi/expand.js';
import { allResources } from '../../src/registry/resources.js';

const GOLDEN = new URL('../../../../shared/golden/openapi/', import.meta.url);
const DATA_FILE = new URL('../../../src/openapi/openapi-data.json', import.meta.url);

test('openapi data: expands back to the recorded upstream documents, and regenerates to the committed file', { skip: !existsSync(GOLDEN) }, () => {
  const golden = loadGolden(GOLDEN.pathname);
  const data = compact(golden);
  assert.deepEqual(check(data, golden), []);
  applyAdditions(data);
  data.source = openApiData.source;
  assert.equal(format(data), readFileSync(DATA_FILE, 'utf8'));
});

test('openapi data: covers every registered group version that upstream documents', { skip: !existsSync(GOLDEN) }, () => {
  for (const d of allResources()) {
    const key = d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`;
    if (!existsSync(new URL(`v3/${key.replace(/\//g, '_')}.json`, GOLDEN))) continue;
    assert.ok(SERVED_GROUP_VERSIONS.includes(key), `gen-openapi.ts does not keep ${key}`);
    assert.ok(openApiData.docs[key], key);
  }
});

test('openapi data: APIService, which only the v2 recording describes, gives back its recorded v2 definitions and paths', { skip: !existsSync(GOLDEN) }, () => {
  const v2 = JSON.parse(readFileSync(new URL('v2.json', GOLDEN), 'utf8')) as { paths: Record<string, unknown>; definitions: Record<string, unknown> };
  const names = Object.keys(v2.definitions).filter((n) => n.startsWith('io.k8s.kube-aggregator.'));
  assert.equal(names.length, 6);
  for (const n of names) assert.deepEqual(definitionV2(openApiData, n), stripSchema(v2.definitions[n]), n);
  const mine = v2Document(openApiData, ['apis/apiregistration.k8s.io', 'apis/apiregistration.k8s.io/v1']).paths as Record<string, unknown>;
  const recorded = Object.keys(v2.paths).filter((p) => p.startsWith('/apis/apiregistration.k8s.io/'));
  assert.deepEqual(Object.keys(mine).sort(), recorded.sort());
  // The recording predates sendInitialEvents (v1.27), which every list and watch path has since.
  const withoutInitialEvents = (item: unknown) => JSON.parse(JSON.stringify(item), (k, v: unknown) =>
    (Array.isArray(v) ? v.filter((x) => !(isObject(x) && x.name === 'sendInitialEvents')) : v)) as unknown;
  for (const p of recorded) assert.deepEqual(withoutInitialEvents(stripDoc(mine[p])), stripDoc(v2.paths[p]), p);
});

/** Every schema-level "description" keyword (properties called "description" are fields, not prose). */
function descriptions(s: unknown, out: string[] = []): string[] {
  if (Array.isArray(s)) s.forEach((x) => descriptions(x, out));
  else if (isObject(s)) {
    for (const [k, v] of Object.entries(s)) {
      if (k === 'description' && typeof v === 'string') out.push(v);
      else if (k === 'properties' && isObject(v)) Object.values(v).forEach((p) => descriptions(p, out));
      else if (k !== 'enum' && k !== 'default') descriptions(v, out);
    }
  }
  return out;
}

test('openapi data: structure only, no upstream prose, compact', () => {
  assert.deepEqual(descriptions(openApiData.defs), []);
  assert.deepEqual(descriptions(openApiData.defsV2), []);
  assert.deepEqual(descriptions(openApiData.docs), []);
  assert.ok(readFileSync(DATA_FILE).length < 600_000);
  const pod = openApiData.defs['io.k8s.api.core.v1.PodSpec'] as { properties: Record<string, Schema> };
  assert.deepEqual(pod.properties.containers?.['x-kubernetes-patch-merge-key'], 'name');
  assert.deepEqual(pod.properties.resourceClaims?.['x-kubernetes-list-map-keys'], ['name']);
  // v1.32 fields the recording predates.
  assert.ok(pod.properties.resources);
  const container = openApiData.defs['io.k8s.api.core.v1.Container'] as { properties: Record<string, Schema> };
  assert.deepEqual(container.properties.restartPolicy, { type: 'string' });
  assert.equal((openApiData.defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] as Schema).format, 'int-or-string');
});

const docs = new OpenApiDocuments(allResources());

test('openapi v3: the index lists the served group versions under hashed URLs', () => {
  const index = JSON.parse(docs.index().body.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
  const keys = Object.keys(index.paths);
  for (const k of ['api', 'api/v1', 'apis', 'apis/apps', 'apis/apps/v1', 'apis/batch/v1', 'apis/autoscaling/v1', 'apis/autoscaling/v2',
    'apis/policy/v1', 'apis/node.k8s.io/v1', 'apis/scheduling.k8s.io/v1', 'apis/coordination.k8s.io/v1',
    'apis/discovery.k8s.io/v1', 'apis/events.k8s.io/v1', 'apis/networking.k8s.io/v1', 'version']) {
    assert.ok(keys.includes(k), `index lacks ${k}`);
  }
  assert.ok(!keys.includes('apis/storage.k8s.io/v1beta1'));
  for (const [k, { serverRelativeURL }] of Object.entries(index.paths)) {
    const m = /^\/openapi\/v3\/(.+)\?hash=([0-9A-F]{128})$/.exec(serverRelativeURL);
    assert.ok(m, serverRelativeURL);
    assert.equal(m[1], k);
    assert.equal(m[2], docs.v3(k)!.etag);
  }
});

test('openapi v3: documents are self-contained and carry what kubectl looks for', () => {
  const apps = JSON.parse(docs.v3('apis/apps/v1')!.body.toString());
  assert.equal(apps.openapi, '3.0.0');
  assert.equal(apps.info.version, 'v1.32.0');
  for (const key of ['api/v1', 'apis/apps/v1', 'apis/batch/v1', 'version']) {
    const doc = JSON.parse(docs.v3(key)!.body.toString());
    for (const r of refsOf(doc)) assert.ok(doc.components.schemas[r], `${key}: dangling reference ${r}`);
  }
  // kubectl skips client-side validation when the PATCH operation of the kind lists fieldValidation.
  const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.ok(patch.parameters.some((p: { name: string }) => p.name === 'fieldValidation'));
  assert.deepEqual(Object.keys(patch.requestBody.content).sort(), [
    'application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  const dep = apps.components.schemas['io.k8s.api.apps.v1.Deployment'];
  assert.deepEqual(dep['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  assert.equal(dep.description, 'Declarative updates for pods and replica sets: rolls a pod template out and back.');
  const os = apps.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.os;
  assert.ok(os.description.startsWith('The operating system of the pod'));
  assert.deepEqual(os.allOf, [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodOS' }]);
  const list = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].get;
  assert.ok(list.parameters.some((p: { name: string }) => p.name === 'sendInitialEvents'));
});

test('openapi: only registered resources and declared subresources are described', () => {
  const { keep } = servedPaths(allResources());
  assert.ok(keep('/api/v1/namespaces/{namespace}/pods/{name}/status'));
  assert.ok(keep('/api/v1/namespaces/{namespace}/pods/{name}/eviction'));
  assert.ok(keep('/api/v1/watch/namespaces/{namespace}/pods'));
  assert.ok(keep('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'));
  assert.ok(keep('/api/v1/'));
  assert.ok(keep('/version/'));
  assert.ok(keep('/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}/status'));
  // NetworkPolicy's status subresource was removed in v1.28.
  assert.ok(!keep('/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/{name}/status'));
  assert.ok(!keep('/api/v1/namespaces/{namespace}/configmaps/{name}/status'));
  const v2 = JSON.parse(docs.v2Json().body.toString());
  assert.equal(v2.swagger, '2.0');
  assert.ok(v2.paths['/apis/batch/v1/namespaces/{namespace}/cronjobs']);
  assert.ok(v2.paths['/apis/rbac.authorization.k8s.io/v1/roles']);
  assert.ok(v2.paths['/apis/networking.k8s.io/v1/ingresses']);
  assert.ok(!v2.paths['/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/{name}/status']);
  for (const r of refsOf(v2)) assert.ok(v2.definitions[r], `v2: dangling reference ${r}`);
  const ports = v2.definitions['io.k8s.api.core.v1.PodSpec'].properties.containers;
  assert.deepEqual(ports.items, { $ref: '#/definitions/io.k8s.api.core.v1.Container' });
  assert.deepEqual(v2.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], { type: 'string', format: 'int-or-string' });
});

/** A minimal protobuf reader: field number → raw values (Buffers for length-delimited fields). */
function readMessage(buf: Buffer): Map<number, (Buffer | number)[]> {
  const out = new Map<number, (Buffer | number)[]>();
  let pos = 0;
  const varint = () => {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated varint');
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 128;
    }
  };
  while (pos < buf.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    let v: Buffer | number;
    if (wire === 0) v = varint();
    else if (wire === 2) { const len = varint(); v = buf.subarray(pos, pos + len); pos += len; }
    else if (wire === 1) { v = buf.readDoubleLE(pos); pos += 8; }
    else throw new Error(`wire type ${wire}`);
    if (!out.has(field)) out.set(field, []);
    out.get(field)!.push(v);
  }
  return out;
}
const str = (m: Map<number, (Buffer | number)[]>, f: number) => (m.get(f)?.[0] as Buffer | undefined)?.toString('utf8');
const msgs = (m: Map<number, (Buffer | number)[]>, f: number) => (m.get(f) ?? []).map((b) => readMessage(b as Buffer));
/** The first message in field f, which the test expects to be there. */
const msg = (m: Map<number, (Buffer | number)[]>, f: number) => {
  const [first] = msgs(m, f);
  assert.ok(first, `no message in field ${f}`);
  return first;
};

test('openapi v2 protobuf: a gnostic openapi_v2.Document of the same document', () => {
  const json = JSON.parse(docs.v2Json().body.toString());
  const doc = readMessage(docs.v2Protobuf().body);
  assert.equal(str(doc, 1), '2.0');
  const info = msg(doc, 2);
  assert.deepEqual([str(info, 1), str(info, 2)], ['Kubernetes', 'v1.32.0']);
  // definitions: NamedSchema (name = 1, value = 2) in field 1 of Definitions (9).
  const defs = msgs(msg(doc, 9), 1);
  assert.deepEqual(defs.map((d) => str(d, 1)), Object.keys(json.definitions));
  const deployment = msg(defs.find((d) => str(d, 1) === 'io.k8s.api.apps.v1.Deployment')!, 2);
  const ext = msgs(deployment, 31).map((e) => [str(e, 1), str(msg(e, 2), 2)]);
  assert.deepEqual(ext, [['x-kubernetes-group-version-kind', '[{"group":"apps","kind":"Deployment","version":"v1"}]\n']]);
  assert.equal((msg(deployment, 22).get(1)![0] as Buffer).toString(), 'object');
  const props = msgs(msg(deployment, 25), 1).map((p) => str(p, 1));
  assert.deepEqual(props, ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  const spec = msg(msgs(msg(deployment, 25), 1).find((p) => str(p, 1) === 'spec')!, 2);
  assert.equal(str(spec, 1), '#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
  // paths: NamedPathItem in field 2 of Paths (8); the PATCH operation (8) of a deployment.
  const paths = msgs(msg(doc, 8), 2);
  assert.deepEqual(paths.map((p) => str(p, 1)), Object.keys(json.paths));
  const item = msg(paths.find((p) => str(p, 1) === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')!, 2);
  const patch = msg(item, 8);
  assert.equal(str(patch, 5), 'patchAppsV1NamespacedDeployment');
  assert.deepEqual((patch.get(7) as Buffer[]).map(String), json.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch.consumes);
  // parameters: the body parameter first, then query parameters (NonBodyParameter.query = 3, name = 4).
  const params = msgs(patch, 8).map((p) => msg(p, 1));
  const [bodyParam, ...queryParams] = params;
  assert.ok(bodyParam);
  assert.equal(str(msg(bodyParam, 1), 2), 'body');
  const query = queryParams.map((p) => msg(msg(p, 2), 3));
  assert.deepEqual(query.map((q) => str(q, 4)), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(query.map((q) => str(q, 2)), ['query', 'query', 'query', 'query']);
  // path-level parameters: name and namespace are path parameters (PathParameterSubSchema = 4, required = 1).
  const pathParams = msgs(item, 9).flatMap((p) => msgs(msg(msg(p, 1), 2), 4).slice(0, 1));
  assert.deepEqual(pathParams.map((p) => [str(p, 4), p.get(1)?.[0]]), [['name', 1], ['namespace', 1]]);
});

/**
 * CustomResourceDefinitions and the custom resources they define, driven with real kubectl and raw
 * requests: upstream's naming/establishing conditions, discovery of the new kind, CRUD with the
 * schema's pruning, defaults and validation, printer columns, the status and scale subresources,
 * and the cleanup finalizer that deletes a CRD's instances before the CRD.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

// ../shared beside the repository, as the other tests find it.
const CORPUS = new URL('../../../../shared/corpus/crds', import.meta.url).pathname;

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

/** A namespaced CRD with a status and scale subresource, printer columns, defaults and the common value checks. */
const WIDGETS = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      additionalPrinterColumns: [
        { name: 'Color', type: 'string', jsonPath: '.spec.color' },
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1 },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object', required: ['color'],
              properties: {
                color: { type: 'string', enum: ['red', 'green', 'blue'] },
                replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
                size: { type: 'string', pattern: '^[0-9]+(cm|m)$' },
                tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
                extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
            status: {
              type: 'object',
              properties: {
                replicas: { type: 'integer' }, selector: { type: 'string' },
                conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } },
              },
            },
          },
        },
      },
    }],
  },
};

const WIDGETS_PATH = '/apis/example.com/v1/namespaces/default/widgets';

async function createWidgets(): Promise<void> {
  const r = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGETS);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await eventually('widgets served', async () => ((await raw(cluster, 'GET', WIDGETS_PATH)).status === 200 ? true : undefined));
}

test('a created CRD: defaulted spec, stored version, then NamesAccepted and Established as upstream\'s controllers set them', async () => {
  const crd = structuredClone(WIDGETS);
  crd.metadata.name = 'gadgets.example.com';
  Object.assign(crd.spec.names, { plural: 'gadgets', singular: undefined, kind: 'Gadget', shortNames: undefined, categories: undefined });
  const r = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(r.body.spec.names, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' });
  assert.deepEqual(r.body.spec.conversion, { strategy: 'None' });
  assert.equal(r.body.metadata.generation, 1);
  assert.deepEqual(r.body.status, { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
  const established = await eventually('Established', async () => {
    const g = await rawJSON(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com');
    return g.body.status.conditions?.find((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ? g.body : undefined;
  }, 1000);
  const conds = established.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]);
  assert.deepEqual(conds, [
    ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
    ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
  ]);
  assert.deepEqual(established.status.acceptedNames, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' });
  // Serialized in the Go type's field order.
  assert.deepEqual(Object.keys(established.status.acceptedNames), ['plural', 'singular', 'kind', 'listKind']);
});

test('kubectl applies the GMSA CRD, waits for Established, and lists it with the default table', async () => {
  const file = join(cluster.dataDir, 'gmsa.yaml');
  writeFileSync(file, readFileSync(join(CORPUS, 'gmsa__crds.yaml')));
  assert.match(await ok(['apply', '-f', file]), /customresourcedefinition.apiextensions.k8s.io\/gmsacredentialspecs.windows.k8s.io created/);
  await ok(['wait', '--for=condition=Established', '--timeout=60s', 'crd/gmsacredentialspecs.windows.k8s.io']);
  const out = await ok(['get', 'crd', 'gmsacredentialspecs.windows.k8s.io']);
  assert.match(out, /^NAME\s+CREATED AT\ngmsacredentialspecs\.windows\.k8s\.io\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  // discovery.StorageVersionHash of apiextensions.k8s.io/v1 CustomResourceDefinition.
  const ext = await rawJSON(cluster, 'GET', '/apis/apiextensions.k8s.io/v1');
  assert.deepEqual(ext.body.resources[0], {
    name: 'customresourcedefinitions', singularName: 'customresourcedefinition', namespaced: false, kind: 'CustomResourceDefinition',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['crd', 'crds'],
    categories: ['api-extensions'], storageVersionHash: 'M5uH+AlWATY=',
  });
  const resources = await ok(['api-resources', '--api-group=windows.k8s.io']);
  assert.match(resources, /gmsacredentialspecs\s+windows\.k8s\.io\/v1\s+false\s+GMSACredentialSpec/);
  const spec = `apiVersion: windows.k8s.io/v1
kind: GMSACredentialSpec
metadata:
  name: webapp1
credspec:
  ActiveDirectoryConfig:
    GroupManagedServiceAccounts:
    - Name: WebApp1
      Scope: CONTOSO
  CmsPlugins:
  - ActiveDirectory
  DomainJoinConfig:
    DnsName: contoso.com
    NetBiosName: CONTOSO
`;
  assert.match(await ok(['apply', '-f', '-'], spec), /gmsacredentialspec.windows.k8s.io\/webapp1 created/);
  const got = JSON.parse(await ok(['get', 'gmsacredentialspec', 'webapp1', '-o', 'json']));
  assert.equal(got.credspec.DomainJoinConfig.NetBiosName, 'CONTOSO');
  // The deprecated v1alpha1 serves the same object under its own apiVersion (None conversion).
  const old = await rawJSON(cluster, 'GET', '/apis/windows.k8s.io/v1alpha1/gmsacredentialspecs/webapp1');
  assert.equal(old.status, 200);
  assert.equal(old.body.apiVersion, 'windows.k8s.io/v1alpha1');
  // v1alpha1 is deprecated: every request to it is warned, with the newest version not deprecated.
  assert.equal(old.headers.warning, '299 - "windows.k8s.io/v1alpha1 GMSACredentialSpec is deprecated; use windows.k8s.io/v1 GMSACredentialSpec"');
  assert.equal((await rawJSON(cluster, 'GET', '/apis/windows.k8s.io/v1/gmsacredentialspecs/webapp1')).headers.warning, undefined);
  const table = await ok(['get', 'gmsacredentialspecs']);
  assert.match(table, /^NAME\s+AGE\nwebapp1\s+\d+s\n$/);
});

test('a custom resource: discovery with short names and categories, pruning, defaults, printer columns, patch and delete', async () => {
  await createWidgets();
  const resources = await ok(['api-resources', '--api-group=example.com']);
  assert.match(resources, /widgets\s+wd\s+example\.com\/v1\s+true\s+Widget/);
  const list = await rawJSON(cluster, 'GET', '/apis/example.com/v1');
  const widgets = list.body.resources.find((r: { name: string }) => r.name === 'widgets');
  assert.deepEqual(widgets.verbs, ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
  assert.deepEqual(list.body.resources.map((r: { name: string }) => r.name).filter((n: string) => n.startsWith('widgets')),
    ['widgets', 'widgets/scale', 'widgets/status']);

  const created = await rawJSON(cluster, 'POST', WIDGETS_PATH, {
    apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', labels: { tier: 'a' } },
    spec: { color: 'red', unknown: 'dropped', extra: { kept: { deep: true } } }, status: { replicas: 5 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // Pruned (unknown), preserved (extra), defaulted (replicas), and status reset on create with the status subresource.
  assert.deepEqual(created.body.spec, { color: 'red', extra: { kept: { deep: true } }, replicas: 1 });
  assert.equal(created.body.status, undefined);
  assert.equal(created.body.metadata.generation, 1);

  const wide = await ok(['get', 'wd', 'w1', '-o', 'wide']);
  assert.match(wide, /^NAME\s+COLOR\s+REPLICAS\s+READY\s+AGE\nw1\s+red\s+1\s+(<none>\s+)?\d+s\n$/);
  assert.match(await ok(['get', 'widgets', '-l', 'tier=a']), /^NAME\s+COLOR\s+REPLICAS\s+AGE\nw1\s+red\s+1\s+\d+s\n$/);
  assert.equal(await ok(['get', 'widgets', '-l', 'tier=b', '-o', 'name']), '');
  assert.equal(await ok(['get', 'widgets', '--field-selector', 'metadata.name=w1', '-o', 'name']), 'widget.example.com/w1\n');

  // The "all" category brings the kind into `kubectl get all`.
  assert.match(await ok(['get', 'all', '-n', 'default', '-o', 'name']), /^widget\.example\.com\/w1$/m);
  // Server-side apply of a custom resource (its fields tracked without a schema of their own in OpenAPI).
  assert.match(await ok(['apply', '--server-side', '-f', '-'],
    'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  color: red\n  size: 10cm\n'), /widget.example.com\/w1 serverside-applied/);
  assert.equal((await rawJSON(cluster, 'GET', `${WIDGETS_PATH}/w1`)).body.spec.size, '10cm');
  assert.match(await ok(['patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"color":"blue"}}']), /widget.example.com\/w1 patched/);
  const patched = await rawJSON(cluster, 'GET', `${WIDGETS_PATH}/w1`);
  assert.equal(patched.body.spec.color, 'blue');
  assert.equal(patched.body.metadata.generation, 3);

  // The status subresource writes status only, without a new generation.
  const st = await rawJSON(cluster, 'PATCH', `${WIDGETS_PATH}/w1/status`,
    { status: { replicas: 1, conditions: [{ type: 'Ready', status: 'True' }] }, spec: { color: 'green' } },
    { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(st.status, 200, JSON.stringify(st.body));
  assert.equal(st.body.spec.color, 'blue');
  assert.equal(st.body.status.replicas, 1);
  assert.equal(st.body.metadata.generation, 3);
  assert.match(await ok(['get', 'widget', 'w1', '-o', 'wide']), /\nw1\s+blue\s+1\s+True\s+\d+s\n$/);

  // The custom resource strategy refuses unconditional updates: a PUT must name the resourceVersion it replaces.
  const unconditional = await rawJSON(cluster, 'PUT', `${WIDGETS_PATH}/w1`, { ...patched.body, metadata: { name: 'w1', namespace: 'default' } });
  assert.equal(unconditional.status, 422);
  assert.equal(unconditional.body.message, 'widgets.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  const crd = (await rawJSON(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).body;
  const crdPut = await rawJSON(cluster, 'PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com', { ...crd, metadata: { name: crd.metadata.name } });
  assert.equal(crdPut.body.message, 'customresourcedefinitions.apiextensions.k8s.io "widgets.example.com" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');

  // Strategic merge patch is refused for custom resources.
  const smp = await raw(cluster, 'PATCH', `${WIDGETS_PATH}/w1`, { body: '{"spec":{"color":"red"}}', headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
  assert.equal(smp.status, 415, smp.body);

  assert.match(await ok(['delete', 'widget', 'w1']), /widget.example.com "w1" deleted/);
  assert.equal((await raw(cluster, 'GET', `${WIDGETS_PATH}/w1`)).status, 404);
});

test('the scale subresource reads and writes the CRD\'s replica paths (kubectl scale)', async () => {
  const r = await rawJSON(cluster, 'POST', WIDGETS_PATH, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'scaled' }, spec: { color: 'green', replicas: 2 } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await rawJSON(cluster, 'PATCH', `${WIDGETS_PATH}/scaled/status`, { status: { replicas: 2, selector: 'app=scaled' } }, { 'Content-Type': 'application/merge-patch+json' });
  const scale = await rawJSON(cluster, 'GET', `${WIDGETS_PATH}/scaled/scale`);
  assert.equal(scale.status, 200, JSON.stringify(scale.body));
  assert.deepEqual({ kind: scale.body.kind, apiVersion: scale.body.apiVersion, spec: scale.body.spec, status: scale.body.status },
    { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=scaled' } });
  assert.match(await ok(['scale', 'widget', 'scaled', '--replicas=4']), /widget.example.com\/scaled scaled/);
  const got = await rawJSON(cluster, 'GET', `${WIDGETS_PATH}/scaled`);
  assert.equal(got.body.spec.replicas, 4);
  assert.equal(got.body.metadata.generation, 2);
});

test('a bad custom resource is refused with upstream\'s field errors', async () => {
  const r = await kubectl(cluster, ['apply', '-f', '-'], {
    input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  color: pink\n',
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /The Widget "bad" is invalid: spec\.color: Unsupported value: "pink": supported values: "red", "green", "blue"/);
  const cases: [unknown, string][] = [
    [{ replicas: 3 }, 'Widget.example.com "bad" is invalid: spec.color: Required value'],
    [{ color: 'red', replicas: 'three' }, 'Widget.example.com "bad" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    [{ color: 'red', replicas: 11 }, 'Widget.example.com "bad" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10'],
    [{ color: 'red', replicas: -1 }, 'Widget.example.com "bad" is invalid: spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0'],
    [{ color: 'red', size: 'big' }, 'Widget.example.com "bad" is invalid: spec.size: Invalid value: "big": spec.size in body should match \'^[0-9]+(cm|m)$\''],
    [{ color: 'red', tags: ['a', 'b', 'c'] }, 'Widget.example.com "bad" is invalid: spec.tags: Too many: 3: must have at most 2 items'],
    [{ color: 'red', tags: [1] }, 'Widget.example.com "bad" is invalid: spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"'],
  ];
  for (const [spec, message] of cases) {
    const res = await rawJSON(cluster, 'POST', WIDGETS_PATH, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bad' }, spec });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.reason, 'Invalid');
    assert.equal(res.body.message, message);
  }
  assert.equal((await raw(cluster, 'GET', `${WIDGETS_PATH}/bad`)).status, 404);
});

test('fieldValidation on a custom resource: Strict refuses fields the schema does not declare, Warn warns and prunes them', async () => {
  const strict = await kubectl(cluster, ['apply', '-f', '-'], {
    input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: strict\nspec:\n  color: red\n  colour: red\n  tags: [a]\n',
  });
  assert.notEqual(strict.code, 0);
  assert.match(strict.stderr, /Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec\.colour"/);
  assert.equal((await raw(cluster, 'GET', `${WIDGETS_PATH}/strict`)).status, 404);
  const warned = await rawJSON(cluster, 'POST', WIDGETS_PATH, {
    apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'warned' }, spec: { color: 'red', colour: 'red' }, top: 1,
  });
  assert.equal(warned.status, 201, JSON.stringify(warned.body));
  assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.colour\\"", 299 - "unknown field \\"top\\""');
  assert.deepEqual(warned.body.spec, { color: 'red', replicas: 1 });
  assert.equal(warned.body.top, undefined);
});

test('deleting a CRD deletes its instances first, then the CRD, and its resource is no longer served', async () => {
  const crd = structuredClone(WIDGETS);
  crd.metadata.name = 'sprockets.example.org';
  crd.spec.group = 'example.org';
  Object.assign(crd.spec.names, { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', shortNames: ['spr'] });
  const c = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  assert.equal(c.status, 201, JSON.stringify(c.body));
  const path = '/apis/example.org/v1/namespaces/default/sprockets';
  await eventually('sprockets served', async () => ((await raw(cluster, 'GET', path)).status === 200 ? true : undefined));
  for (const name of ['s1', 's2']) {
    const r = await rawJSON(cluster, 'POST', path, { apiVersion: 'example.org/v1', kind: 'Sprocket', metadata: { name }, spec: { color: 'red' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const del = await rawJSON(cluster, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sprockets.example.org');
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.deepEqual(del.body.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  // The CRD's own Delete marks it before the generic store does, which then leaves the generation.
  assert.equal(del.body.metadata.generation, 1);
  const terminating = del.body.status.conditions.find((x: { type: string }) => x.type === 'Terminating');
  assert.deepEqual([terminating.status, terminating.reason, terminating.message],
    ['True', 'InstanceDeletionPending', 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon']);
  await eventually('CRD gone', async () => ((await raw(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sprockets.example.org')).status === 404 ? true : undefined));
  assert.equal((await raw(cluster, 'GET', path)).status, 404);
  const groups = await rawJSON(cluster, 'GET', '/apis');
  assert.equal(groups.body.groups.some((g: { name: string }) => g.name === 'example.org'), false);
  // Re-created, the CRD starts with no instances: they were deleted, not orphaned in storage.
  const again = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  assert.equal(again.status, 201, JSON.stringify(again.body));
  await eventually('sprockets served again', async () => ((await raw(cluster, 'GET', path)).status === 200 ? true : undefined));
  assert.deepEqual((await rawJSON(cluster, 'GET', path)).body.items, []);
});

test('kubectl applies cert-manager\'s Issuer CRD and lists issuers with its printer columns', async () => {
  const file = join(cluster.dataDir, 'issuers.yaml');
  writeFileSync(file, readFileSync(join(CORPUS, 'certmanager__cert-manager.io_issuers.yaml')));
  await ok(['apply', '-f', file]);
  await ok(['wait', '--for=condition=Established', '--timeout=60s', 'crd/issuers.cert-manager.io']);
  await ok(['apply', '-f', '-'], 'apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: selfsigned\nspec:\n  selfSigned: {}\n');
  assert.match(await ok(['get', 'issuers']), /^NAME\s+READY\s+AGE\nselfsigned\s+(<none>\s+)?\d+s\n$/);
});

test('a watch of a custom resource sees its writes; groups of CRDs follow the built-in ones in name order', async () => {
  const list = await rawJSON(cluster, 'GET', WIDGETS_PATH);
  const rv = list.body.metadata.resourceVersion as string;
  // Long enough for the create to land before the watch ends on a loaded machine.
  const watching = raw(cluster, 'GET', `${WIDGETS_PATH}?watch=1&resourceVersion=${rv}&timeoutSeconds=5`);
  const c = await rawJSON(cluster, 'POST', WIDGETS_PATH, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'watched' }, spec: { color: 'green' } });
  assert.equal(c.status, 201);
  const events = (await watching).body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
  assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'watched']]);
  const groups = ((await rawJSON(cluster, 'GET', '/apis')).body.groups as { name: string }[]).map((g) => g.name);
  const custom = groups.slice(groups.indexOf('flowcontrol.apiserver.k8s.io') + 1);
  assert.deepEqual(custom, [...custom].sort());
  assert.ok(custom.includes('example.com') && custom.includes('windows.k8s.io') && custom.includes('cert-manager.io'), groups.join(' '));
});

test('the garbage collector keeps an object a custom resource owns, and deletes it with its owner', async () => {
  const owner = await rawJSON(cluster, 'POST', WIDGETS_PATH, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'owner' }, spec: { color: 'red' } });
  assert.equal(owner.status, 201, JSON.stringify(owner.body));
  const cm = await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'owner', uid: owner.body.metadata.uid }] },
  });
  assert.equal(cm.status, 201, JSON.stringify(cm.body));
  // An owner of a kind the collector had not discovered yet is not a missing owner.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await raw(cluster, 'GET', '/api/v1/namespaces/default/configmaps/owned')).status, 200);
  assert.equal((await rawJSON(cluster, 'DELETE', `${WIDGETS_PATH}/owner`)).status, 200);
  await eventually('owned configmap collected', async () =>
    ((await raw(cluster, 'GET', '/api/v1/namespaces/default/configmaps/owned')).status === 404 ? true : undefined), 10_000);
});

test('a CRD whose kind another CRD of the group already has is not Established (naming controller conflicts)', async () => {
  const crd = structuredClone(WIDGETS);
  crd.metadata.name = 'gizmos.example.com';
  Object.assign(crd.spec.names, { plural: 'gizmos', singular: 'gizmo', shortNames: undefined, categories: undefined });
  const r = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const got = await eventually('names checked', async () => {
    const g = await rawJSON(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com');
    return g.body.status.conditions ? g.body : undefined;
  }, 2000);
  assert.deepEqual(got.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]), [
    ['NamesAccepted', 'False', 'ListKindConflict', '"WidgetList" is already in use'],
    ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
  ]);
  assert.deepEqual(got.status.acceptedNames, { plural: 'gizmos', singular: 'gizmo', kind: '' });
  assert.equal((await raw(cluster, 'GET', '/apis/example.com/v1/namespaces/default/gizmos')).status, 404);
  // Never established, it has no instances to wait for: its finalizer goes at once.
  assert.equal((await rawJSON(cluster, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com')).status, 200);
  await eventually('gizmos CRD gone', async () =>
    ((await raw(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com')).status === 404 ? true : undefined), 3000);
});

test('after a restart, established CRDs are served at once with their instances', async () => {
  await cluster.stop();
  cluster = await startCluster(cluster.dataDir, ['--api-only']);
  const got = await rawJSON(cluster, 'GET', `${WIDGETS_PATH}/scaled`);
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.equal(got.body.spec.replicas, 4);
  assert.match(await ok(['get', 'gmsacredentialspecs', '-o', 'name']), /^gmsacredentialspec\.windows\.k8s\.io\/webapp1$/m);
});

test('every CRD of the corpus (cert-manager, Prometheus operator, Gateway API, Calico, Flux, Argo CD, GMSA) applies server-side and is Established', async () => {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.yaml') && readFileSync(join(CORPUS, f), 'utf8').includes('kind: CustomResourceDefinition'));
  assert.ok(files.length >= 30, files.join(' '));
  for (const f of files) {
    const r = await kubectl(cluster, ['apply', '--server-side', '--force-conflicts', '-f', join(CORPUS, f)]);
    assert.equal(r.code, 0, `${f}: ${r.stderr}`);
  }
  const crds = JSON.parse(await ok(['get', 'crds', '-o', 'json'])) as { items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] | null } }[] };
  const notEstablished = crds.items.filter((c) => !c.status.conditions?.some((x) => x.type === 'Established' && x.status === 'True')).map((c) => c.metadata.name);
  assert.deepEqual(notEstablished, []);
  assert.ok(crds.items.length >= files.length);
});

test('a Gateway API Gateway: schema defaults in spec and status, printer columns from a filter path', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: default
spec:
  gatewayClassName: example
  listeners:
  - name: http
    protocol: HTTP
    port: 80
`);
  const gw = await rawJSON(cluster, 'GET', '/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways/gw');
  assert.equal(gw.status, 200, JSON.stringify(gw.body));
  assert.deepEqual(gw.body.spec.listeners[0].allowedRoutes, { namespaces: { from: 'Same' } });
  assert.deepEqual(gw.body.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, c.status, c.reason]),
    [['Accepted', 'Unknown', 'Pending'], ['Programmed', 'Unknown', 'Pending']]);
  assert.match(await ok(['get', 'gateways']), /^NAME\s+CLASS\s+ADDRESS\s+PROGRAMMED\s+AGE\ngw\s+example\s+Unknown\s+\d+s\n$/);
});

test('a default added to the schema later shows on objects stored before it (defaulted when read from storage)', async () => {
  const crd = (defaults: boolean) => JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'knobs.example.net' },
    spec: {
      group: 'example.net', scope: 'Cluster', names: { plural: 'knobs', singular: 'knob', kind: 'Knob' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', properties: { a: { type: 'string', default: 'A' }, b: { type: 'string', ...(defaults ? { default: 'B' } : {}) } } },
      } } } }],
    },
  });
  await ok(['apply', '-f', '-'], crd(false));
  await ok(['wait', '--for=condition=Established', 'crd/knobs.example.net']);
  await ok(['apply', '-f', '-'], 'apiVersion: example.net/v1\nkind: Knob\nmetadata:\n  name: k1\nspec: {}\n');
  assert.equal(await ok(['get', 'knob', 'k1', '-o', 'jsonpath={.spec}']), '{"a":"A"}');
  await ok(['apply', '-f', '-'], crd(true));
  await eventually('b defaulted on read', async () => {
    const spec = await ok(['get', 'knob', 'k1', '-o', 'jsonpath={.spec}']);
    return spec === '{"a":"A","b":"B"}' ? true : undefined;
  });
  const specs = async () => (JSON.parse(await ok(['get', 'knobs', '-o', 'json'])) as { items: { spec: unknown }[] }).items.map((i) => i.spec);
  assert.deepEqual(await specs(), [{ a: 'A', b: 'B' }]);
  // Listed again (the defaulted form is kept per object and revision), then after a write of it.
  assert.deepEqual(await specs(), [{ a: 'A', b: 'B' }]);
  await ok(['patch', 'knob', 'k1', '--type', 'merge', '-p', '{"spec":{"a":"changed"}}']);
  assert.deepEqual(await specs(), [{ a: 'changed', b: 'B' }]);
});

/**
 * Custom kinds in the OpenAPI documents (apiextensions' openapi and openapiv3 controllers):
 * `kubectl explain` of a kind and a nested field, client validation, the v3 index's hash
 * following the CRD, the documents going with the CRD; and server-side apply by two managers
 * with the schema's list and map types. Real kubectl against an --api-only server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlFails, kubectlOk, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

// ../shared beside the repository, as the other tests find it.
const CORPUS = new URL('../../../../shared/corpus/crds', import.meta.url).pathname;

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

const fails = (args: string[], input?: string) => kubectlFails(cluster, args, input);

async function v3Index(): Promise<Record<string, { serverRelativeURL: string }>> {
  return (await rawJSON(cluster, 'GET', '/openapi/v3')).body.paths;
}

const TYPE_META = `  apiVersion\t<string>
    APIVersion defines the versioned schema of this representation of an object.
    Servers should convert recognized schemas to the latest internal value, and
    may reject unrecognized values. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources
`;
const KIND = `  kind\t<string>
    Kind is a string value representing the REST resource this object
    represents. Servers may infer this from the endpoint the client submits
    requests to. Cannot be updated. In CamelCase. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
`;
const METADATA = `  metadata\t<ObjectMeta>
    Standard object's metadata. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
`;

test('the GMSA CRD: its group versions in /openapi/v3 and /openapi/v2 once Established, and kubectl explain', async () => {
  await ok(['apply', '-f', `${CORPUS}/gmsa__crds.yaml`]);
  await ok(['wait', '--for=condition=Established', 'crd/gmsacredentialspecs.windows.k8s.io']);
  const index = await v3Index();
  assert.match(index['apis/windows.k8s.io/v1']?.serverRelativeURL ?? '', /^\/openapi\/v3\/apis\/windows\.k8s\.io\/v1\?hash=[0-9A-F]{128}$/);
  // Every served version has its document.
  assert.ok(index['apis/windows.k8s.io/v1alpha1']);
  const doc = await rawJSON(cluster, 'GET', index['apis/windows.k8s.io/v1']!.serverRelativeURL);
  assert.equal(doc.status, 200);
  assert.deepEqual(doc.body.info, { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' });
  assert.deepEqual(Object.keys(doc.body.paths), ['/apis/windows.k8s.io/v1/gmsacredentialspecs', '/apis/windows.k8s.io/v1/gmsacredentialspecs/{name}']);
  assert.equal(doc.body.paths['/apis/windows.k8s.io/v1/gmsacredentialspecs/{name}'].get.operationId, 'readWindowsV1GMSACredentialSpec');
  assert.deepEqual(doc.body.components.schemas['io.k8s.windows.v1.GMSACredentialSpec']['x-kubernetes-group-version-kind'],
    [{ group: 'windows.k8s.io', kind: 'GMSACredentialSpec', version: 'v1' }]);
  const v2 = (await rawJSON(cluster, 'GET', '/openapi/v2')).body;
  assert.ok(v2.definitions['io.k8s.windows.v1.GMSACredentialSpecList']);
  assert.equal(v2.paths['/apis/windows.k8s.io/v1/gmsacredentialspecs'].delete.operationId, 'deleteWindowsV1CollectionGMSACredentialSpec');

  assert.equal(await ok(['explain', 'gmsacredentialspecs']), `GROUP:      windows.k8s.io
KIND:       GMSACredentialSpec
VERSION:    v1

DESCRIPTION:
    <empty>
FIELDS:
${TYPE_META}
  credspec\t<Object>
    GMSA Credential Spec

${KIND}
${METADATA}

`);
  assert.equal(await ok(['explain', 'gmsacredentialspec.credspec.ActiveDirectoryConfig']), `GROUP:      windows.k8s.io
KIND:       GMSACredentialSpec
VERSION:    v1

FIELD: ActiveDirectoryConfig <Object>


DESCRIPTION:
    <empty>
FIELDS:
  GroupManagedServiceAccounts\t<[]Object>
    <no description>

  HostAccountConfig\t<Object>
    <no description>


`);
  // kubectl's Swagger 2.0 explainer, from /openapi/v2.
  assert.equal(await ok(['explain', 'gmsacredentialspec.credspec', '--output=plaintext-openapiv2']), `KIND:     GMSACredentialSpec
VERSION:  windows.k8s.io/v1

RESOURCE: credspec <Object>

DESCRIPTION:
     GMSA Credential Spec

FIELDS:
   ActiveDirectoryConfig\t<Object>

   CmsPlugins\t<[]string>

   DomainJoinConfig\t<Object>

`);
});

test('kubectl apply of an instance with an undeclared field: the strict decoding error', async () => {
  const stderr = await fails(['apply', '-f', '-'],
    'apiVersion: windows.k8s.io/v1\nkind: GMSACredentialSpec\nmetadata:\n  name: bad\ncredspec:\n  Bogus: 1\nextra: 2\n');
  assert.equal(stderr, 'Error from server (BadRequest): error when creating "STDIN": GMSACredentialSpec in version "v1" cannot be handled as a GMSACredentialSpec: strict decoding error: unknown field "credspec.Bogus", unknown field "extra"\n');
});

const GADGETS = (extraField: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ${extraField}: {type: string, description: The ${extraField}.}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    value: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              plain:
                type: array
                items: {type: string}
              labels:
                type: object
                x-kubernetes-map-type: atomic
                additionalProperties: {type: string}
`;

test('the v3 index hash changes with the CRD, and the documents go with it', async () => {
  await ok(['apply', '-f', '-'], GADGETS('color'));
  await ok(['wait', '--for=condition=Established', 'crd/gadgets.example.com']);
  const before = (await v3Index())['apis/example.com/v1']?.serverRelativeURL;
  assert.ok(before);
  assert.match(await ok(['explain', 'gadget.spec.color']), /FIELD: color <string>\n\n\nDESCRIPTION:\n    The color\.\n/);
  await ok(['apply', '-f', '-'], GADGETS('shape'));
  const after = await eventually('the new hash', async () => {
    const url = (await v3Index())['apis/example.com/v1']?.serverRelativeURL;
    return url !== before ? url : undefined;
  });
  assert.ok(after);
  // The old hash redirects to the current document, as kube-openapi's handler does.
  const old = await raw(cluster, 'GET', before);
  assert.equal(old.status, 301);
  assert.equal(old.headers.location, after);
  assert.match(await ok(['explain', 'gadget.spec.shape']), /FIELD: shape <string>\n\n\nDESCRIPTION:\n    The shape\.\n/);

  await ok(['delete', 'crd', 'gadgets.example.com']);
  await eventually('the documents gone', async () => ((await v3Index())['apis/example.com/v1'] ? undefined : true));
  assert.equal((await raw(cluster, 'GET', '/openapi/v3/apis/example.com/v1')).status, 404);
  const v2 = (await rawJSON(cluster, 'GET', '/openapi/v2')).body;
  assert.equal(v2.definitions['com.example.v1.Gadget'], undefined);
  assert.equal(v2.paths['/apis/example.com/v1/namespaces/{namespace}/gadgets'], undefined);
});

const gadget = (port: string, value: number, tag: string, plain: string, label: string) => `apiVersion: example.com/v1
kind: Gadget
metadata: {name: g, namespace: default}
spec:
  ports:
  - {name: ${port}, value: ${value}}
  tags: ["${tag}"]
  plain: ["${plain}"]
  labels: {${label}: "on"}
`;

test('server-side apply by two managers: listType map and set entries kept per manager, atomic lists and maps conflict whole', async () => {
  await ok(['apply', '-f', '-'], GADGETS('color'));
  await ok(['wait', '--for=condition=Established', 'crd/gadgets.example.com']);
  await eventually('the kind served', async () => ((await kubectl(cluster, ['get', 'gadgets'])).code === 0 ? true : undefined));
  await ok(['apply', '--server-side', '--field-manager=alice', '-f', '-'], gadget('a', 1, 'x', 'p', 'one'));
  // bob applies other entries; the atomic list and map are alice's: a conflict on each, whole.
  const stderr = await fails(['apply', '--server-side', '--field-manager=bob', '-f', '-'], gadget('b', 2, 'y', 'q', 'two'));
  assert.match(stderr, /^error: Apply failed with 2 conflicts: conflicts with "alice":\n- \.spec\.labels\n- \.spec\.plain\n/);
  await ok(['apply', '--server-side', '--field-manager=bob', '-f', '-'],
    gadget('b', 2, 'y', 'p', 'one'));
  const obj = JSON.parse(await ok(['get', 'gadget', 'g', '-o', 'json', '--show-managed-fields']));
  assert.deepEqual(obj.spec.ports, [{ name: 'a', value: 1 }, { name: 'b', value: 2 }]);
  assert.deepEqual(obj.spec.tags, ['x', 'y']);
  const fields = Object.fromEntries(obj.metadata.managedFields.map((m: { manager: string; fieldsV1: unknown }) => [m.manager, m.fieldsV1]));
  assert.deepEqual(fields.alice, { 'f:spec': {
    'f:labels': {}, 'f:plain': {},
    'f:ports': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
    'f:tags': { 'v:"x"': {} },
  } });
  assert.deepEqual(fields.bob, { 'f:spec': {
    'f:labels': {}, 'f:plain': {},
    'f:ports': { 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
    'f:tags': { 'v:"y"': {} },
  } });
  const conflict = await fails(['apply', '--server-side', '--field-manager=bob', '-f', '-'], gadget('a', 5, 'y', 'p', 'one'));
  assert.match(conflict, /^error: Apply failed with 1 conflict: conflict with "alice": \.spec\.ports\[name="a"\]\.value\n/);
  // An entry without its key: refused as structured-merge-diff refuses it.
  const missingKey = await fails(['apply', '--server-side', '--field-manager=carol', '-f', '-'],
    'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: default}\nspec:\n  ports:\n  - {value: 1}\n');
  assert.equal(missingKey, 'Error from server: failed to create typed patch object (default/g; example.com/v1, Kind=Gadget): .spec.ports: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)\n');
  await ok(['delete', 'crd', 'gadgets.example.com']);
});

const gateway = (listener: string, port: number) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: example
  listeners:
  - {name: ${listener}, port: ${port}, protocol: HTTP}
`;

test('the Gateway API Gateway CRD: explain a nested list, and two managers applying their own listeners', async () => {
  await ok(['apply', '--server-side', '-f', `${CORPUS}/gwapi__gateway.networking.k8s.io_gateways.yaml`]);
  await ok(['wait', '--for=condition=Established', 'crd/gateways.gateway.networking.k8s.io']);
  const explained = await ok(['explain', 'gateway.spec.listeners']);
  assert.match(explained, /^GROUP:      gateway\.networking\.k8s\.io\nKIND:       Gateway\nVERSION:    v1\n\nFIELD: listeners <\[\]Object>\n/);
  assert.match(explained, /\n  name\t<string> -required-\n/);
  await ok(['apply', '--server-side', '--field-manager=alice', '-f', '-'], gateway('web', 80));
  await ok(['apply', '--server-side', '--field-manager=bob', '-f', '-'], gateway('admin', 8080));
  const obj = JSON.parse(await ok(['get', 'gateway', 'gw', '-o', 'json', '--show-managed-fields']));
  assert.deepEqual(obj.spec.listeners.map((l: { name: string }) => l.name), ['web', 'admin']);
  const bob = obj.metadata.managedFields.find((m: { manager: string }) => m.manager === 'bob');
  assert.deepEqual(Object.keys(bob.fieldsV1['f:spec']['f:listeners']), ['k:{"name":"admin"}']);
  const conflict = await fails(['apply', '--server-side', '--field-manager=bob', '-f', '-'], gateway('web', 81));
  assert.match(conflict, /^error: Apply failed with 1 conflict: conflict with "alice": \.spec\.listeners\[name="web"\]\.port\n/);
});

/**
 * The OpenAPI definitions and paths of a CRD version as apiextensions' builder writes them
 * (builder.go, v2/conversion.go ToStructuralOpenAPIV2), and the server-side apply type of a
 * custom resource from its schema's list and map types.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { definitionName, kindSchema, listSchema, toValidOperationID, withCustomResources } from '../../src/openapi/custom-resource.js';
import { openApiData, type Schema } from '../../src/openapi/data.js';
import { v2Document, v3Document } from '../../src/openapi/expand.js';
import { customResourceType } from '../../src/fieldmanager/custom-type.js';

const WIDGETS = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      schema: {
        openAPIV3Schema: {
          type: 'object', description: 'A widget.',
          properties: {
            spec: {
              type: 'object', required: ['port', 'note'],
              properties: {
                port: { 'x-kubernetes-int-or-string': true },
                note: { type: 'string', nullable: true },
                choice: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] },
                extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
                template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                entries: {
                  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'protocol'],
                  items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, value: { type: 'integer' } } },
                },
                tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                plain: { type: 'array', items: { type: 'string' } },
                labels: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
                selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
              },
            },
          },
        },
      },
    }],
  },
} as unknown as CustomResourceDefinition;

const props = (s: unknown): Record<string, Schema> => (s as { properties: Record<string, Schema> }).properties;

test('definitions are named by the reversed group (util.ToRESTFriendlyName)', () => {
  assert.equal(definitionName('windows.k8s.io', 'v1', 'GMSACredentialSpec'), 'io.k8s.windows.v1.GMSACredentialSpec');
  assert.equal(definitionName('gateway.networking.k8s.io', 'v1', 'GatewayList'), 'io.k8s.networking.gateway.v1.GatewayList');
});

test('operation IDs are made valid as openapi.ToValidOperationID does', () => {
  assert.equal(toValidOperationID('example.com', true), 'ExampleCom');
  assert.equal(toValidOperationID('monitoring.coreos.com', false), 'monitoringCoreosCom');
  assert.equal(toValidOperationID('v1beta1', true), 'V1beta1');
  // A leading digit is dropped and, like any dropped rune, capitalizes what follows.
  assert.equal(toValidOperationID('2fa-example', false), 'FaExample');
});

test('the v3 kind schema keeps the CRD schema, unfolded, with TypeMeta, ObjectMeta and the group-version-kind', () => {
  const s = kindSchema(WIDGETS, 'v1', false);
  assert.deepEqual(Object.keys(props(s)), ['apiVersion', 'kind', 'metadata', 'spec']);
  // spec.Schema's field order, extensions last.
  assert.deepEqual(Object.keys(s), ['description', 'type', 'properties', 'x-kubernetes-group-version-kind']);
  assert.deepEqual(Object.keys(props(s).spec!), ['type', 'required', 'properties']);
  assert.deepEqual(Object.keys(props(props(s).spec).port!), ['anyOf', 'x-kubernetes-int-or-string']);
  assert.deepEqual(Object.keys(props(props(s).spec).entries!), ['type', 'items', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type']);
  assert.deepEqual(props(s).metadata, {
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  });
  assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'Widget', version: 'v1' }]);
  const spec = props(props(s).spec);
  assert.deepEqual(spec.port, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(spec.note, { type: 'string', nullable: true });
  assert.ok(Array.isArray(spec.choice!.oneOf));
  assert.deepEqual(Object.keys(props(spec.template)), ['apiVersion', 'kind', 'metadata']);
  assert.deepEqual(spec.template!.required, ['kind', 'apiVersion']);
});

test('the v2 kind schema drops what Swagger 2.0 cannot express (ToStructuralOpenAPIV2)', () => {
  const s = kindSchema(WIDGETS, 'v1', true);
  assert.equal((props(s).metadata as { $ref: string }).$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const specSchema = props(s).spec!;
  const spec = props(specSchema);
  assert.deepEqual(spec.port, { 'x-kubernetes-int-or-string': true });
  assert.deepEqual(spec.note, {});
  assert.deepEqual(specSchema.required, ['port']);
  assert.equal(spec.choice!.oneOf, undefined);
  assert.deepEqual(spec.extra, { 'x-kubernetes-preserve-unknown-fields': true });
  // handler.PruneDefaults: no defaults in v2 (the v3 form keeps them).
  const entryProps = (s2: Schema) => props((props(props(s2).spec).entries as { items: Schema }).items);
  assert.deepEqual(entryProps(s).protocol, { type: 'string' });
  assert.deepEqual(entryProps(kindSchema(WIDGETS, 'v1', false)).protocol, { type: 'string', default: 'TCP' });
  // Preserved unknown fields: no properties, and addEmbeddedProperties leaves it alone in v2.
  assert.deepEqual(spec.template, { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true });
});

test('a schema whose root preserves unknown fields is a bare object in v2', () => {
  const crd = structuredClone(WIDGETS);
  (crd.spec.versions[0]!.schema!.openAPIV3Schema as Record<string, unknown>)['x-kubernetes-preserve-unknown-fields'] = true;
  assert.deepEqual(kindSchema(crd, 'v1', true), { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1' }] });
});

test('the list kind (buildListSchema)', () => {
  assert.deepEqual(listSchema(WIDGETS, 'v1', false), {
    description: 'WidgetList is a list of Widget', type: 'object', required: ['items'],
    properties: {
      apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources', type: 'string' },
      items: { description: 'List of widgets. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md', type: 'array', items: { $ref: '#/components/schemas/com.example.v1.Widget' } },
      kind: { description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', type: 'string' },
      metadata: { description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
    },
    'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'WidgetList', version: 'v1' }],
  });
});

test('selectable fields are listed on the kind and the list kind (x-kubernetes-selectable-fields)', () => {
  const crd = structuredClone(WIDGETS);
  crd.spec.versions[0]!.selectableFields = [{ jsonPath: '.spec.color' }];
  assert.deepEqual(kindSchema(crd, 'v1', false)['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.color' }]);
  assert.deepEqual(listSchema(crd, 'v1', true)['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.color' }]);
});

test('a cluster-scoped kind: no namespaced paths, operation names without Namespaced', () => {
  const crd = structuredClone(WIDGETS);
  crd.spec.scope = 'Cluster';
  const data = withCustomResources(openApiData, [{ crd, version: 'v1' }]);
  const paths = data.docs['apis/example.com/v1']!;
  assert.deepEqual(Object.keys(paths), ['/apis/example.com/v1/widgets', '/apis/example.com/v1/widgets/{name}',
    '/apis/example.com/v1/widgets/{name}/scale', '/apis/example.com/v1/widgets/{name}/status']);
  assert.deepEqual(Object.values(paths['/apis/example.com/v1/widgets']!.ops).map((o) => o.operationId),
    ['listExampleComV1Widget', 'createExampleComV1Widget', 'deleteExampleComV1CollectionWidget']);
});

test('the paths and operations of a namespaced version with status and scale', () => {
  const data = withCustomResources(openApiData, [{ crd: WIDGETS, version: 'v1' }]);
  const doc = v3Document(data, 'apis/example.com/v1') as { paths: Record<string, Record<string, { operationId: string; parameters?: { name: string }[]; requestBody?: { content: Record<string, unknown> } }>>; components: { schemas: Record<string, unknown> } };
  assert.deepEqual(Object.keys(doc.paths), [
    '/apis/example.com/v1/namespaces/{namespace}/widgets',
    '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}',
    '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale',
    '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status',
    '/apis/example.com/v1/widgets',
  ]);
  const ids = Object.values(doc.paths).flatMap((p) => Object.entries(p).filter(([m]) => m !== 'parameters').map(([, op]) => op.operationId)).sort();
  assert.deepEqual(ids, [
    'createExampleComV1NamespacedWidget', 'deleteExampleComV1CollectionNamespacedWidget', 'deleteExampleComV1NamespacedWidget',
    'listExampleComV1NamespacedWidget', 'listExampleComV1WidgetForAllNamespaces',
    'patchExampleComV1NamespacedWidget', 'patchExampleComV1NamespacedWidgetScale', 'patchExampleComV1NamespacedWidgetStatus',
    'readExampleComV1NamespacedWidget', 'readExampleComV1NamespacedWidgetScale', 'readExampleComV1NamespacedWidgetStatus',
    'replaceExampleComV1NamespacedWidget', 'replaceExampleComV1NamespacedWidgetScale', 'replaceExampleComV1NamespacedWidgetStatus',
  ]);
  const item = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']!;
  assert.deepEqual((item.parameters as unknown as { name: string }[]).map((p) => p.name), ['name', 'namespace', 'pretty']);
  assert.deepEqual(item.patch!.parameters!.map((p) => p.name), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(Object.keys(item.patch!.requestBody!.content), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']);
  assert.deepEqual(Object.keys(item.put!.requestBody!.content), ['application/json', 'application/yaml']);
  assert.ok(doc.components.schemas['com.example.v1.Widget']);
  assert.ok(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
  const v2 = v2Document(data, ['apis/example.com/v1']) as { definitions: Record<string, Schema> };
  assert.equal((props(v2.definitions['com.example.v1.Widget']).metadata as { $ref: string }).$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
});

test('server-side apply types: list-type map with keys and key defaults, set, atomic lists and maps', () => {
  const t = customResourceType(WIDGETS.spec.versions[0]!.schema!.openAPIV3Schema);
  assert.equal(t.t, 'struct');
  if (t.t !== 'struct') return;
  assert.equal(t.fields.get('metadata')?.t, 'struct');
  const spec = t.fields.get('spec');
  assert.equal(spec?.t, 'struct');
  if (spec?.t !== 'struct') return;
  const entries = spec.fields.get('entries');
  assert.deepEqual(entries && entries.t === 'list' && [entries.rel, entries.keys, entries.defaults], ['map', ['name', 'protocol'], { protocol: 'TCP' }]);
  const tags = spec.fields.get('tags');
  assert.equal(tags?.t === 'list' && tags.rel, 'set');
  assert.equal(spec.fields.get('plain')?.t, 'atomic');
  assert.deepEqual(spec.fields.get('labels'), { t: 'map', values: { t: 'deduced' }, atomic: true });
  assert.equal(spec.fields.get('selector')?.t === 'struct' && (spec.fields.get('selector') as { atomic: boolean }).atomic, true);
  assert.equal(spec.fields.get('extra')?.t, 'struct');
});

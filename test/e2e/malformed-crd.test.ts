/**
 * CustomResourceDefinitions upstream refuses, with its messages. Every case is derived from
 * apiextensions-apiserver v0.32 source (not recorded from a live server): the function and file
 * each case comes from is named in its comment. A v1 CRD whose versions share one schema is
 * validated with that schema lifted to spec.validation (the v1→internal conversion), which is
 * the path its errors name.
 */
import { after, before, test } from 'node:test';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const DNS1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

type Json = Record<string, unknown>;

/** A valid CRD for widgets.example.com, changed by `edit`. */
function crd(edit: (c: { metadata: Json; spec: Json & { names: Json; versions: Json[] } }) => void): string {
  const c = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' } as Json,
    spec: {
      group: 'example.com', scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      }] as Json[],
    } as Json & { names: Json; versions: Json[] },
  };
  edit(c);
  return JSON.stringify(c);
}

function invalid(name: string, message: string, body: string, crdName = 'widgets.example.com'): MalformedCase {
  return {
    name, method: 'POST', path: CRDS, body, status: 422, reason: 'Invalid',
    message: `CustomResourceDefinition.apiextensions.k8s.io "${crdName}" is invalid: ${message}`,
    absent: `${CRDS}/${crdName}`,
  };
}

const schemaOf = (c: { spec: { versions: Json[] } }) => (c.spec.versions[0]!.schema as { openAPIV3Schema: Json }).openAPIV3Schema;
const specProps = (c: { spec: { versions: Json[] } }) => ((schemaOf(c).properties as Json).spec as { properties: Json });

const cases: MalformedCase[] = [
  // validation.go ValidateCustomResourceDefinition: nameValidationFn.
  invalid('the name is not <plural>.<group>',
    'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
    crd((c) => { c.metadata.name = 'gadgets.example.com'; }), 'gadgets.example.com'),
  // validation.go validateCustomResourceDefinitionSpec: the group needs a dot.
  invalid('a group without a dot',
    'spec.group: Invalid value: "example": should be a domain with at least one dot',
    crd((c) => { c.metadata.name = 'widgets.example'; c.spec.group = 'example'; }), 'widgets.example'),
  // validation.go validateEnumStrings for spec.scope.
  invalid('an unknown scope',
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    crd((c) => { c.spec.scope = 'Global'; })),
  // validation.go validateCustomResourceDefinitionSpec: requireOpenAPISchema.
  invalid('a version without a schema',
    'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
    crd((c) => { delete c.spec.versions[0]!.schema; })),
  // schema/validation.go validateStructuralInvariants: fieldLevel without a type.
  invalid('a property without a type',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    crd((c) => { specProps(c).properties = { size: { description: 'no type' } }; })),
  // schema/validation.go validateStructuralInvariants: itemLevel without a type.
  invalid('array items without a type',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].items.type: Required value: must not be empty for specified array items',
    crd((c) => { specProps(c).properties = { size: { type: 'array', items: { description: 'no type' } } }; })),
  // schema/validation.go validateStructuralInvariants: the root must be an object.
  invalid('a root that is not an object',
    'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
    crd((c) => { c.spec.versions[0]!.schema = { openAPIV3Schema: { type: 'string' } }; })),
  // schema/validation.go validateStructuralMetadataInvariants: only name and generateName at the root's metadata.
  invalid('metadata with fields of its own',
    'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    crd((c) => { (schemaOf(c).properties as Json).metadata = { type: 'object', properties: { labels: { type: 'object' } } }; })),
  // validation.go ValidateCustomResourceDefinitionOpenAPISchema: uniqueItems.
  invalid('uniqueItems',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    crd((c) => { specProps(c).properties = { size: { type: 'array', uniqueItems: true, items: { type: 'string' } } }; })),
  // validation.go ValidateCustomResourceDefinitionOpenAPISchema: additionalProperties with properties.
  invalid('additionalProperties beside properties',
    'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    crd((c) => { (specProps(c) as Json).additionalProperties = { type: 'string' }; })),
  // validation.go specStandardValidatorV3.validate: requireValidPropertyType.
  invalid('an unknown property type',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"',
    crd((c) => { specProps(c).properties = { size: { type: 'int' } }; })),
  // validation.go ValidateCustomResourceDefinitionNames: kind, and the singular and listKind defaulted from it.
  invalid('a kind that is no DNS-1035 label',
    `[spec.names.singular: Invalid value: "bad_kind": ${DNS1035}, ` +
    `spec.names.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: ${DNS1035}, ` +
    `spec.names.listKind: Invalid value: "Bad_KindList": may have mixed case, but should otherwise match: ${DNS1035}]`,
    crd((c) => { c.spec.names.kind = 'Bad_Kind'; })),
  // validation.go ValidateCustomResourceColumnDefinition: the column's type (lifted to spec.additionalPrinterColumns).
  invalid('a printer column of an unknown type',
    'spec.additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string',
    crd((c) => { c.spec.versions[0]!.additionalPrinterColumns = [{ name: 'Size', type: 'int', jsonPath: '.spec.size' }]; })),
  // validation.go validateSimpleJSONPath.
  invalid('a printer column path without the leading dot',
    'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
    crd((c) => { c.spec.versions[0]!.additionalPrinterColumns = [{ name: 'Size', type: 'integer', jsonPath: 'spec.size' }]; })),
  // validation.go ValidateCustomResourceDefinitionSubresources: scale paths.
  invalid('a scale subresource whose spec path is outside .spec',
    'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
    crd((c) => { c.spec.versions[0]!.subresources = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '.status.replicas' } }; })),
  // validation.go validateCustomResourceDefinitionValidation: nullable at the root.
  invalid('a nullable root',
    'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    crd((c) => { schemaOf(c).nullable = true; })),
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));

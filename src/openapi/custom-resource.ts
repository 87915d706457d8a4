/**
 * The OpenAPI paths and definitions of a CustomResourceDefinition's served version, as
 * apiextensions-apiserver's builder writes them (pkg/controller/openapi/builder/builder.go
 * generateBuilder, buildRoute, buildKubeNative, buildListSchema; v2/conversion.go
 * ToStructuralOpenAPIV2), in the compact form of data.ts so that expand.ts writes both documents.
 */
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { OpenApiData, OperationData, PathData, Schema } from './data.js';
import { isObject } from '../meta/json.js';

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const PATCH = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

/** metav1 TypeMeta's and PartialObjectMetadata(List)'s generated descriptions, which the builder copies. */
const API_VERSION_TEXT = 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_TEXT = 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_TEXT = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_TEXT = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const EMBEDDED_API_VERSION_TEXT = 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_TEXT = 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The media lists the builder's routes declare, appended to the data's own. */
const JSON_YAML = ['application/json', 'application/yaml'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** util.ToRESTFriendlyName of "<group>/<version>/<kind>": the group reversed ("com.example.v1.Widget"). */
export function definitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** openapi.ToValidOperationID: letters, '_' and non-leading digits kept; what follows anything else capitalized. */
export function toValidOperationID(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...s].forEach((r, i) => {
    if (/\p{L}/u.test(r) || r === '_' || (i !== 0 && /\p{Nd}/u.test(r))) {
      out += capitalize ? r.toUpperCase() : r;
      capitalize = false;
    } else {
      capitalize = true;
    }
  });
  return out;
}

/** The verbs of openapi.GetOperationIDAndTags' trie; the first that prefixes an operation wins ("delete" before "deletecollection"). */
const OPERATION_VERBS = ['get', 'log', 'read', 'replace', 'patch', 'delete', 'deletecollection', 'watch', 'connect', 'proxy', 'list', 'create'];

function verbPrefix(op: string): string {
  let best: string | undefined;
  for (const v of OPERATION_VERBS) if (op.startsWith(v) && (best === undefined || v.length < best.length)) best = v;
  return best ?? '';
}

/** openapi.GetOperationIDAndTags for a path under /apis/<group>/<version>. */
function operationIdAndTag(op: string, group: string, version: string): [string, string] {
  const prefix = verbPrefix(op);
  const trimmed = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  const idPrefix = prefix + toValidOperationID(trimmed, prefix !== '') + toValidOperationID(version, true);
  const tag = `${toValidOperationID(trimmed, false)}_${toValidOperationID(version, false)}`;
  return [idPrefix + toValidOperationID(op.slice(prefix.length), true), tag];
}

function deepCopy<T>(v: T): T {
  return structuredClone(v);
}

type Node = Schema & {
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
  required?: string[];
};

/** Structural.Unfold: int-or-string gets its anyOf, an embedded resource its apiVersion, kind and metadata. */
function unfold(s: Node): void {
  for (const p of Object.values(s.properties ?? {})) unfold(p);
  if (isObject(s.items)) unfold(s.items);
  if (isObject(s.additionalProperties)) unfold(s.additionalProperties);
  if (s['x-kubernetes-int-or-string'] === true && s.anyOf === undefined && s.allOf === undefined) {
    s.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    const props = (s.properties ??= {});
    props.apiVersion ??= { type: 'string' };
    props.kind ??= { type: 'string' };
    props.metadata ??= { type: 'object' };
  }
}

/** ToStructuralOpenAPIV2: what Swagger 2.0 cannot say goes (logic junctors, nullable, preserved unknown fields), and defaults. */
function toV2(s: Node): void {
  delete s.allOf; delete s.oneOf; delete s.anyOf; delete s.not;
  // The v2 controller prunes defaults (handler.PruneDefaults), as the static v2 document has none.
  delete s.default;
  if (s.nullable === true) {
    delete s.type; delete s.nullable; delete s.items; delete s.properties;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    delete s.items; delete s.properties;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  if (s['x-kubernetes-preserve-unknown-fields'] === true && s.type === 'object') delete s.type;
  for (const [f, fs] of Object.entries(s.properties ?? {})) {
    if (fs.nullable === true && s.required) s.required = s.required.filter((r) => r !== f);
  }
  if (s.required && !s.required.length) delete s.required;
  if (isObject(s.additionalProperties) && (s.additionalProperties).nullable === true) delete s.required;
  for (const p of Object.values(s.properties ?? {})) toV2(p);
  if (isObject(s.items)) toV2(s.items);
  if (isObject(s.additionalProperties)) toV2(s.additionalProperties);
}

/** addEmbeddedProperties: embedded resources get TypeMeta's fields and ObjectMeta, and require kind and apiVersion. */
function addEmbeddedProperties(s: Node, v2: boolean): void {
  for (const p of Object.values(s.properties ?? {})) addEmbeddedProperties(p, v2);
  if (isObject(s.items)) addEmbeddedProperties(s.items, v2);
  if (isObject(s.additionalProperties)) addEmbeddedProperties(s.additionalProperties, v2);
  if (v2 && s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  const props = (s.properties ??= {});
  props.apiVersion = { description: EMBEDDED_API_VERSION_TEXT, type: 'string' };
  props.kind = { description: EMBEDDED_KIND_TEXT, type: 'string' };
  props.metadata = metadataRef(v2, METADATA_TEXT, OBJECT_META);
  const req = new Set(s.required ?? []);
  const required = [...(s.required ?? [])];
  if (!req.has('kind')) required.push('kind');
  if (!req.has('apiVersion')) required.push('apiVersion');
  s.required = required;
}

function metadataRef(v2: boolean, description: string, def: string): Node {
  return { description, $ref: (v2 ? V2_REF : V3_REF) + def };
}

/**
 * The keywords in the order kube-openapi's spec.Schema writes them (its SchemaProps, then
 * SwaggerSchemaProps fields, then $schema and $ref); vendor extensions follow, sorted.
 */
const KEYWORD_ORDER = ['id', 'description', 'type', 'nullable', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum',
  'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf',
  'enum', 'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties',
  'additionalProperties', 'patternProperties', 'dependencies', 'additionalItems', 'definitions',
  'discriminator', 'readOnly', 'xml', 'externalDocs', 'example', '$schema', '$ref'];
const KEYWORD_RANK = new Map(KEYWORD_ORDER.map((k, i) => [k, i]));

/** A schema as Go writes it: keywords in spec.Schema's order, property names sorted, recursively. */
function inGoOrder(s: Node): Node {
  const rank = (k: string) => KEYWORD_RANK.get(k) ?? KEYWORD_ORDER.length;
  const keys = Object.keys(s).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const out: Node = {};
  for (const k of keys) {
    const v = s[k];
    if (k === 'properties' && isObject(v)) {
      const props = v as Record<string, Node>;
      out.properties = Object.fromEntries(Object.keys(props).sort().map((p) => [p, inGoOrder(props[p]!)]));
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isObject(v)) {
      out[k] = inGoOrder(v as Node);
    } else if ((k === 'allOf' || k === 'oneOf' || k === 'anyOf') && Array.isArray(v)) {
      out[k] = v.map((x) => (isObject(x) ? inGoOrder(x as Node) : x));
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** The kind's definition (buildKubeNative). */
export function kindSchema(crd: CustomResourceDefinition, version: string, v2: boolean): Schema {
  const { group } = crd.spec;
  const v = crd.spec.versions.find((x) => x.name === version);
  const kind = crd.spec.names.kind;
  const source = v?.schema?.openAPIV3Schema as Node | undefined;
  let out: Node;
  if (!source || (v2 && (source['x-kubernetes-preserve-unknown-fields'] === true || crd.spec.preserveUnknownFields === true))) {
    out = { type: 'object' };
  } else {
    out = deepCopy(source);
    unfold(out);
    if (v2) toV2(out);
    const props = (out.properties ??= {});
    props.metadata = metadataRef(v2, METADATA_TEXT, OBJECT_META);
    props.apiVersion = { description: API_VERSION_TEXT, type: 'string' };
    props.kind = { description: KIND_TEXT, type: 'string' };
    addEmbeddedProperties(out, v2);
    out = inGoOrder(out);
  }
  out['x-kubernetes-group-version-kind'] = [{ group, kind, version }];
  const selectable = v?.selectableFields;
  if (selectable?.length) out['x-kubernetes-selectable-fields'] = selectable.map((f) => ({ fieldPath: f.jsonPath.replace(/^\./, '') }));
  return out;
}

/** The list kind's definition (buildListSchema). */
export function listSchema(crd: CustomResourceDefinition, version: string, v2: boolean): Schema {
  const { group, names } = crd.spec;
  const listKind = names.listKind ?? `${names.kind}List`;
  const itemRef = (v2 ? V2_REF : V3_REF) + definitionName(group, version, names.kind);
  const out: Schema = {
    description: `${listKind} is a list of ${names.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: API_VERSION_TEXT, type: 'string' },
      items: {
        description: `List of ${names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: 'array',
        items: { $ref: itemRef },
      },
      kind: { description: KIND_TEXT, type: 'string' },
      metadata: metadataRef(v2, LIST_METADATA_TEXT, LIST_META),
    },
    'x-kubernetes-group-version-kind': [{ group, kind: listKind, version }],
  };
  const selectable = crd.spec.versions.find((x) => x.name === version)?.selectableFields;
  if (selectable?.length) out['x-kubernetes-selectable-fields'] = selectable.map((f) => ({ fieldPath: f.jsonPath.replace(/^\./, '') }));
  return out;
}

/** One route of the builder, before its parameters are shared out to the path. */
interface Route {
  path: string;
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  op: OperationData;
  params: string[];
}

/** The query parameters endpoints.AddObjectParams adds for each options type, as the data names them. */
const LIST_PARAMS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion',
  'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const OPTION_PARAMS: Record<string, string[]> = {
  get: [],
  list: LIST_PARAMS,
  deletecollection: LIST_PARAMS,
  put: ['dryRun', 'fieldManager', 'fieldValidation'],
  post: ['dryRun', 'fieldManager', 'fieldValidation'],
  patch: ['dryRun', 'fieldManager', 'fieldValidation', 'force'],
  delete: ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
};

interface Media { jsonYaml: number; patch: number }

/** The routes generateBuilder declares for one version. */
function routes(crd: CustomResourceDefinition, version: string, media: Media): Route[] {
  const { group, names } = crd.spec;
  const kind = names.kind;
  const listKind = names.listKind ?? `${kind}List`;
  const namespaced = crd.spec.scope === 'Namespaced';
  const v = crd.spec.versions.find((x) => x.name === version);
  const sample = definitionName(group, version, kind);
  const sampleList = definitionName(group, version, listKind);
  const out: Route[] = [];
  const build = (root: string, sub: string, method: Route['method'], action: string, verb: string, body: string, opName?: string): Route => {
    const subresource = sub.split('/')[2] ?? '';
    const name = opName ?? `${verb}${namespaced ? 'Namespaced' : ''}${kind}${subresource ? subresource[0]!.toUpperCase() + subresource.slice(1) : ''}`;
    const [operationId, tag] = operationIdAndTag(name, group, version);
    const path = root + sub;
    const params = ['pretty', ...OPTION_PARAMS[action]!];
    if (path.includes('{namespace}')) params.push('namespace');
    if (path.includes('{name}')) params.push('name');
    const responses: Record<string, string | null> = { 200: body, 401: null };
    if (action === 'post') { responses[201] = body; responses[202] = body; }
    if (action === 'delete') responses[202] = body;
    if (action === 'put') responses[201] = body;
    const op: OperationData = {
      operationId, tags: [tag], action, gvk: [group, version, kind],
      consumes: method === 'patch' ? media.patch : media.jsonYaml, produces: media.jsonYaml, responses,
    };
    return { path, method, op, params };
  };
  let root = `/apis/${group}/${version}/${names.plural}`;
  if (namespaced) {
    out.push(build(root, '', 'get', 'list', 'list', sampleList, `list${kind}ForAllNamespaces`));
    root = `/apis/${group}/${version}/namespaces/{namespace}/${names.plural}`;
  }
  const withBody = (r: Route, body: string, required: boolean): Route => {
    r.op.body = body;
    if (required) r.op.bodyRequired = true;
    return r;
  };
  out.push(build(root, '', 'get', 'list', 'list', sampleList));
  out.push(withBody(build(root, '', 'post', 'post', 'create', sample), sample, true));
  out.push(build(root, '', 'delete', 'deletecollection', 'deletecollection', STATUS));
  out.push(build(root, '/{name}', 'get', 'get', 'read', sample));
  out.push(withBody(build(root, '/{name}', 'put', 'put', 'replace', sample), sample, true));
  out.push(withBody(build(root, '/{name}', 'delete', 'delete', 'delete', STATUS), DELETE_OPTIONS, false));
  out.push(withBody(build(root, '/{name}', 'patch', 'patch', 'patch', sample), PATCH, true));
  if (v?.subresources?.status) {
    out.push(build(root, '/{name}/status', 'get', 'get', 'read', sample));
    out.push(withBody(build(root, '/{name}/status', 'put', 'put', 'replace', sample), sample, true));
    out.push(withBody(build(root, '/{name}/status', 'patch', 'patch', 'patch', sample), PATCH, true));
  }
  if (v?.subresources?.scale) {
    // The builder gives every route the custom kind's group-version-kind, the scale routes too.
    out.push(build(root, '/{name}/scale', 'get', 'get', 'read', SCALE));
    out.push(withBody(build(root, '/{name}/scale', 'put', 'put', 'replace', SCALE), SCALE, true));
    out.push(withBody(build(root, '/{name}/scale', 'patch', 'patch', 'patch', SCALE), PATCH, true));
  }
  return out;
}

/**
 * The paths of one version with the parameters every operation of a path shares moved to the
 * path, as kube-openapi's builder does; parameters sorted by name.
 */
function pathsOf(rs: Route[], paramIndex: (name: string) => number): Record<string, PathData> {
  const byPath = new Map<string, Route[]>();
  for (const r of rs) {
    if (!byPath.has(r.path)) byPath.set(r.path, []);
    byPath.get(r.path)!.push(r);
  }
  const indexes = (names: string[]) => [...names].sort().map(paramIndex);
  const out: Record<string, PathData> = {};
  for (const [path, list] of byPath) {
    const shared = list[0]!.params.filter((p) => list.every((r) => r.params.includes(p)));
    const item: PathData = { ops: {} };
    for (const r of list) {
      const own = r.params.filter((p) => !shared.includes(p));
      item.ops[r.method] = own.length ? { ...r.op, params: indexes(own) } : r.op;
    }
    if (shared.length) item.params = indexes(shared);
    out[path] = item;
  }
  return out;
}

/** The /openapi/v3 key of a group version. */
export function groupVersionKey(group: string, version: string): string {
  return `apis/${group}/${version}`;
}

/** One served version of an established CRD. */
export interface CustomResourceVersion { crd: CustomResourceDefinition; version: string }

/**
 * The data with the given CRD versions' paths (under their group version's key) and
 * definitions (v3 form in defs, v2 form in defsV2) added.
 */
export function withCustomResources(base: OpenApiData, versions: CustomResourceVersion[]): OpenApiData {
  if (!versions.length) return base;
  const media = [...base.media, JSON_YAML, PATCH_TYPES];
  const m: Media = { jsonYaml: media.length - 2, patch: media.length - 1 };
  const paramIndex = (name: string) => {
    const i = base.params.findIndex((p) => p.name === name && p.in === (name === 'name' || name === 'namespace' ? 'path' : 'query'));
    if (i < 0) throw new Error(`openapi data: no parameter ${name}`);
    return i;
  };
  const defs = { ...base.defs };
  const defsV2 = { ...base.defsV2 };
  const docs = { ...base.docs };
  const touched = new Set<string>();
  for (const { crd, version } of versions) {
    const { group, names } = crd.spec;
    const kindName = definitionName(group, version, names.kind);
    const listName = definitionName(group, version, names.listKind ?? `${names.kind}List`);
    defs[kindName] = kindSchema(crd, version, false);
    defsV2[kindName] = kindSchema(crd, version, true);
    defs[listName] = listSchema(crd, version, false);
    defsV2[listName] = listSchema(crd, version, true);
    const key = groupVersionKey(group, version);
    docs[key] = { ...(docs[key] ?? {}), ...pathsOf(routes(crd, version, m), paramIndex) };
    touched.add(key);
  }
  // Go writes the paths map sorted.
  for (const key of touched) {
    const paths = docs[key]!;
    docs[key] = Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]!]));
  }
  return { ...base, media, defs, defsV2, docs };
}

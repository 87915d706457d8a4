/**
 * Expands the compact OpenAPI data (data.ts) into OpenAPI v3 documents (one per
 * group version, as /openapi/v3/<key> serves them) and the Swagger 2.0
 * document of /openapi/v2. Pure functions of the data, so that the generator
 * can check its output against the recorded upstream documents.
 */
import type { BodyData, OpenApiData, OperationData, PathData, Schema } from './data.js';

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

/** The reason phrases upstream puts in response descriptions. */
export const RESPONSE_TEXT: Record<string, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 401: 'Unauthorized',
};

/** Which paths of a document to keep; all when absent. */
export type PathFilter = (path: string) => boolean;

import { isObject } from '../meta/json.js';

export { isObject };

function bodySchemaV3(b: BodyData): Schema {
  return typeof b === 'string' ? { $ref: V3_REF + b } : b;
}

/** Every definition name a schema refers to (directly). */
export function refsOf(s: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(s)) {
    for (const x of s) refsOf(x, out);
  } else if (isObject(s)) {
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref' && typeof v === 'string') {
        out.add(v.startsWith(V3_REF) ? v.slice(V3_REF.length) : v.startsWith(V2_REF) ? v.slice(V2_REF.length) : v);
      } else if (k === 'properties' && isObject(v)) {
        // Property names are not keywords: JSONSchemaProps has properties called default, enum and example.
        for (const p of Object.values(v)) refsOf(p, out);
      } else if (k !== 'enum' && k !== 'default' && k !== 'example') {
        refsOf(v, out);
      }
    }
  }
  return out;
}

/** The definitions reachable from the given names. */
export function closure(data: OpenApiData, roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n) || !data.defs[n]) continue;
    seen.add(n);
    for (const r of refsOf(data.defs[n])) stack.push(r);
  }
  return seen;
}

function opRefs(op: OperationData, out: Set<string>): void {
  if (op.body !== undefined) refsOf(bodySchemaV3(op.body), out);
  for (const r of Object.values(op.responses)) if (r !== null) refsOf(bodySchemaV3(r), out);
}

/** The entries in the order of Object.keys(o).sort(). */
function sortedEntries<T>(o: Record<string, T>): [string, T][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The entry at an index the generated data itself holds (parameter and media
 * lists); one out of range means the data file is corrupt.
 */
function indexed<T>(list: readonly T[], i: number, what: string): T {
  const v = list[i];
  if (v === undefined) throw new Error(`openapi data: ${what} index ${i} out of range [0:${list.length}]`);
  return v;
}

function v3Operation(data: OpenApiData, op: OperationData): Schema {
  const out: Schema = { tags: op.tags, operationId: op.operationId };
  if (op.params?.length) out.parameters = op.params.map((i) => data.params[i]);
  if (op.body !== undefined) {
    const content: Record<string, unknown> = {};
    for (const mt of [...indexed(data.media, op.consumes, 'media')].sort()) content[mt] = { schema: bodySchemaV3(op.body) };
    out.requestBody = { content };
  }
  const responses: Record<string, unknown> = {};
  for (const [code, r] of sortedEntries(op.responses)) {
    const resp: Schema = { description: RESPONSE_TEXT[code] ?? '' };
    if (r !== null) {
      const content: Record<string, unknown> = {};
      for (const mt of [...indexed(data.media, op.produces, 'media')].sort()) content[mt] = { schema: bodySchemaV3(r) };
      resp.content = content;
    }
    responses[code] = resp;
  }
  out.responses = responses;
  if (op.action) out['x-kubernetes-action'] = op.action;
  if (op.gvk) out['x-kubernetes-group-version-kind'] = { group: op.gvk[0], version: op.gvk[1], kind: op.gvk[2] };
  return out;
}

function v3PathItem(data: OpenApiData, item: PathData): Schema {
  const out: Schema = {};
  for (const [m, op] of Object.entries(item.ops)) out[m] = v3Operation(data, op);
  if (item.params?.length) out.parameters = item.params.map((i) => data.params[i]);
  return out;
}

/** The paths of one /openapi/v3 document, filtered. */
export function v3Paths(data: OpenApiData, key: string, keep: PathFilter = () => true): Record<string, PathData> {
  const paths = data.docs[key] ?? {};
  const out: Record<string, PathData> = {};
  for (const [p, item] of Object.entries(paths)) if (keep(p)) out[p] = item;
  return out;
}

/** The v3 document for one key of /openapi/v3, with its component schemas (without descriptions). */
export function v3Document(data: OpenApiData, key: string, keep?: PathFilter): Schema {
  const paths = v3Paths(data, key, keep);
  const refs = new Set<string>();
  for (const item of Object.values(paths)) for (const op of Object.values(item.ops)) opRefs(op, refs);
  const schemas: Record<string, Schema> = {};
  for (const n of [...closure(data, refs)].sort()) {
    // closure() keeps only names that have a definition.
    const def = data.defs[n];
    if (def !== undefined) schemas[n] = def;
  }
  const outPaths: Record<string, Schema> = {};
  for (const [p, item] of Object.entries(paths)) outPaths[p] = v3PathItem(data, item);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: data.version },
    paths: outPaths,
    components: {
      schemas,
      securitySchemes: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
    },
  };
}

/** A v3 schema in v2 form: allOf-wrapped references become plain references, defaults go. */
export function schemaToV2(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(schemaToV2);
  if (!isObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'default') continue;
    if (k === 'properties' && isObject(v)) {
      const props: Record<string, unknown> = {};
      for (const [pn, pv] of Object.entries(v)) props[pn] = schemaToV2(pv);
      out[k] = props;
    } else if (k === '$ref' && typeof v === 'string') {
      out[k] = v.startsWith(V3_REF) ? V2_REF + v.slice(V3_REF.length) : v;
    } else if (k === 'allOf' && Array.isArray(v) && v.length === 1 && isObject(v[0]) && typeof v[0].$ref === 'string') {
      out.$ref = V2_REF + (v[0].$ref as string).slice(V3_REF.length);
    } else if (k === 'enum' || k.startsWith('x-') || k === 'required' || k === 'example') {
      out[k] = v;
    } else {
      out[k] = schemaToV2(v);
    }
  }
  return out;
}

export function definitionV2(data: OpenApiData, name: string): Schema {
  return (data.defsV2[name] ?? schemaToV2(data.defs[name])) as Schema;
}

function bodySchemaV2(b: BodyData): unknown {
  return typeof b === 'string' ? { $ref: V2_REF + b } : schemaToV2(b);
}

function v2Param(p: OpenApiData['params'][number]): Schema {
  const out: Schema = { uniqueItems: p.schema.uniqueItems, type: p.schema.type, name: p.name, in: p.in };
  if (p.schema.uniqueItems === undefined) delete out.uniqueItems;
  if (p.required) out.required = true;
  return out;
}

function v2Operation(data: OpenApiData, op: OperationData): Schema {
  const out: Schema = {
    consumes: data.media[op.consumes], produces: data.media[op.produces], schemes: ['https'],
    tags: op.tags, operationId: op.operationId,
  };
  const params: Schema[] = [];
  if (op.body !== undefined) {
    const bp: Schema = { name: 'body', in: 'body' };
    if (op.bodyRequired) bp.required = true;
    bp.schema = bodySchemaV2(op.body);
    params.push(bp);
  }
  for (const i of op.params ?? []) params.push(v2Param(indexed(data.params, i, 'parameter')));
  if (params.length) out.parameters = params;
  const responses: Record<string, unknown> = {};
  for (const [code, r] of sortedEntries(op.responses)) {
    const resp: Schema = { description: RESPONSE_TEXT[code] ?? '' };
    if (r !== null) resp.schema = bodySchemaV2(r);
    responses[code] = resp;
  }
  out.responses = responses;
  if (op.action) out['x-kubernetes-action'] = op.action;
  if (op.gvk) out['x-kubernetes-group-version-kind'] = { group: op.gvk[0], kind: op.gvk[2], version: op.gvk[1] };
  return out;
}

/** The Swagger 2.0 document of the given /openapi/v3 keys' paths, each filtered. */
export function v2Document(data: OpenApiData, keys: string[], keep?: PathFilter): Schema {
  const paths: Record<string, Schema> = {};
  const refs = new Set<string>();
  for (const key of keys) {
    const ps = v3Paths(data, key, keep);
    for (const [p, item] of Object.entries(ps)) {
      const out: Schema = {};
      for (const [m, op] of Object.entries(item.ops)) {
        out[m] = v2Operation(data, op);
        opRefs(op, refs);
      }
      if (item.params?.length) out.parameters = item.params.map((i) => v2Param(indexed(data.params, i, 'parameter')));
      paths[p] = out;
    }
  }
  const definitions: Record<string, Schema> = {};
  for (const n of [...closure(data, refs)].sort()) definitions[n] = definitionV2(data, n);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: data.version },
    paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
    definitions,
    securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

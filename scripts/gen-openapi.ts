/**
 * Generates src/openapi/openapi-data.json, the project's own OpenAPI data, from
 * the upstream documents recorded under ../shared/golden/openapi:
 *
 * - keeps the structure only: field names, types, formats, enums, required,
 *   defaults, int-or-string and quantity, x-kubernetes-* list/map/patch/union
 *   and group-version-kind extensions, paths and operations with their
 *   parameters, media types and response types;
 * - writes no description (ours live in src/openapi/descriptions.ts);
 * - keeps only the group versions winkube serves;
 * - checks that expanding the compact data gives back the recorded documents
 *   (minus descriptions), then applies the changes up to v1.32
 *   (gen-openapi-additions.ts).
 *
 *   npx tsc -p tsconfig.json; node dist/scripts/gen-openapi.js [golden openapi dir] [out.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BodyData, OpenApiData, OperationData, ParamData, PathData, Schema } from '../src/openapi/data.js';
import { definitionV2, isObject, RESPONSE_TEXT, schemaToV2, v2Document, v3Document } from '../src/openapi/expand.js';
import { applyAdditions } from './gen-openapi-additions.js';

/** The group versions winkube serves (GET /apis), and the few its subresources and reviews answer with. */
export const SERVED_GROUP_VERSIONS = [
  'api/v1',
  'apis/admissionregistration.k8s.io/v1',
  'apis/apiextensions.k8s.io/v1',
  'apis/apps/v1',
  'apis/authentication.k8s.io/v1',
  'apis/authorization.k8s.io/v1',
  'apis/autoscaling/v1',
  'apis/autoscaling/v2',
  'apis/batch/v1',
  'apis/certificates.k8s.io/v1',
  'apis/coordination.k8s.io/v1',
  'apis/discovery.k8s.io/v1',
  'apis/events.k8s.io/v1',
  'apis/networking.k8s.io/v1',
  'apis/node.k8s.io/v1',
  'apis/policy/v1',
  'apis/rbac.authorization.k8s.io/v1',
  'apis/scheduling.k8s.io/v1',
  'apis/storage.k8s.io/v1',
];

/**
 * Recorded group versions that stand for a served one the recording predates: gen-openapi-additions.ts
 * turns them into it (flowcontrol.apiserver.k8s.io/v1beta3 into v1, GA in v1.29).
 */
export const PREDECESSOR_GROUP_VERSIONS = ['apis/flowcontrol.apiserver.k8s.io/v1beta3'];

/** The other documents of /openapi/v3 for endpoints winkube serves: /api, /apis, /apis/<group>, /version. */
export function documentKeys(): string[] {
  const kept = [...SERVED_GROUP_VERSIONS, ...PREDECESSOR_GROUP_VERSIONS];
  const groups = new Set(kept.filter((k) => k.startsWith('apis/')).map((k) => k.split('/').slice(0, 2).join('/')));
  return [...kept, 'api', 'apis', ...[...groups].sort(), 'version'];
}

const V3_REF = '#/components/schemas/';
type Json = unknown;

/** A schema without its descriptions (property names called "description" stay). */
export function stripSchema(s: Json): Json {
  if (Array.isArray(s)) return s.map(stripSchema);
  if (!isObject(s)) return s;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description') continue;
    if (k === 'properties' && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, p]) => [n, stripSchema(p)]));
    } else if (k === 'enum' || k === 'default' || k === 'example' || k === 'required' || k.startsWith('x-')) {
      out[k] = v;
    } else {
      out[k] = stripSchema(v);
    }
  }
  return out;
}

/** An operation or path item without descriptions, for comparisons. */
export function stripDoc(s: Json): Json {
  if (Array.isArray(s)) return s.map(stripDoc);
  if (!isObject(s)) return s;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description' && typeof v === 'string') continue;
    if (k === 'schema' || k === 'schemas') { out[k] = k === 'schema' ? stripSchema(v) : Object.fromEntries(Object.entries(v as object).map(([n, d]) => [n, stripSchema(d)])); continue; }
    out[k] = stripDoc(v);
  }
  return out;
}

/** Deep equality ignoring key order. */
function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
}

function firstDifference(a: Json, b: Json, path = ''): string {
  if (equal(a, b)) return '';
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${path}/${k}`);
      if (d) return d;
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d) return d;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 300)} != ${JSON.stringify(b)?.slice(0, 300)}`;
}

class Tables {
  params: ParamData[] = [];
  media: string[][] = [];
  private paramIndex = new Map<string, number>();
  private mediaIndex = new Map<string, number>();

  param(p: Json): number {
    const s = stripDoc(p) as ParamData;
    const key = JSON.stringify([s.name, s.in, s.required ?? false, s.schema]);
    let i = this.paramIndex.get(key);
    if (i === undefined) {
      i = this.params.length;
      const out: ParamData = { name: s.name, in: s.in, ...(s.required ? { required: true } : {}), schema: s.schema };
      this.params.push(out);
      this.paramIndex.set(key, i);
    }
    return i;
  }

  mediaList(list: string[]): number {
    const key = JSON.stringify(list);
    let i = this.mediaIndex.get(key);
    if (i === undefined) {
      i = this.media.length;
      this.media.push(list);
      this.mediaIndex.set(key, i);
    }
    return i;
  }
}

function bodyData(schema: Json): BodyData {
  if (isObject(schema) && typeof schema.$ref === 'string' && Object.keys(schema).length === 1 && schema.$ref.startsWith(V3_REF)) {
    return schema.$ref.slice(V3_REF.length);
  }
  return stripSchema(schema) as Schema;
}

interface GoldenDocs { v2: any; v3: Record<string, any> }

export function loadGolden(dir: string): GoldenDocs {
  const v2 = JSON.parse(readFileSync(join(dir, 'v2.json'), 'utf8'));
  const v3: Record<string, any> = {};
  for (const key of documentKeys()) v3[key] = JSON.parse(readFileSync(join(dir, 'v3', `${key.replace(/\//g, '_')}.json`), 'utf8'));
  return { v2, v3 };
}

/** The compact data of the recorded documents, before the additions. */
export function compact(golden: GoldenDocs): OpenApiData {
  const t = new Tables();
  const docs: Record<string, Record<string, PathData>> = {};
  const defs: Record<string, Schema> = {};
  for (const [key, doc] of Object.entries(golden.v3)) {
    const paths: Record<string, PathData> = {};
    for (const [p, item] of Object.entries(doc.paths as Record<string, any>)) {
      const v2item = golden.v2.paths[p];
      if (!v2item) throw new Error(`${p} is in the v3 document ${key} but not in v2`);
      const pd: PathData = { ops: {} };
      if (item.parameters?.length) pd.params = item.parameters.map((x: Json) => t.param(x));
      for (const [m, op] of Object.entries(item as Record<string, any>)) {
        if (m === 'parameters') continue;
        const v2op = v2item[m];
        const od: OperationData = {
          operationId: op.operationId,
          tags: op.tags,
          consumes: t.mediaList(v2op.consumes),
          produces: t.mediaList(v2op.produces),
          responses: {},
        };
        if (op['x-kubernetes-action']) od.action = op['x-kubernetes-action'];
        const gvk = op['x-kubernetes-group-version-kind'];
        if (gvk) od.gvk = [gvk.group, gvk.version, gvk.kind];
        if (op.parameters?.length) od.params = op.parameters.map((x: Json) => t.param(x));
        if (op.requestBody) {
          const schemas = Object.values(op.requestBody.content as Record<string, { schema: Json }>).map((c) => c.schema);
          od.body = bodyData(schemas[0]);
          const bp = (v2op.parameters ?? []).find((x: any) => x.in === 'body');
          if (bp?.required) od.bodyRequired = true;
        }
        for (const [code, r] of Object.entries(op.responses as Record<string, any>)) {
          const content = r.content ? Object.values(r.content as Record<string, { schema: Json }>) : [];
          const [first] = content;
          od.responses[code] = first ? bodyData(first.schema) : null;
        }
        pd.ops[m] = od;
      }
      paths[p] = pd;
    }
    docs[key] = paths;
    for (const [n, s] of Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>)) {
      const stripped = stripSchema(s) as Schema;
      if (defs[n] && !equal(defs[n], stripped)) throw new Error(`definition ${n} differs between documents`);
      defs[n] = stripped;
    }
  }
  const data: OpenApiData = {
    source: '', version: golden.v3['api/v1'].info.version,
    params: t.params, media: t.media, defs, defsV2: {}, docs,
  };
  for (const n of Object.keys(defs)) {
    const recorded = golden.v2.definitions[n];
    if (recorded && !equal(schemaToV2(defs[n]), stripSchema(recorded))) data.defsV2[n] = stripSchema(recorded) as Schema;
  }
  return data;
}

/** Expands the compact data and compares it with the recorded documents; returns the differences. */
export function check(data: OpenApiData, golden: GoldenDocs): string[] {
  const problems: string[] = [];
  for (const [key, doc] of Object.entries(golden.v3)) {
    const mine = v3Document(data, key);
    const theirs = stripDoc({ paths: doc.paths, components: { schemas: doc.components?.schemas ?? {} } }) as any;
    const d = firstDifference(stripDoc({ paths: mine.paths, components: { schemas: (mine.components as any).schemas } }), theirs);
    if (d) problems.push(`v3 ${key}: ${d}`);
  }
  const v2 = v2Document(data, Object.keys(golden.v3));
  for (const [p, item] of Object.entries(v2.paths as Record<string, Json>)) {
    const d = firstDifference(stripDoc(item), stripDoc(golden.v2.paths[p]));
    if (d) problems.push(`v2 ${p}: ${d}`);
  }
  for (const n of Object.keys(v2.definitions as object)) {
    const d = firstDifference(definitionV2(data, n), stripSchema(golden.v2.definitions[n]));
    if (d) problems.push(`v2 definition ${n}: ${d}`);
  }
  // Response descriptions are the HTTP reason phrases expand.ts writes.
  for (const doc of [golden.v2, ...Object.values(golden.v3)]) {
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const [m, op] of Object.entries(item)) {
        if (m === 'parameters') continue;
        for (const [code, r] of Object.entries(op.responses as Record<string, { description?: string }>)) {
          if (r.description !== RESPONSE_TEXT[code]) problems.push(`response ${code} described as ${r.description}`);
        }
      }
    }
  }
  return problems;
}

/** One definition, path or table entry per line: compact, and diffs stay readable. */
export function format(data: OpenApiData): string {
  const lines = (o: Record<string, unknown>, indent: string) =>
    Object.entries(o).map(([k, v]) => `${indent}${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n');
  const list = (a: unknown[], indent: string) => a.map((v) => `${indent}${JSON.stringify(v)}`).join(',\n');
  const docs = Object.entries(data.docs).map(([k, paths]) => `    ${JSON.stringify(k)}: {\n${lines(paths, '      ')}\n    }`).join(',\n');
  return [
    '{',
    `  "source": ${JSON.stringify(data.source)},`,
    `  "version": ${JSON.stringify(data.version)},`,
    `  "params": [\n${list(data.params, '    ')}\n  ],`,
    `  "media": [\n${list(data.media, '    ')}\n  ],`,
    `  "defsV2": {\n${lines(data.defsV2, '    ')}\n  },`,
    `  "docs": {\n${docs}\n  },`,
    `  "defs": {\n${lines(data.defs, '    ')}\n  }`,
    '}',
    '',
  ].join('\n');
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const dir = process.argv[2] ?? '/work/shared/golden/openapi';
  const output = process.argv[3] ?? fileURLToPath(new URL('../../src/openapi/openapi-data.json', import.meta.url));
  const golden = loadGolden(dir);
  const data = compact(golden);
  const problems = check(data, golden);
  if (problems.length) {
    console.error(`the compact data does not expand to the recorded documents:\n${problems.slice(0, 20).join('\n')}`);
    process.exit(1);
  }
  const recorded = data.version;
  applyAdditions(data);
  data.source = `structure of the Kubernetes ${recorded} OpenAPI documents (../shared/golden/openapi), ` +
    `with the fields added up to v1.32 (scripts/gen-openapi-additions.ts); no upstream descriptions`;
  const text = format(data);
  writeFileSync(output, text);
  console.log(`${output}: ${Object.keys(data.defs).length} definitions, ${Object.values(data.docs).reduce((n, d) => n + Object.keys(d).length, 0)} paths, ${text.length} bytes`);
}

/**
 * Generates src/fieldmanager/schema-data.json from the upstream OpenAPI v3
 * documents: the structure server-side apply walks (which fields are structs,
 * maps or lists; list types and map keys, `x-kubernetes-map-type`, the default
 * values of list-map key fields) and, per kind, the "empty object" Go's zero
 * value of the type serializes to (what a create is compared against). No
 * descriptions are copied.
 *
 *   npx tsc -p tsconfig.json; node dist/scripts/gen-fieldmanager-schema.js [openapi-v3-dir] [out.json]
 *
 * Encoding of a field's type (FieldType in src/fieldmanager/schema.ts):
 *   0                         a scalar, or anything without structure (deduced from the value)
 *   "Name"                    a struct definition
 *   {"m": T, "a": 1}          a map whose values are T ("a": map-type atomic)
 *   {"a": 1}                  an atomic map or struct whose fields are not walked
 *   {"r": "Name", "a": 0}     a struct definition that is atomic elsewhere, granular here
 *   {"s": 1}                  a list of type set (of scalars)
 *   {"k": [...], "i": "Name", "d": {...}}  a list of type map with these keys, item definition and key defaults
 * Lists of type atomic are 0: a list without structure is atomic.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FieldType, FieldManagerSchemaData, StructDef } from '../src/fieldmanager/schema.js';
import { addFlowcontrolV1 } from './flowcontrol-v1.js';
import { VALIDATING_ADMISSION_POLICY_DEFS } from './validating-admission-policy-v1.js';
import { APISERVICE_DEFS } from './apiservice-v1.js';

interface Prop {
  $ref?: string;
  allOf?: Prop[];
  type?: string;
  items?: Prop;
  additionalProperties?: Prop | boolean;
  default?: unknown;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}
interface Def extends Prop {
  properties?: Record<string, Prop>;
  required?: string[];
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
}

const REF = '#/components/schemas/';
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function generate(defs: Record<string, Def>, source = ''): FieldManagerSchemaData {
  const refOf = (p: Prop | boolean | undefined): string | undefined => {
    if (!p || typeof p === 'boolean') return undefined;
    const r = p.$ref ?? p.allOf?.find((a) => a.$ref)?.$ref;
    return r?.startsWith(REF) ? r.slice(REF.length) : undefined;
  };
  /** A definition walked as a struct: one with properties. */
  const isStruct = (name: string | undefined): name is string => !!name && !!defs[name]?.properties;
  /** A definition the walk reached by name; every name it holds comes from defs. */
  const defOf = (name: string): Def => {
    const d = defs[name];
    if (!d) throw new Error(`no definition ${name}`);
    return d;
  };

  const used = new Set<string>();
  const queue: string[] = [];
  const need = (name: string) => { if (!used.has(name)) { used.add(name); queue.push(name); } };

  const fieldType = (p: Prop): FieldType => {
    const ref = refOf(p);
    if (ref) {
      const d = defs[ref];
      const own = p['x-kubernetes-map-type'];
      const atomic = (own ?? d?.['x-kubernetes-map-type']) === 'atomic';
      if (!isStruct(ref)) return atomic ? { a: 1 } : 0;
      if (atomic) return { a: 1 };
      need(ref);
      // A granular field of a type that is atomic elsewhere (e.g. PersistentVolumeSpec.claimRef).
      return defOf(ref)['x-kubernetes-map-type'] === 'atomic' ? { r: ref, a: 0 } : ref;
    }
    if (p.type === 'array') {
      let listType = p['x-kubernetes-list-type'];
      let keys = p['x-kubernetes-list-map-keys'];
      if (!listType) {
        // As kube-openapi's schemaconv: without a list type, a merge patch strategy makes the list associative.
        const strategy = p['x-kubernetes-patch-strategy'];
        if (strategy === 'merge' || strategy === 'merge,retainKeys') {
          const key = p['x-kubernetes-patch-merge-key'];
          listType = key ? 'map' : 'set';
          keys = key ? [key] : undefined;
        }
      }
      if (listType === 'set') return { s: 1 };
      if (listType === 'map' && keys?.length) {
        const item = refOf(p.items);
        if (!isStruct(item)) return 0;
        need(item);
        const d: Record<string, unknown> = {};
        for (const k of keys) {
          const kp = defOf(item).properties?.[k];
          if (kp && kp.default !== undefined) d[k] = kp.default;
        }
        return Object.keys(d).length ? { k: keys, i: item, d } : { k: keys, i: item };
      }
      return 0;
    }
    if (p.type === 'object' && p.additionalProperties && typeof p.additionalProperties === 'object') {
      const atomic = p['x-kubernetes-map-type'] === 'atomic';
      const v = refOf(p.additionalProperties);
      if (isStruct(v)) {
        need(v);
        return atomic ? { m: v, a: 1 } : { m: v };
      }
      return atomic ? { a: 1 } : 0;
    }
    return 0;
  };

  const kinds: Record<string, string> = {};
  for (const [name, def] of Object.entries(defs)) {
    for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
      if (!def.properties || gvk.kind.endsWith('List') || !def.properties.metadata) continue;
      kinds[`${gvk.group}/${gvk.version}/${gvk.kind}`] = name;
      need(name);
    }
  }
  const out: Record<string, StructDef> = {};
  while (queue.length) {
    const name = queue.shift()!;
    const d = defOf(name);
    const fields: Record<string, FieldType> = {};
    for (const [f, p] of Object.entries(d.properties ?? {}).sort(([a], [b]) => cmp(a, b))) fields[f] = fieldType(p);
    const s: StructDef = { f: fields };
    if (d['x-kubernetes-map-type'] === 'atomic') s.a = 1;
    out[name] = s;
  }

  // Go's zero value of a kind as JSON: non-pointer structs ("default": {}) are present, and so are required
  // (not omitempty) fields, as their zero value or null.
  const zero = (name: string, depth: number): Record<string, unknown> => {
    const d = defOf(name);
    const o: Record<string, unknown> = {};
    if (depth > 8) return o;
    for (const [f, p] of Object.entries(d.properties ?? {})) {
      if (f === 'apiVersion' || f === 'kind') continue;
      const ref = refOf(p);
      const isEmptyObject = typeof p.default === 'object' && p.default !== null && Object.keys(p.default).length === 0;
      if (isEmptyObject && isStruct(ref)) o[f] = zero(ref, depth + 1);
      else if (d.required?.includes(f)) o[f] = p.default !== undefined ? p.default : null;
    }
    // metav1.Time is a struct without omitempty effect: ObjectMeta always writes "creationTimestamp": null.
    if (name.endsWith('.ObjectMeta') && d.properties?.creationTimestamp) o.creationTimestamp = null;
    return o;
  };

  const short = shortNames([...used]);
  const data: FieldManagerSchemaData = { source, kinds: {}, zero: {}, defs: {} };
  for (const [k, name] of Object.entries(kinds).sort(([a], [b]) => cmp(a, b))) {
    data.kinds[k] = short.get(name)!;
    data.zero[k] = zero(name, 0);
  }
  const rename = (t: FieldType): FieldType => {
    if (typeof t === 'string') return short.get(t)!;
    if (t && typeof t === 'object') {
      const c = { ...t };
      if (c.m) c.m = short.get(c.m)!;
      if (c.r) c.r = short.get(c.r)!;
      if (c.i) c.i = short.get(c.i)!;
      return c;
    }
    return t;
  };
  for (const name of [...used].sort((a, b) => cmp(short.get(a)!, short.get(b)!))) {
    const s = out[name];
    if (!s) throw new Error(`${name} was used but never walked`);
    const fields: Record<string, FieldType> = {};
    for (const [f, t] of Object.entries(s.f)) fields[f] = rename(t);
    data.defs[short.get(name)!] = s.a ? { f: fields, a: 1 } : { f: fields };
  }
  return data;
}

/** The last three dotted segments where unambiguous ("apps.v1.Deployment", "meta.v1.ObjectMeta"). */
function shortNames(names: string[]): Map<string, string> {
  const short = (n: string) => n.split('.').slice(-3).join('.');
  const counts = new Map<string, number>();
  for (const n of names) counts.set(short(n), (counts.get(short(n)) ?? 0) + 1);
  return new Map(names.map((n) => [n, counts.get(short(n)) === 1 ? short(n) : n]));
}

/** One definition or kind per line. */
export function format(data: FieldManagerSchemaData): string {
  const block = (o: Record<string, unknown>) =>
    Object.entries(o).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n');
  return `{\n  "source": ${JSON.stringify(data.source)},\n  "kinds": {\n${block(data.kinds)}\n  },\n` +
    `  "zero": {\n${block(data.zero)}\n  },\n  "defs": {\n${block(data.defs)}\n  }\n}\n`;
}

export function readDefinitions(dir: string): { defs: Record<string, Def>; version: string } {
  const defs: Record<string, Def> = {};
  let version = '';
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { info?: { version?: string }; components?: { schemas?: Record<string, Def> } };
    version ||= doc.info?.version ?? '';
    Object.assign(defs, doc.components?.schemas ?? {});
  }
  // Served kinds the recording predates.
  addFlowcontrolV1(defs as Record<string, { [key: string]: unknown }>, true);
  Object.assign(defs, VALIDATING_ADMISSION_POLICY_DEFS, APISERVICE_DEFS);
  // NetworkPolicy's status went in v1.28.
  delete (defs['io.k8s.api.networking.v1.NetworkPolicy'] as { properties?: Record<string, unknown> } | undefined)?.properties?.status;
  delete defs['io.k8s.api.networking.v1.NetworkPolicyStatus'];
  return { defs, version };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const input = process.argv[2] ?? '/work/shared/golden/openapi/v3';
  const output = process.argv[3] ?? fileURLToPath(new URL('../../src/fieldmanager/schema-data.json', import.meta.url));
  const { defs, version } = readDefinitions(input);
  const data = generate(defs, `Kubernetes ${version}`.trim());
  writeFileSync(output, format(data));
  console.log(`${output}: ${Object.keys(data.defs).length} definitions, ${Object.keys(data.kinds).length} kinds`);
}

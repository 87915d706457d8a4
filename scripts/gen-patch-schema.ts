/**
 * Generates src/patch/patch-schema.json from the upstream swagger (OpenAPI v2):
 * per definition, only the fields that carry a strategic-merge-patch strategy or
 * merge key, or lead to a definition that does. Everything else patches like a
 * JSON merge patch, so it is left out to keep the committed file small.
 *
 *   npx tsc -p tsconfig.json; node dist/scripts/gen-patch-schema.js [swagger.json] [out.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PatchSchemaData, SchemaField } from '../src/patch/schema.js';
import { VALIDATING_ADMISSION_POLICY_DEFS } from './validating-admission-policy-v1.js';

interface SwaggerProp {
  $ref?: string;
  type?: string;
  items?: SwaggerProp;
  additionalProperties?: SwaggerProp | boolean;
  allOf?: SwaggerProp[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}
interface SwaggerDef {
  properties?: Record<string, SwaggerProp>;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
}
interface Swagger { info?: { version?: string }; definitions: Record<string, SwaggerDef> }

const REF = '#/definitions/';
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const refName = (p: SwaggerProp | boolean | undefined): string | undefined => {
  if (!p || typeof p === 'boolean') return undefined;
  const r = p.$ref ?? p.allOf?.find((a) => a.$ref)?.$ref;
  return r?.startsWith(REF) ? r.slice(REF.length) : undefined;
};

/** Raw field facts before pruning: which definitions a field leads to and how it patches. */
function describe(p: SwaggerProp): SchemaField {
  const f: SchemaField = {};
  const ref = refName(p);
  const items = p.type === 'array' ? refName(p.items) : undefined;
  const values = p.type === 'object' ? refName(p.additionalProperties) : undefined;
  if (ref) f.ref = ref;
  if (items) f.items = items;
  if (values) f.values = values;
  const strategy = p['x-kubernetes-patch-strategy'];
  if (strategy) f.strategy = strategy;
  if (p['x-kubernetes-patch-merge-key']) f.key = p['x-kubernetes-patch-merge-key'];
  if (p.type === 'array') f.list = true;
  return f;
}

/** Shortest unambiguous name: the last three dotted segments ("apps.v1.Deployment", "meta.v1.ObjectMeta"). */
function shortNames(names: string[]): Map<string, string> {
  const short = (n: string) => n.split('.').slice(-3).join('.');
  const counts = new Map<string, number>();
  for (const n of names) counts.set(short(n), (counts.get(short(n)) ?? 0) + 1);
  return new Map(names.map((n) => [n, counts.get(short(n)) === 1 ? short(n) : n]));
}

export function generate(swagger: Swagger): PatchSchemaData {
  const defs = swagger.definitions;
  const fields = new Map<string, Map<string, SchemaField>>();
  for (const [name, def] of Object.entries(defs)) {
    fields.set(name, new Map(Object.entries(def.properties ?? {}).map(([f, p]) => [f, describe(p)])));
  }
  const targets = (f: SchemaField) => [f.ref, f.items, f.values].filter((t): t is string => !!t && fields.has(t));
  const relevant = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, fs] of fields) {
      if (relevant.has(name)) continue;
      if ([...fs.values()].some((f) => f.strategy || f.key || targets(f).some((t) => relevant.has(t)))) {
        relevant.add(name);
        changed = true;
      }
    }
  }
  const kinds: [string, string][] = [];
  for (const [name, def] of Object.entries(defs)) {
    for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
      // Lists are never patched; leaving them out keeps the file smaller.
      if (relevant.has(name) && !gvk.kind.endsWith('List')) kinds.push([`${gvk.group}/${gvk.version}/${gvk.kind}`, name]);
    }
  }
  const reachable = new Set<string>();
  const visit = (name: string) => {
    if (reachable.has(name) || !relevant.has(name)) return;
    reachable.add(name);
    for (const f of fields.get(name)!.values()) targets(f).forEach(visit);
  };
  kinds.forEach(([, name]) => visit(name));

  const names = shortNames([...reachable]);
  const out: PatchSchemaData = { source: `Kubernetes ${swagger.info?.version ?? ''}`.trim(), kinds: {}, defs: {} };
  for (const [k, v] of kinds.sort(([a], [b]) => cmp(a, b))) out.kinds[k] = names.get(v)!;
  for (const name of [...reachable].sort((a, b) => cmp(names.get(a)!, names.get(b)!))) {
    const entry: Record<string, SchemaField> = {};
    for (const [fname, f] of [...fields.get(name)!].sort(([a], [b]) => cmp(a, b))) {
      const keep: SchemaField = {};
      for (const k of ['ref', 'items', 'values'] as const) {
        const t = f[k];
        if (t && relevant.has(t)) keep[k] = names.get(t)!;
      }
      if (!f.strategy && !f.key && Object.keys(keep).length === 0) continue;
      if (f.strategy) keep.strategy = f.strategy;
      if (f.key) keep.key = f.key;
      if (f.list) keep.list = true;
      entry[fname] = keep;
    }
    out.defs[names.get(name)!] = entry;
  }
  return out;
}

/** One definition or kind per line: compact, yet diffs stay readable. */
export function format(data: PatchSchemaData): string {
  const block = (o: Record<string, unknown>) =>
    Object.entries(o).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n');
  return `{\n  "source": ${JSON.stringify(data.source)},\n  "kinds": {\n${block(data.kinds)}\n  },\n  "defs": {\n${block(data.defs)}\n  }\n}\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const input = process.argv[2] ?? '/work/shared/golden/openapi/v2.json';
  const output = process.argv[3] ?? fileURLToPath(new URL('../../src/patch/patch-schema.json', import.meta.url));
  const swagger = JSON.parse(readFileSync(input, 'utf8')) as Swagger;
  // Served kinds the recording predates, their references in v2 form.
  Object.assign(swagger.definitions, JSON.parse(JSON.stringify(VALIDATING_ADMISSION_POLICY_DEFS).replaceAll('#/components/schemas/', REF)));
  // NetworkPolicy's status went in v1.28.
  delete (swagger.definitions['io.k8s.api.networking.v1.NetworkPolicy'] as { properties?: Record<string, unknown> } | undefined)?.properties?.status;
  delete swagger.definitions['io.k8s.api.networking.v1.NetworkPolicyStatus'];
  const data = generate(swagger);
  writeFileSync(output, format(data));
  console.log(`${output}: ${Object.keys(data.defs).length} definitions, ${Object.keys(data.kinds).length} kinds`);
}

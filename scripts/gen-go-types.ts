/**
 * Generates src/openapi/go-types.json: the Go type of every field of the
 * served kinds, as reflect's Type.String() prints it in the JSON decoder's
 * errors ("json: cannot unmarshal string into Go struct field
 * ContainerPort.spec.containers.ports.protocol of type v1.Protocol"). The
 * OpenAPI data knows a field's JSON shape but not its Go name (v1.Protocol,
 * types.UID, v1.ResourceList), so this reads the Go sources of the API types:
 *
 *   node dist/scripts/gen-go-types.js <dir> [out.json]
 *
 * where <dir> holds k8s.io/api's group directories under api/ (api/core/v1/types.go, ...),
 * k8s.io/apimachinery's packages under apimachinery/ (apimachinery/pkg/apis/meta/v1/*.go, ...) and
 * k8s.io/apiextensions-apiserver's under apiextensions-apiserver/ (its pkg/apis/apiextensions/v1) and
 * k8s.io/kube-aggregator's under kube-aggregator/ (its pkg/apis/apiregistration/v1),
 * at the release the project emulates.
 *
 * Output: `fields` maps an OpenAPI definition name to { json field: Go type }
 * (pointers dropped, as the decoder reports the pointed-to type; inline
 * embedded structs flattened); `named` maps a named map or slice type to its
 * underlying type, for the type of its elements.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { openApiData } from '../src/openapi/data.js';

interface GoField { json: string; type: string; inline: boolean }
interface GoPackage { name: string; imports: Map<string, string>; structs: Map<string, GoField[]>; named: Map<string, string> }

/** OpenAPI definition prefix → source directory under <dir>. */
function sourceDirOf(prefix: string): string | undefined {
  if (prefix.startsWith('io.k8s.api.')) return join('api', ...prefix.slice('io.k8s.api.'.length).split('.'));
  if (prefix.startsWith('io.k8s.apimachinery.')) return join('apimachinery', ...prefix.slice('io.k8s.apimachinery.'.length).split('.'));
  if (prefix.startsWith('io.k8s.apiextensions-apiserver.')) {
    return join('apiextensions-apiserver', ...prefix.slice('io.k8s.apiextensions-apiserver.'.length).split('.'));
  }
  if (prefix.startsWith('io.k8s.kube-aggregator.')) return join('kube-aggregator', ...prefix.slice('io.k8s.kube-aggregator.'.length).split('.'));
  return undefined;
}

const STRUCT_RE = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
const NAMED_RE = /^type (\w+) ((?:map\[|\[\]|\*)?[\w.[\]*]+)\s*$/gm;
const FIELD_RE = /^\t(?:(\w+)\s+)?([\w.[\]*]+)\s+`([^`]*)`/;

function parsePackage(dir: string): GoPackage {
  const pkg: GoPackage = { name: '', imports: new Map(), structs: new Map(), named: new Map() };
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.go')).sort()) {
    const text = readFileSync(join(dir, f), 'utf8');
    pkg.name ||= /^package (\w+)/m.exec(text)?.[1] ?? '';
    for (const m of text.matchAll(/^\s*(\w+\s+)?"([^"]+)"\s*$/gm)) {
      const [, alias, path = ''] = m;
      const last = path.split('/').pop() ?? '';
      pkg.imports.set(alias?.trim() ?? last, last);
    }
    for (const [, structName = '', body = ''] of text.matchAll(STRUCT_RE)) {
      const fields: GoField[] = [];
      for (const line of body.split('\n')) {
        const f2 = FIELD_RE.exec(line);
        if (!f2) continue;
        const [, fieldName, fieldType = '', tags = ''] = f2;
        const tag = /json:"([^"]*)"/.exec(tags)?.[1];
        if (tag === undefined || tag === '-') continue;
        const [jsonName = ''] = tag.split(',');
        fields.push({ json: jsonName, type: fieldType, inline: !fieldName && tag.split(',').includes('inline') });
      }
      pkg.structs.set(structName, fields);
    }
    for (const [, name = '', underlying = ''] of text.matchAll(NAMED_RE)) pkg.named.set(name, underlying);
  }
  return pkg;
}

const BUILTIN = new Set(['string', 'bool', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64',
  'float32', 'float64', 'byte', 'rune', 'interface{}', 'any']);

/** reflect's Type.String() of a Go type expression written in package pkg. */
function typeString(expr: string, pkg: GoPackage): string {
  if (expr.startsWith('*')) return typeString(expr.slice(1), pkg);
  if (expr.startsWith('[]')) return `[]${typeString(expr.slice(2), pkg)}`;
  if (expr.startsWith('map[')) {
    let depth = 0;
    let i = 3;
    for (; i < expr.length; i++) {
      if (expr[i] === '[') depth++;
      else if (expr[i] === ']' && --depth === 0) break;
    }
    return `map[${typeString(expr.slice(4, i), pkg)}]${typeString(expr.slice(i + 1), pkg)}`;
  }
  if (expr === 'byte') return 'uint8';
  if (BUILTIN.has(expr)) return expr;
  const dot = expr.indexOf('.');
  if (dot >= 0) return `${pkg.imports.get(expr.slice(0, dot)) ?? expr.slice(0, dot)}.${expr.slice(dot + 1)}`;
  return `${pkg.name}.${expr}`;
}

function main(): void {
  const [dir, out = 'src/openapi/go-types.json'] = process.argv.slice(2);
  if (!dir) throw new Error('usage: gen-go-types <dir> [out.json]');
  const packages = new Map<string, GoPackage>();
  const packageAt = (sub: string): GoPackage | undefined => {
    if (!packages.has(sub)) packages.set(sub, parsePackage(join(dir, sub)));
    return packages.get(sub);
  };
  /** The package an import alias of pkg (at sub) refers to, by directory. */
  const importDir = (sub: string, alias: string): string | undefined => {
    for (const f of readdirSync(join(dir, sub)).filter((n) => n.endsWith('.go'))) {
      const text = readFileSync(join(dir, sub, f), 'utf8');
      for (const m of text.matchAll(/^\s*(\w+\s+)?"k8s\.io\/(api|apimachinery|apiextensions-apiserver)\/([^"]+)"/gm)) {
        const [, importAlias, repo = '', pkgPath = ''] = m;
        if ((importAlias?.trim() ?? pkgPath.split('/').pop()) === alias) return join(repo, pkgPath);
      }
    }
    return undefined;
  };
  const fieldsOf = (sub: string, struct: string): Record<string, string> | undefined => {
    const pkg = packageAt(sub);
    const fields = pkg?.structs.get(struct);
    if (!pkg || !fields) return undefined;
    const outFields: Record<string, string> = {};
    for (const f of fields) {
      if (f.inline || f.json === '') {
        const t = f.type.replace(/^\*/, '');
        const dot = t.indexOf('.');
        const innerDir = dot >= 0 ? importDir(sub, t.slice(0, dot)) : sub;
        const inner = innerDir ? fieldsOf(innerDir, dot >= 0 ? t.slice(dot + 1) : t) : undefined;
        if (inner) Object.assign(outFields, inner);
        continue;
      }
      outFields[f.json] = typeString(f.type, pkg);
    }
    return outFields;
  };
  const result: { fields: Record<string, Record<string, string>>; named: Record<string, string> } = { fields: {}, named: {} };
  for (const name of Object.keys(openApiData.defs).sort()) {
    const i = name.lastIndexOf('.');
    const sub = sourceDirOf(name.slice(0, i));
    if (!sub || !existsSync(join(dir, sub))) continue;
    const f = fieldsOf(sub, name.slice(i + 1));
    if (f) result.fields[name] = f;
  }
  for (const pkg of packages.values()) {
    for (const [n, t] of pkg.named) {
      if (/^[A-Z]/.test(n) && (t.startsWith('map[') || t.startsWith('[]'))) result.named[`${pkg.name}.${n}`] = typeString(t, pkg);
    }
  }
  writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
  console.log(`${Object.keys(result.fields).length} definitions, ${Object.keys(result.named).length} named map/slice types -> ${out}`);
}

main();

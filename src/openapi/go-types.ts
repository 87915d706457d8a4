/**
 * The Go type of each served kind as the API server's JSON decoder sees it:
 * what every field decodes into (a struct, a slice, a map, a string, an int32,
 * a float64, base64 bytes, or a type with its own UnmarshalJSON such as
 * resource.Quantity), and reflect's name of that type for the decoder's
 * errors. The structure comes from the OpenAPI data; the Go names, which the
 * OpenAPI data does not keep (v1.Protocol, types.UID, v1.ResourceList), from
 * go-types.json (scripts/gen-go-types.ts). Compiled lazily, once per type.
 */
import { openApiData, type OpenApiData, type Schema } from './data.js';
import goTypeNames from './go-types.json' with { type: 'json' };
import { isObject } from '../meta/json.js';

export type GoKind =
  | 'struct' | 'slice' | 'map' | 'string' | 'bool' | 'int' | 'float' | 'bytes'
  /** Types whose UnmarshalJSON decides (errors are returned as they are, ending the decode). */
  | 'quantity' | 'intOrString' | 'time' | 'microTime'
  /** RawExtension, FieldsV1: any JSON value is kept as it is. */
  | 'raw';

export interface GoType {
  readonly kind: GoKind;
  /** reflect's Type.String(): "int32", "[]v1.Container", "v1.ResourceList". */
  readonly name: string;
  /** int: 32 or 64; float: 64. */
  readonly bits: number;
  /** struct: reflect's Type.Name(), the struct in "Go struct field <Struct>.<path>". */
  readonly structName: string;
  /** struct: its JSON fields (inline embedded structs flattened). */
  field(key: string): GoType | undefined;
  /**
   * struct: the field named by text[start, end) (a key without escapes) whose
   * keyHash is `hash`, found without slicing the text.
   */
  fieldAt(text: string, start: number, end: number, hash: number): GoType | undefined;
  /** slice and map: the element type. */
  readonly elem: GoType;
}

interface GoTypeNames { fields: Record<string, Record<string, string>>; named: Record<string, string> }
const NAMES = goTypeNames as GoTypeNames;

const REF = '#/components/schemas/';
const SPECIAL: Record<string, GoKind> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'microTime',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'raw',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'raw',
};

function refOf(s: Schema): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref.slice(REF.length);
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && isObject(s.allOf[0]) && typeof s.allOf[0].$ref === 'string') {
    return (s.allOf[0].$ref as string).slice(REF.length);
  }
  return undefined;
}

/** "io.k8s.api.core.v1.Container" → "v1.Container", as reflect names the type. */
function goNameOfDefinition(def: string): string {
  const parts = def.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

/** The element type's name of a slice or map type name ("[]v1.Container" → "v1.Container"). */
function elemName(name: string): string {
  const underlying = NAMES.named[name] ?? name;
  if (underlying.startsWith('[]')) return underlying.slice(2);
  if (underlying.startsWith('map[')) {
    let depth = 0;
    for (let i = 3; i < underlying.length; i++) {
      if (underlying[i] === '[') depth++;
      else if (underlying[i] === ']' && --depth === 0) return underlying.slice(i + 1);
    }
  }
  return 'interface {}';
}

/** Struct fields by keyHash, so a key is found by comparing it in place. */
interface FieldTable { hashes: Int32Array; names: (string | undefined)[]; types: (GoType | undefined)[] }

/** The hash fieldAt looks fields up by: h = h * 31 + c over the name's UTF-16 code units, in 30 bits (a small integer to V8). */
export function keyHash(s: string, start = 0, end = s.length): number {
  let h = 0;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) & 0x3fffffff;
  return h;
}

class Type implements GoType {
  private fieldMap: Map<string, GoType> | undefined = undefined;
  private table: FieldTable | undefined = undefined;
  private elemType: GoType | undefined = undefined;

  constructor(
    private readonly types: GoTypes,
    readonly kind: GoKind,
    readonly name: string,
    readonly bits: number,
    readonly structName: string,
    /** struct: the definition; slice, map: the element schema. */
    private readonly source: { def?: string; elem?: Schema },
  ) {}

  field(key: string): GoType | undefined {
    if (!this.fieldMap) {
      const map = new Map<string, GoType>();
      const def = this.source.def!;
      const s = this.types.data.defs[def];
      const names = NAMES.fields[def] ?? {};
      if (s && isObject(s.properties)) {
        for (const [f, p] of Object.entries(s.properties)) map.set(f, this.types.compile(p as Schema, names[f]));
      }
      this.fieldMap = map;
    }
    return this.fieldMap.get(key);
  }

  fieldAt(text: string, start: number, end: number, hash: number): GoType | undefined {
    const table = this.table ??= this.buildTable();
    const mask = table.hashes.length - 1;
    for (let i = hash & mask; table.names[i] !== undefined; i = (i + 1) & mask) {
      if (table.hashes[i] !== hash) continue;
      const name = table.names[i]!;
      if (name.length !== end - start) continue;
      let j = 0;
      while (j < name.length && name.charCodeAt(j) === text.charCodeAt(start + j)) j++;
      if (j === name.length) return table.types[i];
    }
    return undefined;
  }

  /** An open-addressing table of the fields by keyHash, at most half full. */
  private buildTable(): FieldTable {
    this.field('');
    let size = 4;
    while (size < this.fieldMap!.size * 2) size *= 2;
    const table: FieldTable = { hashes: new Int32Array(size), names: new Array(size).fill(undefined), types: new Array(size).fill(undefined) };
    for (const [name, type] of this.fieldMap!) {
      const h = keyHash(name);
      let i = h & (size - 1);
      while (table.names[i] !== undefined) i = (i + 1) & (size - 1);
      table.hashes[i] = h;
      table.names[i] = name;
      table.types[i] = type;
    }
    return table;
  }

  get elem(): GoType {
    return (this.elemType ??= this.types.compile(this.source.elem ?? {}, elemName(this.name)));
  }
}

export class GoTypes {
  private readonly byDef = new Map<string, GoType>();
  private readonly byKind = new Map<string, string>();

  constructor(readonly data: OpenApiData = openApiData) {
    for (const [name, def] of Object.entries(data.defs)) {
      const gvks = def['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const g of gvks as { group: string; version: string; kind: string }[]) this.byKind.set(`${g.group}/${g.version}/${g.kind}`, name);
    }
  }

  /** The Go type of a served kind, e.g. ("apps", "v1", "Deployment") → v1.Deployment. */
  forKind(group: string, version: string, kind: string): GoType | undefined {
    const name = this.byKind.get(`${group}/${version}/${kind}`);
    return name ? this.definition(name) : undefined;
  }

  definition(def: string): GoType {
    let t = this.byDef.get(def);
    if (!t) {
      const special = SPECIAL[def];
      const s = this.data.defs[def];
      if (special) t = new Type(this, special, goNameOfDefinition(def), 0, '', {});
      else if (s && isObject(s.properties)) t = new Type(this, 'struct', goNameOfDefinition(def), 0, def.slice(def.lastIndexOf('.') + 1), { def });
      else t = new Type(this, 'raw', goNameOfDefinition(def), 0, '', {});
      this.byDef.set(def, t);
    }
    return t;
  }

  /** The type of a field or element from its schema and, when known, its Go name. */
  compile(s: Schema, goName: string | undefined): GoType {
    const ref = refOf(s);
    if (ref) return this.definition(ref);
    switch (s.type) {
      case 'array': return new Type(this, 'slice', goName ?? '[]interface {}', 0, '', { elem: isObject(s.items) ? s.items : {} });
      case 'object':
        if (isObject(s.additionalProperties)) {
          return new Type(this, 'map', goName ?? 'map[string]interface {}', 0, '', { elem: s.additionalProperties });
        }
        return new Type(this, 'raw', goName ?? 'interface {}', 0, '', {});
      case 'string':
        if (s.format === 'byte') return new Type(this, 'bytes', goName ?? '[]uint8', 0, '', {});
        return new Type(this, 'string', goName ?? 'string', 0, '', {});
      case 'boolean': return new Type(this, 'bool', goName ?? 'bool', 0, '', {});
      case 'integer': {
        const bits = s.format === 'int32' ? 32 : 64;
        return new Type(this, 'int', goName ?? (s.format === 'int32' ? 'int32' : 'int64'), bits, '', {});
      }
      case 'number': return new Type(this, 'float', goName ?? 'float64', 64, '', {});
      default: return new Type(this, 'raw', goName ?? 'interface {}', 0, '', {});
    }
  }
}

let shared: GoTypes | undefined;

/** The Go types of the built-in OpenAPI data, compiled on first use. */
export function goTypes(): GoTypes {
  return (shared ??= new GoTypes());
}

/**
 * The structure server-side apply walks, per built-in kind: structs, maps,
 * lists of type atomic/set/map with their keys (from upstream's OpenAPI,
 * generated into schema-data.json by scripts/gen-fieldmanager-schema.ts).
 */
import builtin from './schema-data.json' with { type: 'json' };

/** A field's type in the generated data (see scripts/gen-fieldmanager-schema.ts). */
export type FieldType = 0 | string | {
  m?: string; r?: string; a?: 0 | 1; s?: 1; k?: string[]; i?: string; d?: Record<string, unknown>;
};
export interface StructDef { f: Record<string, FieldType>; a?: 1 }
export interface FieldManagerSchemaData {
  source: string;
  /** "group/version/Kind" (core group empty: "/v1/Pod") to definition name. */
  kinds: Record<string, string>;
  /** Per kind, the JSON of Go's zero value of the type (what a create is compared with). */
  zero: Record<string, Record<string, unknown>>;
  defs: Record<string, StructDef>;
}

export interface StructType { t: 'struct'; name: string; fields: Map<string, TypeNode>; atomic: boolean }
export interface MapType { t: 'map'; values: TypeNode; atomic: boolean }
export interface ListType { t: 'list'; rel: 'set' | 'map'; keys: string[]; defaults: Record<string, unknown>; items: TypeNode }
/** A leaf whatever its value: a scalar, or an atomic map, struct or list. */
export interface AtomicType { t: 'atomic' }
/** No schema: maps are granular (of deduced values), lists atomic, scalars leaves. */
export interface DeducedType { t: 'deduced' }
export type TypeNode = StructType | MapType | ListType | AtomicType | DeducedType;

export const ATOMIC: AtomicType = { t: 'atomic' };
export const DEDUCED: DeducedType = { t: 'deduced' };

/** Resolves definitions lazily into shared, possibly cyclic, type nodes. */
export class Schema {
  private readonly structs = new Map<string, StructType>();

  constructor(readonly data: FieldManagerSchemaData) {}

  kind(group: string, version: string, kind: string): StructType | undefined {
    const name = this.data.kinds[`${group}/${version}/${kind}`];
    return name ? this.struct(name, false) : undefined;
  }

  /** A definition by its name in the data ("meta.v1.ObjectMeta"). */
  named(name: string): StructType {
    return this.struct(name, false);
  }

  zero(group: string, version: string, kind: string): Record<string, unknown> | undefined {
    return this.data.zero[`${group}/${version}/${kind}`];
  }

  private struct(name: string, forceGranular: boolean): StructType {
    const key = forceGranular ? `${name}\u0000g` : name;
    let s = this.structs.get(key);
    if (s) return s;
    const def = this.data.defs[name];
    s = { t: 'struct', name, fields: new Map(), atomic: !forceGranular && def?.a === 1 };
    this.structs.set(key, s);
    for (const [f, ft] of Object.entries(def?.f ?? {})) s.fields.set(f, this.field(ft));
    return s;
  }

  private field(ft: FieldType): TypeNode {
    if (ft === 0) return DEDUCED;
    if (typeof ft === 'string') return this.struct(ft, false);
    if (ft.r) return this.struct(ft.r, ft.a === 0);
    if (ft.k && ft.i) return { t: 'list', rel: 'map', keys: ft.k, defaults: ft.d ?? {}, items: this.struct(ft.i, false) };
    if (ft.s) return { t: 'list', rel: 'set', keys: [], defaults: {}, items: DEDUCED };
    if (ft.m) return { t: 'map', values: this.struct(ft.m, false), atomic: ft.a === 1 };
    if (ft.a) return ATOMIC;
    return DEDUCED;
  }
}

export const builtinSchema = new Schema(builtin as FieldManagerSchemaData);

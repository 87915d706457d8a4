/**
 * Strategic-merge-patch metadata per built-in kind, from the upstream swagger's
 * x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key (the same data as
 * the Go struct tags the apiserver reads). Regenerate patch-schema.json with
 * scripts/gen-patch-schema.ts.
 */
import builtin from './patch-schema.json' with { type: 'json' };

export interface SchemaField {
  /** Definition of an object-valued field. */
  ref?: string;
  /** Definition of the elements of a list field. */
  items?: string;
  /** Definition of the values of a map-valued field. */
  values?: string;
  /** x-kubernetes-patch-strategy, e.g. "merge" or "merge,retainKeys". */
  strategy?: string;
  /** x-kubernetes-patch-merge-key. */
  key?: string;
  list?: boolean;
}

export interface PatchSchemaData {
  source?: string;
  /** "group/version/Kind" (core group empty: "/v1/Pod") to definition name. */
  kinds: Record<string, string>;
  defs: Record<string, Record<string, SchemaField>>;
}

export interface FieldPatchMeta {
  /** The field's strategies split on ",", as upstream's PatchMeta.GetPatchStrategies. */
  strategies: string[];
  mergeKey: string;
  schema: PatchSchema;
}

/** A position in the schema that the SMP engine walks, like upstream's LookupPatchMeta. */
export class PatchSchema {
  private constructor(
    private readonly data: PatchSchemaData,
    private readonly def: string | undefined,
    private readonly mapOf: string | undefined,
  ) {}

  static of(data: PatchSchemaData, def: string): PatchSchema {
    return new PatchSchema(data, def, undefined);
  }

  private meta(field: string, sub: (f: SchemaField) => PatchSchema): FieldPatchMeta {
    if (this.mapOf !== undefined) return { strategies: [], mergeKey: '', schema: this.at(this.mapOf) };
    const defn = this.def === undefined ? undefined : this.data.defs[this.def];
    const f = defn && Object.hasOwn(defn, field) ? defn[field]! : undefined;
    if (!f) return { strategies: [], mergeKey: '', schema: EMPTY_SCHEMA };
    return { strategies: f.strategy ? f.strategy.split(',') : [], mergeKey: f.key ?? '', schema: sub(f) };
  }

  private at(def: string | undefined, mapOf?: string): PatchSchema {
    if (def === undefined && mapOf === undefined) return EMPTY_SCHEMA;
    return new PatchSchema(this.data, def, mapOf);
  }

  /** Metadata for a field holding an object (a struct or a map). */
  lookupForMap(field: string): FieldPatchMeta {
    return this.meta(field, (f) => (f.ref ? this.at(f.ref) : this.at(undefined, f.values)));
  }

  /** Metadata for a field holding a list; the schema is that of its elements. */
  lookupForSlice(field: string): FieldPatchMeta {
    return this.meta(field, (f) => this.at(f.items));
  }
}

/** Knows no strategies: every list is replaced and every map merged, as in a JSON merge patch. */
export const EMPTY_SCHEMA = PatchSchema.of({ kinds: {}, defs: {} }, 'unknown');

const data = builtin as PatchSchemaData;
const key = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

/** Whether upstream has a Go type for the kind, i.e. serves application/strategic-merge-patch+json for it. */
export function hasPatchSchema(group: string, version: string, kind: string): boolean {
  return Object.hasOwn(data.kinds, key(group, version, kind));
}

export function patchSchemaFor(group: string, version: string, kind: string): PatchSchema {
  const def = hasPatchSchema(group, version, kind) ? data.kinds[key(group, version, kind)] : undefined;
  return def ? PatchSchema.of(data, def) : EMPTY_SCHEMA;
}

/**
 * The shape of each served kind as the API server's decoder sees its Go
 * types: which fields a struct has, which fields are maps or lists of what,
 * and which hold free-form JSON (RawExtension, FieldsV1) that nothing checks.
 * Compiled lazily from the OpenAPI data, for field validation.
 */
import { openApiData, type OpenApiData, type Schema } from './data.js';

export type ShapeNode =
  | { kind: 'struct'; fields: Map<string, () => ShapeNode> }
  | { kind: 'map'; values: () => ShapeNode }
  | { kind: 'list'; items: () => ShapeNode }
  | { kind: 'scalar' }
  /** Free-form JSON decoded by a custom unmarshaller: not checked. */
  | { kind: 'any' };

const SCALAR: ShapeNode = { kind: 'scalar' };
const ANY: ShapeNode = { kind: 'any' };
const REF = '#/components/schemas/';

import { isObject } from '../meta/json.js';

export class Shapes {
  private readonly byDef = new Map<string, ShapeNode>();
  private readonly byKind = new Map<string, string>();

  constructor(private readonly data: OpenApiData = openApiData) {
    for (const [name, def] of Object.entries(data.defs)) {
      const gvks = def['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const g of gvks as { group: string; version: string; kind: string }[]) {
        this.byKind.set(`${g.group}/${g.version}/${g.kind}`, name);
      }
    }
  }

  /** The definition name of a kind, e.g. "apps/v1/Deployment" → "io.k8s.api.apps.v1.Deployment". */
  definitionOf(group: string, version: string, kind: string): string | undefined {
    return this.byKind.get(`${group}/${version}/${kind}`);
  }

  forKind(group: string, version: string, kind: string): ShapeNode | undefined {
    const name = this.definitionOf(group, version, kind);
    return name ? this.def(name) : undefined;
  }

  def(name: string): ShapeNode {
    let node = this.byDef.get(name);
    if (!node) {
      const s = this.data.defs[name];
      node = s ? this.compile(s) : ANY;
      this.byDef.set(name, node);
    }
    return node;
  }

  private compile(s: Schema): ShapeNode {
    const ref = refOf(s);
    if (ref) return this.def(ref);
    if (isObject(s.properties)) {
      const fields = new Map<string, () => ShapeNode>();
      for (const [f, p] of Object.entries(s.properties)) {
        let cached: ShapeNode | undefined;
        fields.set(f, () => (cached ??= this.compile(p as Schema)));
      }
      return { kind: 'struct', fields };
    }
    if (s.type === 'array') {
      let cached: ShapeNode | undefined;
      return { kind: 'list', items: () => (cached ??= isObject(s.items) ? this.compile(s.items) : ANY) };
    }
    if (s.type === 'object') {
      if (isObject(s.additionalProperties)) {
        const values = s.additionalProperties;
        let cached: ShapeNode | undefined;
        return { kind: 'map', values: () => (cached ??= this.compile(values)) };
      }
      return ANY;
    }
    if (s.type === undefined && s.format === undefined && !Array.isArray(s.oneOf)) return ANY;
    return SCALAR;
  }
}

function refOf(s: Schema): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref.slice(REF.length);
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && isObject(s.allOf[0]) && typeof s.allOf[0].$ref === 'string') {
    return (s.allOf[0].$ref as string).slice(REF.length);
  }
  return undefined;
}

let shared: Shapes | undefined;

/** The shapes of the built-in data, compiled on first use. */
export function shapes(): Shapes {
  return (shared ??= new Shapes());
}

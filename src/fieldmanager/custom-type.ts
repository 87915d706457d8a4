/**
 * The type server-side apply walks for a custom resource, from its version's structural schema,
 * as kube-openapi's schemaconv converts the CRD's OpenAPI model: `x-kubernetes-list-type`
 * (atomic by default, set, map keyed by `x-kubernetes-list-map-keys`), `x-kubernetes-map-type`
 * (granular by default, atomic), and metadata typed as ObjectMeta.
 */
import type { Schema as CRDSchema } from '../openapi/crd-schema.js';
import { ATOMIC, DEDUCED, builtinSchema, type StructType, type TypeNode } from './schema.js';

function isSchema(v: unknown): v is CRDSchema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The type of one schema node. */
export function typeOfSchema(s: CRDSchema): TypeNode {
  if (s['x-kubernetes-int-or-string']) return ATOMIC;
  if (s.type === 'array') {
    const items = isSchema(s.items) ? typeOfSchema(s.items) : DEDUCED;
    switch (s['x-kubernetes-list-type']) {
      case 'map': {
        const keys = s['x-kubernetes-list-map-keys'] ?? [];
        const defaults: Record<string, unknown> = {};
        const itemProps = isSchema(s.items) ? s.items.properties ?? {} : {};
        for (const k of keys) {
          const d = itemProps[k]?.default;
          if (d !== undefined) defaults[k] = d;
        }
        return { t: 'list', rel: 'map', keys, defaults, items };
      }
      case 'set':
        return { t: 'list', rel: 'set', keys: [], defaults: {}, items };
      default:
        return ATOMIC;
    }
  }
  const atomic = s['x-kubernetes-map-type'] === 'atomic';
  if (s.properties) {
    const fields = new Map<string, TypeNode>();
    for (const [f, p] of Object.entries(s.properties)) fields.set(f, typeOfSchema(p));
    return { t: 'struct', name: '', fields, atomic };
  }
  if (isSchema(s.additionalProperties)) return { t: 'map', values: typeOfSchema(s.additionalProperties), atomic };
  if (s.type === 'object') return atomic ? ATOMIC : DEDUCED;
  return DEDUCED;
}

/** The type of a custom resource: its schema with apiVersion, kind and ObjectMeta at the top; deduced without one. */
export function customResourceType(schema: CRDSchema | undefined): TypeNode {
  if (!schema) return DEDUCED;
  const root = typeOfSchema(schema);
  const fields = new Map(root.t === 'struct' ? root.fields : []);
  fields.set('apiVersion', DEDUCED);
  fields.set('kind', DEDUCED);
  fields.set('metadata', builtinSchema.named('meta.v1.ObjectMeta'));
  const out: StructType = { t: 'struct', name: '', fields, atomic: false };
  return out;
}

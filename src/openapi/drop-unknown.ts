/**
 * Decoding an object into its Go type drops what the type has no field for: what a mutating
 * webhook's patch adds outside the kind's schema is gone once the apiserver decodes the result
 * (the mutating dispatcher's jsonSerializer.Decode, not strict).
 */
import { shapes } from './schema.js';
import { pruneUnknown, unknownFields } from './strict.js';

/** Drops the fields of `obj` its kind does not have; kinds without a known shape (custom resources) are left alone. */
export function dropUnknownFields(kind: { group: string; version: string; kind: string }, obj: Record<string, unknown>): void {
  const node = shapes().forKind(kind.group, kind.version, kind.kind);
  if (!node) return;
  pruneUnknown(unknownFields(obj, node, { sortKeys: false, mapKeysInPath: true }));
}

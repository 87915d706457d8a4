import type { KeyValue } from '../storage/types.js';
import { apiVersionOf, type KObject, type ResourceDef } from './types.js';

/**
 * Objects are stored as JSON without their resourceVersion, which is the
 * storage revision; kind, apiVersion and metadata come first so that
 * rawWithRevision can find metadata without parsing.
 */
export function encode(obj: KObject): string {
  const { kind, apiVersion, metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...meta } = metadata;
  return JSON.stringify({ kind, apiVersion, metadata: meta, ...rest });
}

const METADATA = '"metadata":{';

/** A stored value as served JSON, its resourceVersion spliced in: lists of many objects skip parsing. */
export function rawWithRevision(value: string, revision: number): string {
  const i = value.indexOf(METADATA) + METADATA.length;
  const sep = value[i] === '}' ? '' : ',';
  return `${value.slice(0, i)}"resourceVersion":"${revision}"${sep}${value.slice(i)}`;
}

export function decodeValue(def: ResourceDef, value: string, revision: number): KObject {
  let obj = JSON.parse(value) as KObject;
  obj.metadata.resourceVersion = String(revision);
  if (def.fromStorage) obj = def.fromStorage(obj);
  return withTypeMeta(def, obj);
}

export function decode(def: ResourceDef, kv: KeyValue): KObject {
  return decodeValue(def, kv.value, kv.modRevision);
}

/** kind and apiVersion first, as upstream serializes them. */
export function withTypeMeta(def: ResourceDef, obj: KObject): KObject {
  if (obj.kind === def.kind && obj.apiVersion === apiVersionOf(def)) return obj;
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return { kind: def.kind, apiVersion: apiVersionOf(def), ...rest } as KObject;
}

import type { KeyValue } from '../storage/types.js';
import { apiVersionOf, type KObject } from '../apimachinery/object.js';
import { type ResourceDef } from './types.js';

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

/**
 * Writes a stored value into buf as served JSON, its resourceVersion spliced
 * in, and returns the new offset: lists of many objects skip parsing. buf
 * needs rawLength(value, revision) bytes from off.
 */
export function writeWithRevision(buf: Buffer, off: number, value: string, revision: number): number {
  const i = value.indexOf(METADATA) + METADATA.length;
  off += buf.write(value.slice(0, i), off);
  off += buf.write(`"resourceVersion":"${revision}"${value[i] === '}' ? '' : ','}`, off);
  return off + buf.write(value.slice(i), off);
}

/** A stored value as served JSON, its resourceVersion spliced in (as writeWithRevision writes it). */
export function withRevision(value: string, revision: number): string {
  const i = value.indexOf(METADATA) + METADATA.length;
  return `${value.slice(0, i)}"resourceVersion":"${revision}"${value[i] === '}' ? '' : ','}${value.slice(i)}`;
}

export function rawLength(value: string, revision: number): number {
  // `"resourceVersion":"` (19) + digits + `"` + at most one comma.
  return Buffer.byteLength(value) + 22 + String(revision).length;
}

export function decodeValue(def: ResourceDef, value: string, revision: number): KObject {
  let obj = JSON.parse(value) as KObject;
  obj.metadata.resourceVersion = String(revision);
  if (def.fromStorage) obj = def.fromStorage(obj);
  return withTypeMeta(def, obj);
}

/**
 * A deep copy of a decoded object (plain JSON data), for a caller that may
 * change it: a walk copies such a value in well under half the time
 * JSON.parse takes to decode it again.
 */
export function cloneDecoded<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = cloneDecoded(v[i]);
    return a as T;
  }
  const out: Record<string, unknown> = {};
  // for-in: the own keys of JSON data, without an array per object.
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    // A "__proto__" key (JSON.parse makes it an own property) must stay one.
    if (k === '__proto__') Object.defineProperty(out, k, { value: cloneDecoded(x), enumerable: true, writable: true, configurable: true });
    else out[k] = cloneDecoded(x);
  }
  return out as T;
}

class NotPlainJSON extends Error {}

/** JSON.parse(JSON.stringify(v)) for plain data; throws NotPlainJSON on anything else (toJSON, class instances). */
function jsonCopy(v: unknown, inArray: boolean): unknown {
  switch (typeof v) {
    case 'string': case 'boolean': return v;
    case 'number': return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'undefined': case 'function': case 'symbol': return inArray ? null : undefined;
    case 'bigint': throw new NotPlainJSON();
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = jsonCopy(v[i], true);
    return a;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) throw new NotPlainJSON();
  const out: Record<string, unknown> = {};
  // for-in after the prototype check above: a plain object's own enumerable keys, without an array.
  for (const k in v as object) {
    const x = jsonCopy((v as Record<string, unknown>)[k], false);
    if (x === undefined) continue;
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

/**
 * What decodeValue(def, encode(obj), revision) returns, without the text
 * round trip (a copy costs well under half of JSON.parse); undefined when
 * obj is not plain JSON data or def converts its stored form.
 */
export function decodedCopy(def: ResourceDef, obj: KObject, revision: number): KObject | undefined {
  if (def.fromStorage || def.toStorage || def.convertFromStorage) return undefined;
  const { kind, apiVersion, metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...meta } = metadata;
  let out: KObject;
  try {
    out = jsonCopy({ kind, apiVersion, metadata: meta, ...rest }, false) as KObject;
  } catch (e) {
    if (e instanceof NotPlainJSON) return undefined;
    throw e;
  }
  out.metadata.resourceVersion = String(revision);
  return withTypeMeta(def, out);
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

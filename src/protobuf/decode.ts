/**
 * Decoder of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`):
 * the magic `k8s\0`, then a runtime.Unknown {1: typeMeta {1: apiVersion, 2: kind},
 * 2: raw, 3: contentEncoding, 4: contentType} whose raw is the typed message of
 * k8s.io/api's generated.proto. The result is the JSON object the same request
 * would have carried as JSON: JSON field names, Go's `omitempty` (zero non-pointer
 * scalars left out), Quantity and IntOrString as their JSON values, Time as RFC 3339,
 * bytes as base64, embedded structs inlined.
 *
 * Errors are worded as the gogo-generated Unmarshal code words them.
 */
import { apiVersionsOfKind, messageForKind, messageSpec } from './descriptors.js';
import { formatDuration } from '../apimachinery/duration.js';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export interface DecodedProtobuf {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/** The body is not a protobuf envelope (no magic, or a broken runtime.Unknown). */
export class ProtobufEnvelopeError extends Error {}

/** The envelope is fine, but its raw object is not a valid message of its kind. */
export class ProtobufObjectError extends Error {
  constructor(message: string, readonly apiVersion: string, readonly kind: string) { super(message); }
}

/** The envelope names a kind this decoder has no descriptor for. */
export class UnknownKindError extends Error {
  constructor(readonly apiVersion: string, readonly kind: string) {
    super(`no kind "${kind}" is registered for version "${apiVersion}"`);
  }
}

const UNEXPECTED_EOF = 'unexpected EOF';
const INT_OVERFLOW = 'proto: integer overflow';
const NEGATIVE_LENGTH = 'proto: negative length found during unmarshaling';

class WireError extends Error {}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
const WIRE_FIXED32 = 5;

/** A cursor over one message's bytes. */
class Reader {
  pos: number;
  constructor(readonly buf: Buffer, start = 0, readonly end = buf.length) { this.pos = start; }

  get done(): boolean { return this.pos >= this.end; }

  /** A varint as a bigint (exact for all 64 bits). */
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (shift >= 64n) throw new WireError(INT_OVERFLOW);
      if (this.pos >= this.end) throw new WireError(UNEXPECTED_EOF);
      const b = this.buf[this.pos++];
      if (b === undefined) throw new WireError(UNEXPECTED_EOF);
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
  }

  /** A varint that Go reads into an int (lengths, tags). */
  int(): number {
    // Fast path for the usual one- to four-byte tags and lengths.
    let result = 0;
    for (let i = 0, p = this.pos; i < 4 && p < this.end; i++, p++) {
      const b = this.buf[p];
      if (b === undefined) break;
      result |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        this.pos = p + 1;
        return result;
      }
    }
    return Number(BigInt.asIntN(64, this.varint()));
  }

  bytes(): Buffer {
    const len = this.int();
    if (len < 0) throw new WireError(NEGATIVE_LENGTH);
    const stop = this.pos + len;
    if (stop < 0) throw new WireError(NEGATIVE_LENGTH);
    if (stop > this.end) throw new WireError(UNEXPECTED_EOF);
    const out = this.buf.subarray(this.pos, stop);
    this.pos = stop;
    return out;
  }

  fixed(size: 4 | 8): Buffer {
    if (this.pos + size > this.end) throw new WireError(UNEXPECTED_EOF);
    const out = this.buf.subarray(this.pos, this.pos + size);
    this.pos += size;
    return out;
  }

  /** Reads a tag; errors as the generated code words them for message `msg`. */
  tag(msg: string): { field: number; wire: number } {
    const t = this.int();
    const field = Math.trunc(t / 8);
    const wire = t & 7;
    if (wire === WIRE_END_GROUP) throw new WireError(`proto: ${msg}: wiretype end group for non-group`);
    if (field <= 0) throw new WireError(`proto: ${msg}: illegal tag ${field} (wire type ${wire})`);
    return { field, wire };
  }

  /** Skips an unknown field (skipGenerated). */
  skip(wire: number): void {
    let depth = 0;
    for (;;) {
      switch (wire) {
        case WIRE_VARINT: this.varint(); break;
        case WIRE_FIXED64: this.fixed(8); break;
        case WIRE_BYTES: this.bytes(); break;
        case WIRE_START_GROUP: depth++; break;
        case WIRE_END_GROUP:
          if (depth === 0) throw new WireError('proto: unexpected end of group');
          depth--;
          break;
        case WIRE_FIXED32: this.fixed(4); break;
        default: throw new WireError(`proto: illegal wireType ${wire}`);
      }
      if (depth === 0) return;
      const t = this.int();
      wire = t & 7;
    }
  }
}

const SCALAR_WIRE: Record<string, number> = {
  string: WIRE_BYTES, bytes: WIRE_BYTES, bool: WIRE_VARINT, int32: WIRE_VARINT, int64: WIRE_VARINT,
  uint32: WIRE_VARINT, uint64: WIRE_VARINT, double: WIRE_FIXED64, float: WIRE_FIXED32,
};

function wireOf(type: string): number {
  return SCALAR_WIRE[type] ?? WIRE_BYTES;
}

function scalarFromVarint(type: string, v: bigint): unknown {
  switch (type) {
    case 'bool': return v !== 0n;
    case 'int32': return Number(BigInt.asIntN(32, v));
    case 'uint32': return Number(BigInt.asUintN(32, v));
    case 'uint64': return Number(v);
    default: return Number(BigInt.asIntN(64, v));
  }
}

function readScalar(r: Reader, type: string): unknown {
  switch (type) {
    case 'string': return r.bytes().toString('utf8');
    case 'bytes': return r.bytes().toString('base64');
    case 'double': return r.fixed(8).readDoubleLE(0);
    case 'float': return r.fixed(4).readFloatLE(0);
    default: return scalarFromVarint(type, r.varint());
  }
}

const isZero = (v: unknown) => v === '' || v === 0 || v === false;

/** `time.Time.Format(time.RFC3339)` in UTC, or with 6 fractional digits (RFC3339Micro). */
function formatTime(seconds: bigint, nanos: number | undefined): string {
  const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  if (nanos === undefined) return `${iso}Z`;
  return `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** Decodes the fields of a small helper message into field number → last raw value. */
function helperFields(buf: Buffer, msg: string, wires: Record<number, [number, string]>): Map<number, bigint | Buffer> {
  const r = new Reader(buf);
  const out = new Map<number, bigint | Buffer>();
  while (!r.done) {
    const { field, wire } = r.tag(msg);
    const known = wires[field];
    if (!known) { r.skip(wire); continue; }
    if (wire !== known[0]) throw new WireError(`proto: wrong wireType = ${wire} for field ${known[1]}`);
    out.set(field, wire === WIRE_VARINT ? r.varint() : r.bytes());
  }
  return out;
}

const NO_VALUE = Symbol('no value');

/** The JSON value of a message with a JSON form of its own (Quantity, Time, ...). */
function decodeSpecial(type: string, buf: Buffer): unknown {
  switch (type) {
    case '@Quantity': {
      const f = helperFields(buf, 'Quantity', { 1: [WIRE_BYTES, 'String_'] });
      const s = (f.get(1) as Buffer | undefined)?.toString('utf8') ?? '';
      return s === '' ? '0' : s;
    }
    case '@IntOrString': {
      const f = helperFields(buf, 'IntOrString', { 1: [WIRE_VARINT, 'Type'], 2: [WIRE_VARINT, 'IntVal'], 3: [WIRE_BYTES, 'StrVal'] });
      if (Number(BigInt.asIntN(64, (f.get(1) as bigint | undefined) ?? 0n)) === 1) {
        return (f.get(3) as Buffer | undefined)?.toString('utf8') ?? '';
      }
      return Number(BigInt.asIntN(32, (f.get(2) as bigint | undefined) ?? 0n));
    }
    case '@Time':
    case '@MicroTime': {
      // metav1.Time.Unmarshal: no bytes is the zero time (JSON null); Time keeps whole seconds.
      if (buf.length === 0) return NO_VALUE;
      const f = helperFields(buf, 'Timestamp', { 1: [WIRE_VARINT, 'Seconds'], 2: [WIRE_VARINT, 'Nanos'] });
      const seconds = BigInt.asIntN(64, (f.get(1) as bigint | undefined) ?? 0n);
      if (type === '@Time') return formatTime(seconds, undefined);
      return formatTime(seconds, Number(BigInt.asIntN(32, (f.get(2) as bigint | undefined) ?? 0n)));
    }
    case '@Duration': {
      const f = helperFields(buf, 'Duration', { 1: [WIRE_VARINT, 'Duration'] });
      return formatDuration(BigInt.asIntN(64, (f.get(1) as bigint | undefined) ?? 0n));
    }
    case '@FieldsV1':
    case '@RawExtension': {
      const f = helperFields(buf, type === '@FieldsV1' ? 'FieldsV1' : 'RawExtension', { 1: [WIRE_BYTES, 'Raw'] });
      const raw = f.get(1) as Buffer | undefined;
      if (!raw || raw.length === 0) return NO_VALUE;
      try {
        return JSON.parse(raw.toString('utf8'));
      } catch {
        throw new WireError(`json: error calling MarshalJSON for type *${type === '@FieldsV1' ? 'v1.FieldsV1' : 'runtime.RawExtension'}: invalid character in raw JSON`);
      }
    }
    case '@StringList': {
      const r = new Reader(buf);
      const items: string[] = [];
      while (!r.done) {
        const { field, wire } = r.tag('ExtraValue');
        if (field !== 1) { r.skip(wire); continue; }
        if (wire !== WIRE_BYTES) throw new WireError(`proto: wrong wireType = ${wire} for field Items`);
        items.push(r.bytes().toString('utf8'));
      }
      return items;
    }
    default:
      throw new Error(`unknown special type ${type}`);
  }
}

/** The JSON value of one length-delimited value of a message type. */
function decodeValue(type: string, buf: Buffer): unknown {
  if (type.startsWith('@')) return decodeSpecial(type, buf);
  return decodeMessage(type, buf);
}

function decodeMapEntry(buf: Buffer, keyType: string, valueType: string, goName: string): [string, unknown] {
  const r = new Reader(buf);
  let key: unknown = keyType === 'string' ? '' : 0;
  let value: unknown = NO_VALUE;
  while (!r.done) {
    const t = r.int();
    const field = Math.trunc(t / 8);
    const wire = t & 7;
    if (field === 1 || field === 2) {
      const type = field === 1 ? keyType : valueType;
      if (wire !== wireOf(type)) throw new WireError(`proto: wrong wireType = ${wire} for field ${goName}`);
      const v = type in SCALAR_WIRE ? readScalar(r, type) : decodeValue(type, r.bytes());
      if (field === 1) key = v; else value = v;
    } else {
      r.skip(wire);
    }
  }
  if (value === NO_VALUE) {
    value = valueType in SCALAR_WIRE ? (valueType === 'string' || valueType === 'bytes' ? '' : valueType === 'bool' ? false : 0)
      : decodeValue(valueType, Buffer.alloc(0));
  }
  return [String(key), value === NO_VALUE ? null : value];
}

/** Decodes one message of `name` (a descriptor name such as `core.v1.Pod`) into its JSON object. */
export function decodeMessage(name: string, buf: Buffer): Record<string, unknown> {
  const spec = messageSpec(name);
  if (!spec) throw new Error(`no descriptor for message ${name}`);
  const goType = name.slice(name.lastIndexOf('.') + 1);
  const r = new Reader(buf);
  const scalars = new Map<number, unknown>();
  const lists = new Map<number, unknown[]>();
  const maps = new Map<number, Record<string, unknown>>();
  const chunks = new Map<number, Buffer[]>();
  while (!r.done) {
    const { field, wire } = r.tag(goType);
    const f = spec.get(field);
    if (!f) { r.skip(wire); continue; }
    const expected = wireOf(f.type);
    if (f.type.startsWith('map:')) {
      if (wire !== WIRE_BYTES) throw new WireError(`proto: wrong wireType = ${wire} for field ${f.goName}`);
      const [, keyType = '', valueType = ''] = /^map:([^:]+):(.+)$/.exec(f.type)!;
      const [k, v] = decodeMapEntry(r.bytes(), keyType, valueType, f.goName);
      let m = maps.get(field);
      if (!m) maps.set(field, m = {});
      m[k] = v;
    } else if (f.repeated) {
      let list = lists.get(field);
      if (!list) lists.set(field, list = []);
      if (wire === WIRE_BYTES && expected !== WIRE_BYTES) {
        // A packed run of scalars.
        const packed = r.bytes();
        const pr = new Reader(packed);
        while (!pr.done) list.push(readScalar(pr, f.type));
      } else if (wire !== expected) {
        throw new WireError(`proto: wrong wireType = ${wire} for field ${f.goName}`);
      } else if (f.type in SCALAR_WIRE) {
        list.push(readScalar(r, f.type));
      } else {
        const v = decodeValue(f.type, r.bytes());
        list.push(v === NO_VALUE ? null : v);
      }
    } else {
      if (wire !== expected) throw new WireError(`proto: wrong wireType = ${wire} for field ${f.goName}`);
      if (f.type in SCALAR_WIRE) {
        scalars.set(field, readScalar(r, f.type));
      } else {
        // A message field given twice merges, as protobuf specifies.
        let c = chunks.get(field);
        if (!c) chunks.set(field, c = []);
        c.push(r.bytes());
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (const f of spec.values()) {
    const n = f.number;
    if (maps.has(n)) {
      out[f.name] = maps.get(n);
    } else if (lists.has(n)) {
      if (lists.get(n)!.length) out[f.name] = lists.get(n);
    } else if (chunks.has(n)) {
      const parts = chunks.get(n)!;
      const [only] = parts;
      const v = decodeValue(f.type, parts.length === 1 && only ? only : Buffer.concat(parts));
      if (v === NO_VALUE) continue;
      if (f.inline && v && typeof v === 'object') Object.assign(out, v);
      else out[f.name] = v;
    } else if (scalars.has(n)) {
      const v = scalars.get(n);
      if (f.keepZero || !isZero(v)) out[f.name] = v;
    }
  }
  return out;
}

function unknownEnvelope(buf: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
  const r = new Reader(buf);
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  const names: Record<number, string> = { 1: 'TypeMeta', 2: 'Raw', 3: 'ContentEncoding', 4: 'ContentType' };
  while (!r.done) {
    const { field, wire } = r.tag('Unknown');
    if (!names[field]) { r.skip(wire); continue; }
    if (wire !== WIRE_BYTES) throw new WireError(`proto: wrong wireType = ${wire} for field ${names[field]}`);
    const b = r.bytes();
    if (field === 1) {
      const tm = helperFields(b, 'TypeMeta', { 1: [WIRE_BYTES, 'APIVersion'], 2: [WIRE_BYTES, 'Kind'] });
      if (tm.has(1)) apiVersion = (tm.get(1) as Buffer).toString('utf8');
      if (tm.has(2)) kind = (tm.get(2) as Buffer).toString('utf8');
    } else if (field === 2) {
      raw = b;
    }
  }
  return { apiVersion, kind, raw };
}

/**
 * Decodes a protobuf request body. `defaults` fills an empty apiVersion or kind of the
 * envelope, as upstream fills them from the resource the request addresses.
 */
export function decodeProtobufObject(body: Buffer, defaults: { apiVersion?: string; kind?: string } = {}): DecodedProtobuf {
  if (body.length === 0) throw new ProtobufEnvelopeError('empty data');
  if (body.length < PROTOBUF_MAGIC.length || !body.subarray(0, PROTOBUF_MAGIC.length).equals(PROTOBUF_MAGIC)) {
    throw new ProtobufEnvelopeError(`provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_MAGIC].join(' ')}]`);
  }
  if (body.length === PROTOBUF_MAGIC.length) throw new ProtobufEnvelopeError('empty body');
  let env: ReturnType<typeof unknownEnvelope>;
  try {
    env = unknownEnvelope(body.subarray(PROTOBUF_MAGIC.length));
  } catch (e) {
    if (e instanceof WireError) throw new ProtobufEnvelopeError(e.message);
    throw e;
  }
  const kind = env.kind || defaults.kind || '';
  let apiVersion = env.apiVersion || defaults.apiVersion || '';
  if (!apiVersion && kind) apiVersion = apiVersionsOfKind(kind).find((v) => v !== '*') ?? '';
  if (!kind) throw new ProtobufEnvelopeError(`Object 'Kind' is missing in '${typeMetaGoString(env)}'`);
  const message = messageForKind(apiVersion, kind);
  if (!message) throw new UnknownKindError(apiVersion, kind);
  let fields: Record<string, unknown>;
  try {
    fields = decodeMessage(message, env.raw);
  } catch (e) {
    if (e instanceof WireError) throw new ProtobufObjectError(e.message, apiVersion, kind);
    throw e;
  }
  const object: Record<string, unknown> = {};
  if (apiVersion) object.apiVersion = apiVersion;
  object.kind = kind;
  return { apiVersion, kind, object: Object.assign(object, fields) };
}

/** `fmt.Sprintf("%#v", unk.TypeMeta)`, as upstream quotes it in missing-kind errors. */
function typeMetaGoString(env: { apiVersion: string; kind: string }): string {
  return `runtime.TypeMeta{APIVersion:${JSON.stringify(env.apiVersion)}, Kind:${JSON.stringify(env.kind)}}`;
}

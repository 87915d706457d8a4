/**
 * The Swagger 2.0 document as a gnostic openapi_v2.Document protobuf message
 * (google/gnostic openapiv2/OpenAPIv2.proto), which is what /openapi/v2 answers
 * to the protobuf Accept of kubectl 1.27/1.28 (client-go proto.Unmarshal's it).
 * Vendor extensions, defaults and enum values travel as Any messages holding
 * YAML text (here JSON, which is YAML), as gnostic encodes them.
 */

type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A protobuf message under construction: fields appended in field-number order by the callers. */
class Message {
  private readonly parts: Buffer[] = [];
  private size = 0;

  private push(b: Buffer): void {
    this.parts.push(b);
    this.size += b.length;
  }

  private varint(n: number): void {
    const bytes: number[] = [];
    while (n > 0x7f) {
      bytes.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    bytes.push(n);
    this.push(Buffer.from(bytes));
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  string(field: number, v: string | undefined): this {
    if (v === undefined || v === '') return this;
    const b = Buffer.from(v, 'utf8');
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
    return this;
  }

  strings(field: number, vs: Json): this {
    if (Array.isArray(vs)) for (const v of vs) this.stringAlways(field, String(v));
    return this;
  }

  /** A repeated string element, written even when empty. */
  private stringAlways(field: number, v: string): void {
    const b = Buffer.from(v, 'utf8');
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
  }

  bool(field: number, v: Json): this {
    if (v === true) {
      this.tag(field, 0);
      this.varint(1);
    }
    return this;
  }

  int64(field: number, v: Json): this {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) {
      this.tag(field, 0);
      this.varint(v);
    }
    return this;
  }

  double(field: number, v: Json): this {
    if (typeof v === 'number' && v !== 0) {
      this.tag(field, 1);
      const b = Buffer.alloc(8);
      b.writeDoubleLE(v);
      this.push(b);
    }
    return this;
  }

  message(field: number, m: Message | undefined): this {
    if (!m) return this;
    const b = m.bytes();
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts, this.size);
  }
}

/** An Any carrying the value as YAML text. */
function any(v: Json): Message {
  return new Message().string(2, `${JSON.stringify(v)}\n`);
}

function vendorExtensions(m: Message, field: number, o: Obj): void {
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('x-')) m.message(field, new Message().string(1, k).message(2, any(v)));
  }
}

function schema(s: Obj): Message {
  const m = new Message()
    .string(1, s.$ref as string | undefined)
    .string(2, s.format as string | undefined)
    .string(3, s.title as string | undefined)
    .string(4, s.description as string | undefined);
  if (s.default !== undefined) m.message(5, any(s.default));
  m.double(6, s.multipleOf).double(7, s.maximum).bool(8, s.exclusiveMaximum)
    .double(9, s.minimum).bool(10, s.exclusiveMinimum)
    .int64(11, s.maxLength).int64(12, s.minLength).string(13, s.pattern as string | undefined)
    .int64(14, s.maxItems).int64(15, s.minItems).bool(16, s.uniqueItems)
    .int64(17, s.maxProperties).int64(18, s.minProperties)
    .strings(19, s.required);
  if (Array.isArray(s.enum)) for (const v of s.enum) m.message(20, any(v));
  const ap = s.additionalProperties;
  if (isObj(ap)) m.message(21, new Message().message(1, schema(ap)));
  else if (typeof ap === 'boolean') m.message(21, new Message().bool(2, ap));
  if (s.type !== undefined) m.message(22, new Message().strings(1, Array.isArray(s.type) ? s.type : [s.type]));
  if (isObj(s.items)) m.message(23, new Message().message(1, schema(s.items)));
  else if (Array.isArray(s.items)) m.message(23, s.items.reduce((im: Message, x) => im.message(1, schema(x as Obj)), new Message()));
  if (Array.isArray(s.allOf)) for (const x of s.allOf) m.message(24, schema(x as Obj));
  if (isObj(s.properties)) {
    const props = new Message();
    for (const [name, p] of Object.entries(s.properties)) props.message(1, new Message().string(1, name).message(2, schema(p as Obj)));
    m.message(25, props);
  }
  m.string(26, s.discriminator as string | undefined).bool(27, s.readOnly);
  if (s.example !== undefined) m.message(30, any(s.example));
  vendorExtensions(m, 31, s);
  return m;
}

/** The non-body parameter sub-schemas share a layout up to `type`; header and path have no allow_empty_value. */
function nonBodyParameter(p: Obj): Message {
  const sub = new Message().bool(1, p.required).string(2, p.in as string).string(3, p.description as string | undefined).string(4, p.name as string);
  const kinds: Record<string, number> = { header: 1, formData: 2, query: 3, path: 4 };
  const kind = kinds[p.in as string] ?? 3;
  // Field numbers after `name` are one higher for query and formData (allow_empty_value = 5).
  const shift = kind === 2 || kind === 3 ? 1 : 0;
  if (shift) sub.bool(5, p.allowEmptyValue);
  sub.string(5 + shift, p.type as string | undefined).string(6 + shift, p.format as string | undefined)
    .bool(19 + shift, p.uniqueItems);
  vendorExtensions(sub, 22 + shift, p);
  return new Message().message(kind, sub);
}

function parametersItem(p: Obj): Message {
  if (typeof p.$ref === 'string') return new Message().message(2, new Message().string(1, p.$ref));
  const param = new Message();
  if (p.in === 'body') {
    const body = new Message().string(1, p.description as string | undefined).string(2, p.name as string).string(3, 'body').bool(4, p.required);
    if (isObj(p.schema)) body.message(5, schema(p.schema));
    vendorExtensions(body, 6, p);
    param.message(1, body);
  } else {
    param.message(2, nonBodyParameter(p));
  }
  return new Message().message(1, param);
}

function responses(rs: Obj): Message {
  const m = new Message();
  for (const [code, r] of Object.entries(rs)) {
    const ro = r as Obj;
    const resp = new Message().string(1, ro.description as string | undefined);
    if (isObj(ro.schema)) resp.message(2, new Message().message(1, schema(ro.schema)));
    vendorExtensions(resp, 5, ro);
    m.message(1, new Message().string(1, code).message(2, new Message().message(1, resp)));
  }
  return m;
}

function operation(op: Obj): Message {
  const m = new Message().strings(1, op.tags).string(2, op.summary as string | undefined)
    .string(3, op.description as string | undefined).string(5, op.operationId as string | undefined)
    .strings(6, op.produces).strings(7, op.consumes);
  if (Array.isArray(op.parameters)) for (const p of op.parameters) m.message(8, parametersItem(p as Obj));
  if (isObj(op.responses)) m.message(9, responses(op.responses));
  m.strings(10, op.schemes).bool(11, op.deprecated);
  vendorExtensions(m, 13, op);
  return m;
}

const METHOD_FIELDS: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

function pathItem(item: Obj): Message {
  const m = new Message();
  for (const [method, field] of METHOD_FIELDS) if (isObj(item[method])) m.message(field, operation(item[method] as Obj));
  if (Array.isArray(item.parameters)) for (const p of item.parameters) m.message(9, parametersItem(p as Obj));
  vendorExtensions(m, 10, item);
  return m;
}

/** Encodes a Swagger 2.0 document (as JSON) as an openapi_v2.Document. */
export function encodeDocument(doc: Obj): Buffer {
  const m = new Message().string(1, doc.swagger as string);
  if (isObj(doc.info)) {
    const info = doc.info;
    m.message(2, new Message().string(1, info.title as string).string(2, info.version as string).string(3, info.description as string | undefined));
  }
  if (isObj(doc.paths)) {
    const paths = new Message();
    for (const [p, item] of Object.entries(doc.paths)) paths.message(2, new Message().string(1, p).message(2, pathItem(item as Obj)));
    m.message(8, paths);
  }
  if (isObj(doc.definitions)) {
    const defs = new Message();
    for (const [n, s] of Object.entries(doc.definitions)) defs.message(1, new Message().string(1, n).message(2, schema(s as Obj)));
    m.message(9, defs);
  }
  if (Array.isArray(doc.security)) {
    for (const req of doc.security as Obj[]) {
      const r = new Message();
      for (const [name, scopes] of Object.entries(req)) r.message(1, new Message().string(1, name).message(2, new Message().strings(1, scopes)));
      m.message(12, r);
    }
  }
  if (isObj(doc.securityDefinitions)) {
    const sd = new Message();
    for (const [name, d] of Object.entries(doc.securityDefinitions)) {
      const def = d as Obj;
      const item = new Message();
      if (def.type === 'apiKey') {
        item.message(2, new Message().string(1, 'apiKey').string(2, def.name as string).string(3, def.in as string).string(4, def.description as string | undefined));
      } else if (def.type === 'basic') {
        item.message(1, new Message().string(1, 'basic').string(2, def.description as string | undefined));
      }
      sd.message(1, new Message().string(1, name).message(2, item));
    }
    m.message(13, sd);
  }
  vendorExtensions(m, 16, doc);
  return m.bytes();
}

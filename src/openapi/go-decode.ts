/**
 * What decoding a JSON body into its Go type reports, as
 * k8s.io/apimachinery's json serializer does it (sigs.k8s.io/json's fork of
 * encoding/json, UnmarshalCaseSensitivePreserveInts):
 *
 * - a value of the wrong JSON type, or a number its Go type cannot hold
 *   (int32/int64 range, an integer written 1.5, 1e3 or 1.0, a float64 past
 *   its range), is an UnmarshalTypeError: `json: cannot unmarshal string into
 *   Go struct field DeploymentSpec.spec.replicas of type int32`, naming the
 *   innermost struct and the path of struct fields from the top (map keys and
 *   list indexes are not in it). The decoder goes on and reports the first
 *   such error; base64 errors of []byte fields are kept the same way, bare;
 * - a type with its own UnmarshalJSON (resource.Quantity, IntOrString, Time,
 *   MicroTime) ends the decode with its own error, bare, and that error wins;
 * - null is accepted everywhere; unknown fields are skipped.
 *
 * The text is scanned, not the parsed value: only the text tells 1.0 from 1
 * and 9223372036854775808 from 9223372036854775807. The scan allocates only
 * object keys and, for an error, its message.
 */
import type { GoType } from './go-types.js';
import { DecodeError, parseQuantity } from '../apimachinery/quantity.js';
import { goMicroTime, goTime, isRFC3339 } from './go-time.js';
import { goBase64Decode } from './go-base64.js';

/** encoding/json's scanner maxNestingDepth. */
export const MAX_NESTING_DEPTH = 10000;

/** An UnmarshalJSON error: it ends the decode. */
class Fatal extends Error {}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The index just past the closing quote of the string starting at i (text[i] is '"'). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return text.length;
    let k = j - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j++;
  }
}

/** The first opening bracket past encoding/json's nesting limit, or undefined. Valid JSON text only. */
export function exceededDepthAt(text: string): string | undefined {
  // 10001 levels need 10001 opening brackets.
  if (text.length <= MAX_NESTING_DEPTH) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i) - 1;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_NESTING_DEPTH) return text[i];
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/** Go's SyntaxError for a document nested past the limit: "invalid character '{' exceeded max depth". */
export function maxDepthMessage(bracket: string): string {
  return `invalid character '${bracket}' exceeded max depth`;
}

class Decoder {
  pos = 0;
  saved: string | undefined;
  /** Quantities written as numbers past float64 (1e400), which Go keeps and JSON.parse makes Infinity, in document order. */
  readonly hugeQuantities: string[] = [];
  /**
   * The struct fields from the top to the value being decoded
   * (errorContext.FieldStack), as the text offsets of their quoted keys:
   * names are only cut out of the text for an error.
   */
  private readonly fieldStack: number[] = [];
  /** The innermost struct being decoded (errorContext.Struct). */
  private structName = '';

  /** skipDirectives: a strategic merge patch, whose map keys starting with "$" are directives ($patch, $retainKeys, ...). */
  constructor(private readonly text: string, private readonly skipDirectives = false) {}

  private ws(): number {
    const t = this.text;
    let c = t.charCodeAt(this.pos);
    while (isSpace(c)) c = t.charCodeAt(++this.pos);
    return c;
  }

  private typeError(what: string, t: GoType): void {
    if (this.saved !== undefined) return;
    this.saved = this.structName || this.fieldStack.length
      ? `json: cannot unmarshal ${what} into Go struct field ${this.structName}.${this.fieldPath()} of type ${t.name}`
      : `json: cannot unmarshal ${what} into Go value of type ${t.name}`;
  }

  private fieldPath(): string {
    const names: string[] = [];
    // The stack holds [start, end) offset pairs of the field names being decoded.
    for (let i = 0; i + 1 < this.fieldStack.length; i += 2) {
      const start = this.fieldStack[i];
      const end = this.fieldStack[i + 1];
      if (start !== undefined && end !== undefined) names.push(this.stringValue(start, end));
    }
    return names.join('.');
  }

  /** Skips one value, iteratively (free-form values may nest as deep as the scanner allows). */
  private skip(): void {
    const t = this.text;
    let depth = 0;
    for (;;) {
      const c = this.ws();
      if (c === 0x22) this.pos = stringEnd(t, this.pos);
      else if (c === 0x7b || c === 0x5b) { depth++; this.pos++; continue; }
      else if (c === 0x7d || c === 0x5d) { depth--; this.pos++; }
      else if (c === 0x2c || c === 0x3a) { this.pos++; continue; }
      else this.literalEnd();
      if (depth === 0) return;
    }
  }

  /** Moves past a number, true, false or null; returns where it started. */
  private literalEnd(): number {
    const t = this.text;
    const start = this.pos;
    let c = t.charCodeAt(this.pos);
    while (this.pos < t.length && c !== 0x2c && c !== 0x7d && c !== 0x5d && !isSpace(c)) c = t.charCodeAt(++this.pos);
    return start;
  }

  private stringValue(start: number, end: number): string {
    const raw = this.text.slice(start + 1, end - 1);
    return raw.includes('\\') ? JSON.parse(this.text.slice(start, end)) as string : raw;
  }

  /** What encoding/json calls the JSON value starting with c. */
  private static what(c: number): string {
    switch (c) {
      case 0x7b: return 'object';
      case 0x5b: return 'array';
      case 0x22: return 'string';
      case 0x74: case 0x66: return 'bool';
      case 0x6e: return 'null';
      default: return 'number';
    }
  }

  value(t: GoType): void {
    const c = this.ws();
    switch (t.kind) {
      case 'raw': return this.skip();
      case 'quantity': return this.quantity();
      case 'intOrString': return this.intOrString(c);
      case 'time': case 'microTime': return this.time(c, t.kind === 'time' ? goTime : goMicroTime);
    }
    if (c === 0x6e) { this.literalEnd(); return; } // null: a zero value, never an error
    if (c === 0x7b) {
      if (t.kind === 'struct') return this.struct(t);
      if (t.kind === 'map') return this.map(t);
      this.typeError('object', t);
      return this.skip();
    }
    if (c === 0x5b) {
      if (t.kind === 'slice') return this.slice(t.elem);
      if (t.kind === 'bytes') return this.slice(UINT8);
      this.typeError('array', t);
      return this.skip();
    }
    if (c === 0x22) {
      const start = this.pos;
      this.pos = stringEnd(this.text, start);
      if (t.kind === 'string') return;
      if (t.kind === 'bytes') {
        if (this.saved === undefined) {
          try { goBase64Decode(this.stringValue(start, this.pos)); } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
            this.saved = e.message;
          }
        }
        return;
      }
      return this.typeError('string', t);
    }
    const start = this.literalEnd();
    if (c === 0x74 || c === 0x66) {
      if (t.kind !== 'bool') this.typeError('bool', t);
      return;
    }
    if (t.kind === 'int') {
      if (!intFits(this.text, start, this.pos, t.bits)) this.typeError(`number ${this.text.slice(start, this.pos)}`, t);
    } else if (t.kind === 'float') {
      if (!Number.isFinite(Number(this.text.slice(start, this.pos)))) this.typeError(`number ${this.text.slice(start, this.pos)}`, t);
    } else {
      this.typeError('number', t);
    }
  }

  private struct(t: GoType): void {
    const t0 = this.text;
    const outerStruct = this.structName;
    this.pos++;
    if (this.ws() === 0x7d) { this.pos++; return; }
    for (;;) {
      this.ws();
      const keyStart = this.pos;
      this.pos = stringEnd(t0, keyStart);
      const keyEnd = this.pos - 1;
      let escaped = false;
      let hash = 0;
      for (let i = keyStart + 1; i < keyEnd; i++) {
        const ch = t0.charCodeAt(i);
        if (ch === 0x5c) { escaped = true; break; }
        hash = (Math.imul(hash, 31) + ch) & 0x3fffffff;
      }
      const f = escaped ? t.field(this.stringValue(keyStart, this.pos)) : t.fieldAt(t0, keyStart + 1, keyEnd, hash);
      this.ws();
      this.pos++; // ':'
      if (f) {
        this.fieldStack.push(keyStart, keyEnd + 1);
        this.structName = t.structName;
        this.value(f);
        this.fieldStack.pop();
        this.fieldStack.pop();
        this.structName = outerStruct;
      } else {
        this.skip();
      }
      if (this.ws() === 0x2c) { this.pos++; continue; }
      this.pos++; // '}'
      return;
    }
  }

  private map(t: GoType): void {
    const elem = t.elem;
    this.pos++;
    if (this.ws() === 0x7d) { this.pos++; return; }
    for (;;) {
      this.ws();
      const directive = this.skipDirectives && this.text.charCodeAt(this.pos + 1) === 0x24;
      this.pos = stringEnd(this.text, this.pos);
      this.ws();
      this.pos++; // ':'
      if (directive) this.skip();
      else this.value(elem);
      if (this.ws() === 0x2c) { this.pos++; continue; }
      this.pos++; // '}'
      return;
    }
  }

  private slice(elem: GoType): void {
    this.pos++;
    if (this.ws() === 0x5d) { this.pos++; return; }
    for (;;) {
      this.value(elem);
      if (this.ws() === 0x2c) { this.pos++; continue; }
      this.pos++; // ']'
      return;
    }
  }

  /** The raw text of the value at pos, which the position moves past. */
  private rawValue(): string {
    const start = this.pos;
    this.skip();
    return this.text.slice(start, this.pos);
  }

  /** resource.Quantity's UnmarshalJSON: quotes stripped (not unescaped), then ParseQuantity. */
  private quantity(): void {
    let raw = this.rawValue();
    if (raw === 'null') return;
    const c = raw.charCodeAt(0);
    if ((c === 0x2d || (c >= 0x30 && c <= 0x39)) && !Number.isFinite(Number(raw))) this.hugeQuantities.push(raw);
    if (raw.length >= 2 && raw[0] === '"' && raw[raw.length - 1] === '"') raw = raw.slice(1, -1);
    try { parseQuantity(raw.trim()); } catch (e) {
      if (e instanceof DecodeError) throw new Fatal(e.message);
      throw e;
    }
  }

  /** IntOrString's UnmarshalJSON: a string, or else encoding/json into an int32. */
  private intOrString(c: number): void {
    if (c === 0x22) { this.pos = stringEnd(this.text, this.pos); return; }
    const start = this.pos;
    this.skip();
    if (c === 0x6e) return;
    if (c === 0x74 || c === 0x66 || c === 0x7b || c === 0x5b) {
      throw new Fatal(`json: cannot unmarshal ${Decoder.what(c)} into Go value of type int32`);
    }
    if (!intFits(this.text, start, this.pos, 32)) {
      throw new Fatal(`json: cannot unmarshal number ${this.text.slice(start, this.pos)} into Go value of type int32`);
    }
  }

  /** metav1.Time's and MicroTime's UnmarshalJSON: null, or a string in their layout. */
  private time(c: number, parse: (v: unknown) => unknown): void {
    const start = this.pos;
    this.skip();
    if (c === 0x6e) return;
    if (c !== 0x22) throw new Fatal(`json: cannot unmarshal ${Decoder.what(c)} into Go value of type string`);
    const str = this.stringValue(start, this.pos);
    if (isRFC3339(str)) return;
    try { parse(str); } catch (e) {
      if (e instanceof DecodeError) throw new Fatal(e.message);
      throw e;
    }
  }
}

/** The elements of a []byte given as a JSON array. */
const UINT8: GoType = {
  kind: 'int', name: 'uint8', bits: 8, structName: '', field: () => undefined, fieldAt: () => undefined,
  get elem(): GoType { throw new Error('uint8 has no elements'); },
};

/**
 * Whether the number literal text[start, end) is what strconv.ParseInt (bits
 * 32 or 64) or, for bits 8, ParseUint into a uint8 accepts: digits only, in range.
 */
function intFits(text: string, start: number, end: number, bits: number): boolean {
  let i = start;
  const negative = text.charCodeAt(i) === 0x2d;
  if (negative) {
    if (bits === 8) return false;
    i++;
  }
  let n = 0;
  for (let j = i; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c < 0x30 || c > 0x39) return false;
    n = n * 10 + (c - 0x30);
  }
  if (bits === 8) return n <= 255;
  if (bits === 32) return negative ? -n >= INT32_MIN : n <= INT32_MAX;
  if (end - i <= 15) return true;
  const big = BigInt(text.slice(start, end));
  return big >= INT64_MIN && big <= INT64_MAX;
}

/** The outcome of a typed decode: the decoder's error, and what the parsed value needs to be what Go decoded. */
export interface GoDecodeResult {
  error: string | undefined;
  /** See Decoder.hugeQuantities; for normalizeDecoded. */
  hugeQuantities: string[];
}

/**
 * Decodes the JSON text (valid, and within the nesting limit) into t: the
 * error the API server's decoder reports, worded as it words it, or none.
 * strategicMergePatch: the text is a strategic merge patch, whose directive
 * keys in maps are not values.
 */
export function goDecode(text: string, t: GoType, strategicMergePatch = false): GoDecodeResult {
  const d = new Decoder(text, strategicMergePatch);
  try {
    d.value(t);
  } catch (e) {
    if (e instanceof Fatal) return { error: e.message, hugeQuantities: [] };
    throw e;
  }
  return { error: d.saved, hugeQuantities: d.hugeQuantities };
}

export function goDecodeError(text: string, t: GoType): string | undefined {
  return goDecode(text, t).error;
}

/** What a JSON null becomes where Go stores a value (a map value, a list element), as Go marshals it back. */
function zeroOf(t: GoType): unknown {
  switch (t.kind) {
    case 'string': return '';
    case 'int': case 'float': return 0;
    case 'bool': return false;
    case 'quantity': return '0';
    case 'struct': return {};
    default: return null;
  }
}

/**
 * Gives the parsed value of a text goDecode accepted what Go's decoder made
 * of it: a null struct field is its zero value, dropped here as omitempty
 * drops it (but a zero Time, which Go writes as null, stays null); a null map value or list element is the zero value of its type
 * ("" for map[string]string); a quantity written as a number past float64
 * (Infinity once parsed) is its literal. Walks the typed part of the value only.
 */
export function normalizeDecoded(value: unknown, t: GoType, hugeQuantities: string[]): void {
  if (value === null || typeof value !== 'object') return;
  if (t.kind === 'struct') {
    const o = value as Record<string, unknown>;
    for (const k in o) {
      const f = t.field(k);
      if (!f) continue;
      const v = o[k];
      // A zero Time marshals as null: those nulls stay.
      if (v === null) { if (f.kind !== 'time' && f.kind !== 'microTime') delete o[k]; }
      else if (f.kind === 'quantity' && typeof v === 'number' && !Number.isFinite(v)) o[k] = hugeQuantities.shift() ?? v;
      else normalizeDecoded(v, f, hugeQuantities);
    }
  } else if (t.kind === 'map' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const elem = t.elem;
    for (const k in o) {
      const v = o[k];
      if (v === null) o[k] = zeroOf(elem);
      else if (elem.kind === 'quantity' && typeof v === 'number' && !Number.isFinite(v)) o[k] = hugeQuantities.shift() ?? v;
      else normalizeDecoded(v, elem, hugeQuantities);
    }
  } else if (t.kind === 'slice' && Array.isArray(value)) {
    const elem = t.elem;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null) value[i] = zeroOf(elem);
      else normalizeDecoded(value[i], elem, hugeQuantities);
    }
  }
}

/**
 * The first number literal of a JSON text that overflows a float64 (1e400),
 * which decoding into interface{} refuses: "json: cannot unmarshal number
 * 1e400 into Go value of type float64". Valid JSON text only.
 */
export function overflowingNumber(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { i = stringEnd(text, i) - 1; continue; }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    let j = i + 1;
    let exponent = false;
    for (; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 0x65 || d === 0x45) exponent = true;
      else if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
    }
    // Without an exponent a literal needs more than 308 digits to overflow.
    if ((exponent || j - i > 308) && !Number.isFinite(Number(text.slice(i, j)))) return text.slice(i, j);
    i = j - 1;
  }
  return undefined;
}

/**
 * The strict checks of upstream's decoders, over JSON text and decoded values:
 *
 * - scanJSON: what sigs.k8s.io/json's UnmarshalStrict reports while decoding
 *   a body into a Go type (or into map[string]interface{} when untyped):
 *   `unknown field "<path>"` and `duplicate field "<path>"`, in document
 *   order, each message once, at most 100;
 * - unknownFields: the unknown fields of a decoded value, as the unstructured
 *   converter (strategic merge patch) or a decode of Go-marshalled JSON (sorted
 *   keys) reports them;
 * - Go's %+v of a decoded JSON value, and json.Marshal, for error messages.
 *
 * Paths read "spec.template.spec.containers[0].image", as upstream prints them.
 */
import type { ShapeNode } from './schema.js';

/** Untyped decoding (into interface{}): duplicate keys are reported at every level, nothing is unknown. */
export const UNTYPED: ShapeNode = { kind: 'any' };

const MAX_ERRORS = 100;

export class StrictErrors {
  readonly messages: string[] = [];
  private readonly seen = new Set<string>();

  add(message: string): void {
    if (this.messages.length >= MAX_ERRORS || this.seen.has(message)) return;
    this.seen.add(message);
    this.messages.push(message);
  }
}

const keyPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

class Scanner {
  pos = 0;
  constructor(private readonly text: string, private readonly errors: StrictErrors, private readonly untyped: boolean) {}

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  /** Reads a string token; returns its value. */
  string(): string {
    const t = this.text;
    const start = this.pos;
    let i = start + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(i);
      if (Number.isNaN(c)) throw new Error('unterminated string');
      if (c === 0x22) break;
      if (c === 0x5c) { escaped = true; i += 2; continue; }
      i++;
    }
    this.pos = i + 1;
    return escaped ? JSON.parse(t.slice(start, i + 1)) as string : t.slice(start + 1, i);
  }

  /** Skips a scalar literal (number, true, false, null); returns its text. */
  literal(): string {
    const t = this.text;
    const start = this.pos;
    while (this.pos < t.length && !',}] \n\r\t'.includes(t.charAt(this.pos))) this.pos++;
    return t.slice(start, this.pos);
  }

  /** Scans one value against a shape; `check` false skips all checks (free-form or unknown values). */
  value(node: ShapeNode | undefined, path: string, check: boolean): void {
    this.ws();
    const c = this.text[this.pos];
    if (c === '{') this.object(node, path, check);
    else if (c === '[') this.array(node, path, check);
    else if (c === '"') this.string();
    else this.literal();
  }

  private object(node: ShapeNode | undefined, path: string, check: boolean): void {
    this.pos++;
    const seen = new Set<string>();
    const struct = check && node?.kind === 'struct' ? node : undefined;
    const map = check && (node?.kind === 'map' || (this.untyped && node === UNTYPED)) ? node : undefined;
    this.ws();
    if (this.text[this.pos] === '}') { this.pos++; return; }
    for (;;) {
      this.ws();
      const key = this.string();
      this.ws();
      this.pos++; // ':'
      if (struct) {
        const field = struct.fields.get(key);
        if (!field) {
          this.errors.add(`unknown field "${keyPath(path, key)}"`);
          this.value(undefined, '', false);
        } else {
          if (seen.has(key)) this.errors.add(`duplicate field "${keyPath(path, key)}"`);
          seen.add(key);
          this.value(field(), keyPath(path, key), true);
        }
      } else if (map) {
        if (seen.has(key)) this.errors.add(`duplicate field "${keyPath(path, key)}"`);
        seen.add(key);
        this.value(map.kind === 'map' ? map.values() : UNTYPED, keyPath(path, key), true);
      } else {
        this.value(undefined, '', false);
      }
      this.ws();
      if (this.text[this.pos] === ',') { this.pos++; continue; }
      this.pos++; // '}'
      return;
    }
  }

  private array(node: ShapeNode | undefined, path: string, check: boolean): void {
    this.pos++;
    const items = check && node?.kind === 'list' ? node.items() : check && this.untyped && node === UNTYPED ? UNTYPED : undefined;
    this.ws();
    if (this.text[this.pos] === ']') { this.pos++; return; }
    for (let i = 0; ; i++) {
      this.value(items, `${path}[${i}]`, items !== undefined);
      this.ws();
      if (this.text[this.pos] === ',') { this.pos++; continue; }
      this.pos++; // ']'
      return;
    }
  }
}

/**
 * The strict errors of decoding JSON text into a value of the given shape
 * (UNTYPED: into map[string]interface{}). The text must be valid JSON.
 */
export function scanJSON(text: string, node: ShapeNode, errors = new StrictErrors()): StrictErrors {
  const s = new Scanner(text, errors, node === UNTYPED);
  s.value(node, '', true);
  return errors;
}

/** An unknown field of a decoded value: its message path, and where it sits for pruning. */
export interface UnknownField { path: string; parent: Record<string, unknown>; key: string }

export interface WalkOptions {
  /** Visit object keys in sorted order (Go-marshalled maps), else in insertion order. */
  sortKeys: boolean;
  /** Map keys appear in paths (the JSON decoder), or not (the unstructured converter). */
  mapKeysInPath: boolean;
}

/** The unknown fields of a decoded value against a shape. */
export function unknownFields(value: unknown, node: ShapeNode, opts: WalkOptions, out: UnknownField[] = [], path = ''): UnknownField[] {
  if (Array.isArray(value)) {
    if (node.kind === 'list') {
      const items = node.items();
      value.forEach((v, i) => unknownFields(v, items, opts, out, `${path}[${i}]`));
    }
    return out;
  }
  if (typeof value !== 'object' || value === null) return out;
  const obj = value as Record<string, unknown>;
  const keys = opts.sortKeys ? Object.keys(obj).sort() : Object.keys(obj);
  if (node.kind === 'struct') {
    for (const k of keys) {
      const field = node.fields.get(k);
      if (!field) out.push({ path: keyPath(path, k), parent: obj, key: k });
      else unknownFields(obj[k], field(), opts, out, keyPath(path, k));
    }
  } else if (node.kind === 'map') {
    const values = node.values();
    for (const k of keys) unknownFields(obj[k], values, opts, out, opts.mapKeysInPath ? keyPath(path, k) : path);
  }
  return out;
}

/**
 * Whether a decoded value has any unknown field against a shape: the check
 * unknownFields makes, without sorting keys or building paths, so that the
 * common case (nothing unknown) costs one plain walk.
 */
export function hasUnknownFields(value: unknown, node: ShapeNode): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    if (node.kind !== 'list' || value.length === 0) return false;
    const items = node.items();
    for (const v of value) if (hasUnknownFields(v, items)) return true;
    return false;
  }
  const obj = value as Record<string, unknown>;
  if (node.kind === 'struct') {
    for (const k in obj) {
      const field = node.fields.get(k);
      if (!field || hasUnknownFields(obj[k], field())) return true;
    }
  } else if (node.kind === 'map') {
    let values: ShapeNode | undefined;
    for (const k in obj) {
      const v = obj[k];
      if (typeof v === 'object' && v !== null && hasUnknownFields(v, values ??= node.values())) return true;
    }
  }
  return false;
}

/** Removes the given unknown fields from the value they were found in. */
export function pruneUnknown(fields: UnknownField[]): void {
  for (const f of fields) delete f.parent[f.key];
}

/** A JSON value decoded with its number literals kept, duplicate keys resolved as Go does (last wins). */
type GoValue = null | boolean | string | { num: string } | GoValue[] | Map<string, GoValue>;

function decodeGo(text: string): GoValue {
  let pos = 0;
  const ws = () => { while (pos < text.length && ' \n\r\t'.includes(text.charAt(pos))) pos++; };
  const str = (): string => {
    const start = pos;
    let i = pos + 1;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    pos = i + 1;
    return JSON.parse(text.slice(start, pos)) as string;
  };
  const val = (): GoValue => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const m = new Map<string, GoValue>();
      ws();
      if (text[pos] === '}') { pos++; return m; }
      for (;;) {
        ws();
        const k = str();
        ws();
        pos++;
        m.set(k, val());
        ws();
        if (text[pos++] === ',') continue;
        return m;
      }
    }
    if (c === '[') {
      pos++;
      const a: GoValue[] = [];
      ws();
      if (text[pos] === ']') { pos++; return a; }
      for (;;) {
        a.push(val());
        ws();
        if (text[pos++] === ',') continue;
        return a;
      }
    }
    if (c === '"') return str();
    const start = pos;
    while (pos < text.length && !',}] \n\r\t'.includes(text.charAt(pos))) pos++;
    const lit = text.slice(start, pos);
    if (lit === 'null') return null;
    if (lit === 'true') return true;
    if (lit === 'false') return false;
    return { num: lit };
  };
  return val();
}

/** strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses for float64. */
export function goFloat(f: number): string {
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  const [mant, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  // %e when the exponent is < -4 or >= 6 (the precision strconv uses for the shortest form).
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return String(f);
}

/** A JSON number literal as kjson decodes it into interface{} (int64 when it can) and %v prints it. */
function goNumber(lit: string): string {
  if (!/[.eE]/.test(lit)) {
    try {
      const n = BigInt(lit);
      if (n >= -(2n ** 63n) && n < 2n ** 63n) return n.toString();
    } catch { /* not an integer */ }
  }
  return goFloat(Number(lit));
}

function formatGo(v: GoValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'boolean' || typeof v === 'string') return String(v);
  if (Array.isArray(v)) return `[${v.map(formatGo).join(' ')}]`;
  if (v instanceof Map) {
    const keys = [...v.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${keys.map((k) => `${k}:${formatGo(v.get(k)!)}`).join(' ')}]`;
  }
  return goNumber(v.num);
}

/** fmt.Sprintf("%+v", m) of the map[string]interface{} that JSON text decodes to. */
export function goSprintValue(jsonText: string): string {
  return formatGo(decodeGo(jsonText));
}



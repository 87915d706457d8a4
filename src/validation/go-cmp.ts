/**
 * cmp.Diff (github.com/google/go-cmp v0.6.0, what Kubernetes v1.32 vendors)
 * over the Go value model of go-types.ts: the comparison tree
 * (compare.go, report_value.go), the edit script for slices
 * (internal/diff), and the report text (report_compare.go,
 * report_reflect.go, report_text.go) with its context records, elisions,
 * verbosity limits and column alignment.
 *
 * go-cmp indents with U+0020 or U+00A0 chosen at random per process; this
 * always uses U+0020. Pointer-cycle references and transformers never occur
 * for API objects and are not modelled.
 */
import { cmpQuantity, formatQuantity } from '../apimachinery/quantity.js';
import {
  goStringCompare, int64Amount, isNamed, structField, typeString,
  type GoMap, type GoQuantity, type GoStruct, type GoType, type GoValue,
} from './go-types.js';

/** An invalid reflect.Value (a missing slice element or map entry). */
const INVALID = Symbol('invalid');
type V = GoValue | typeof INVALID;

interface ValueNode {
  parent?: ValueNode;
  type: GoType;
  vx: V;
  vy: V;
  numSame: number;
  numDiff: number;
  numCompared: number;
  numChildren: number;
  maxDepth: number;
  records: { key?: { type: GoType; value: GoValue }; value: ValueNode }[];
  value?: ValueNode;
}

function node(type: GoType, vx: V, vy: V, parent?: ValueNode): ValueNode {
  return { parent, type, vx, vy, numSame: 0, numDiff: 0, numCompared: 0, numChildren: 0, maxDepth: 0, records: [] };
}

function pop(child: ValueNode): void {
  const p = child.parent;
  if (!p) return;
  p.numSame += child.numSame;
  p.numDiff += child.numDiff;
  p.numCompared += child.numCompared;
  p.numChildren += child.numChildren + 1;
  if (p.maxDepth < child.maxDepth + 1) p.maxDepth = child.maxDepth + 1;
}

function report(n: ValueNode, eq: boolean, byMethod = false): void {
  if (eq) n.numSame++; else n.numDiff++;
  if (byMethod) n.numCompared++;
}

const qEqual = (a: GoQuantity, b: GoQuantity) => {
  if (!a.q || !b.q) return !a.q && !b.q;
  return cmpQuantity(a.q, b.q) === 0;
};

// ---------------------------------------------------------------------------
// Comparison (compare.go).

/** The element at i of a slice the edit script walks; the script never steps past either end. */
function elem(xs: readonly GoValue[], i: number): GoValue {
  const v = xs[i];
  if (v === undefined) throw new Error(`go-cmp: slice index ${i} out of range [0:${xs.length}]`);
  return v;
}

function compareAny(n: ValueNode): void {
  const { type: t, vx, vy } = n;
  if (vx === INVALID || vy === INVALID) { report(n, (vx === INVALID) === (vy === INVALID)); return; }
  switch (t.kind) {
    case 'quantity': report(n, qEqual(vx as GoQuantity, vy as GoQuantity), true); return;
    case 'bool': case 'string': case 'int': case 'int32': case 'int64': report(n, vx === vy); return;
    case 'struct': {
      const x = vx as GoStruct;
      const y = vy as GoStruct;
      for (const f of t.fields) {
        const c = node(f.type, structField(x, f), structField(y, f), n);
        n.records.push({ key: { type: { kind: 'string' }, value: f.name }, value: c });
        compareAny(c);
        pop(c);
      }
      return;
    }
    case 'slice': {
      if (vx === null || vy === null) { report(n, vx === null && vy === null); return; }
      const x = vx as GoValue[];
      const y = vy as GoValue[];
      const edits = difference(x.length, y.length, (ix, iy) => statelessCompare(t.elem, elem(x, ix), elem(y, iy)));
      let ix = 0;
      let iy = 0;
      for (const e of edits) {
        let c: ValueNode;
        if (e === 'X') c = node(t.elem, elem(x, ix++), INVALID, n);
        else if (e === 'Y') c = node(t.elem, INVALID, elem(y, iy++), n);
        else c = node(t.elem, elem(x, ix++), elem(y, iy++), n);
        n.records.push({ value: c });
        compareAny(c);
        pop(c);
      }
      return;
    }
    case 'map': {
      if (vx === null || vy === null) { report(n, vx === null && vy === null); return; }
      const x = new Map((vx as GoMap).entries);
      const y = new Map((vy as GoMap).entries);
      const keys = [...new Set([...x.keys(), ...y.keys()])].sort(goStringCompare);
      for (const k of keys) {
        const c = node(t.elem, x.has(k) ? x.get(k)! : INVALID, y.has(k) ? y.get(k)! : INVALID, n);
        n.records.push({ key: { type: t.key, value: k }, value: c });
        compareAny(c);
        pop(c);
      }
      return;
    }
    case 'ptr': {
      if (vx === null || vy === null) { report(n, vx === null && vy === null); return; }
      const c = node(t.elem, vx, vy, n);
      n.value = c;
      compareAny(c);
      pop(c);
    }
  }
}

interface Result { numSame: number; numDiff: number }

function statelessCompare(t: GoType, x: GoValue, y: GoValue): Result {
  const n = node(t, x, y);
  compareAny(n);
  return { numSame: n.numSame, numDiff: n.numDiff };
}

const resEqual = (r: Result) => r.numDiff === 0;
const resSimilar = (r: Result) => r.numSame + 1 >= r.numDiff;

type Edit = '.' | 'X' | 'Y' | 'M';

/** internal/diff.Difference: a greedy meet-in-the-middle edit script. */
export function difference(nx: number, ny: number, f: (ix: number, iy: number) => Result): Edit[] {
  interface Path { dir: number; x: number; y: number; es: Edit[] }
  const fwd: Path = { dir: 1, x: 0, y: 0, es: [] };
  const rev: Path = { dir: -1, x: nx, y: ny, es: [] };
  const append = (p: Path, t: Edit) => {
    p.es.push(t);
    if (t === '.' || t === 'M') { p.x += p.dir; p.y += p.dir; } else if (t === 'X') p.x += p.dir; else p.y += p.dir;
  };
  const connect = (p: Path, dx: number, dy: number) => {
    if (p.dir > 0) {
      while (dx > p.x && dy > p.y) {
        const r = f(p.x, p.y);
        if (resEqual(r)) append(p, '.'); else if (resSimilar(r)) append(p, 'M');
        else if (dx - p.x >= dy - p.y) append(p, 'X'); else append(p, 'Y');
      }
      while (dx > p.x) append(p, 'X');
      while (dy > p.y) append(p, 'Y');
    } else {
      while (p.x > dx && p.y > dy) {
        const r = f(p.x - 1, p.y - 1);
        if (resEqual(r)) append(p, '.'); else if (resSimilar(r)) append(p, 'M');
        else if (p.y - dy >= p.x - dx) append(p, 'Y'); else append(p, 'X');
      }
      while (p.x > dx) append(p, 'X');
      while (p.y > dy) append(p, 'Y');
    }
  };
  const zigzag = (x: number) => ((x & 1) !== 0 ? ~x : x) >> 1;
  const ff = { x: 0, y: 0 };
  const rf = { x: nx, y: ny };
  let budget = 4 * (nx + ny);
  for (;;) {
    if (ff.x >= rf.x || ff.y >= rf.y || budget === 0) break;
    for (let stop1 = false, stop2 = false, i = 0; !(stop1 && stop2) && budget > 0; i++) {
      const z = zigzag(i);
      const px = ff.x + z;
      const py = ff.y - z;
      if (px >= rev.x || py < fwd.y) stop1 = true;
      else if (py >= rev.y || px < fwd.x) stop2 = true;
      else if (resEqual(f(px, py))) {
        connect(fwd, px, py);
        append(fwd, '.');
        while (fwd.x < rev.x && fwd.y < rev.y && resEqual(f(fwd.x, fwd.y))) append(fwd, '.');
        ff.x = fwd.x; ff.y = fwd.y;
        stop1 = stop2 = true;
      } else budget--;
    }
    if (rev.x - ff.x >= rev.y - ff.y) ff.x++; else ff.y++;

    if (ff.x >= rf.x || ff.y >= rf.y || budget === 0) break;
    for (let stop1 = false, stop2 = false, i = 0; !(stop1 && stop2) && budget > 0; i++) {
      const z = zigzag(i);
      const px = rf.x - z;
      const py = rf.y + z;
      if (fwd.x >= px || rev.y < py) stop1 = true;
      else if (fwd.y >= py || rev.x < px) stop2 = true;
      else if (resEqual(f(px - 1, py - 1))) {
        connect(rev, px, py);
        append(rev, '.');
        while (fwd.x < rev.x && fwd.y < rev.y && resEqual(f(rev.x - 1, rev.y - 1))) append(rev, '.');
        rf.x = rev.x; rf.y = rev.y;
        stop1 = stop2 = true;
      } else budget--;
    }
    if (rf.x - fwd.x >= rf.y - fwd.y) rf.x--; else rf.y--;
  }
  connect(fwd, rev.x, rev.y);
  for (const e of rev.es.slice().reverse()) append(fwd, e);
  return fwd.es;
}

// ---------------------------------------------------------------------------
// Text nodes (report_text.go).

const MAX_COLUMN_LENGTH = 80;
type DiffMode = '' | ' ' | '-' | '+';

const runes = (s: string) => [...s].length;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

function appendIndent(b: string, d: DiffMode, n: number): string {
  b += d === '-' ? '- ' : d === '+' ? '+ ' : '  ';
  return b + '\t'.repeat(n);
}

interface DiffStats { name: string; ignored: number; identical: number; removed: number; inserted: number; modified: number }
const newStats = (name: string): DiffStats => ({ name, ignored: 0, identical: 0, removed: 0, inserted: 0, modified: 0 });
const numDiff = (s: DiffStats) => s.removed + s.inserted + s.modified;
const statsZero = (s: DiffStats) => s.ignored + s.identical + s.removed + s.inserted + s.modified === 0;
const statsAppend = (a: DiffStats, b: DiffStats): DiffStats => ({
  name: a.name, ignored: a.ignored + b.ignored, identical: a.identical + b.identical, removed: a.removed + b.removed,
  inserted: a.inserted + b.inserted, modified: a.modified + b.modified,
});
const statsEqual = (a?: DiffStats, b?: DiffStats) => (!a && !b) || (!!a && !!b && a.name === b.name && a.ignored === b.ignored &&
  a.identical === b.identical && a.removed === b.removed && a.inserted === b.inserted && a.modified === b.modified);

function statsString(s: DiffStats): string {
  const labels = ['ignored', 'identical', 'removed', 'inserted', 'modified'];
  const counts = [s.ignored, s.identical, s.removed, s.inserted, s.modified];
  const ss: string[] = [];
  let sum = 0;
  counts.forEach((n, i) => { if (n > 0) ss.push(`${n} ${labels[i]}`); sum += n; });
  let name = s.name;
  if (sum > 1) {
    name += 's';
    if (name.endsWith('ys')) name = name.slice(0, -2) + 'ies';
  }
  switch (ss.length) {
    case 0: return '';
    case 1: case 2: return `${ss.join(' and ')} ${name}`;
    default: return `${ss.slice(0, -1).join(', ')}, and ${ss[ss.length - 1]} ${name}`;
  }
}

abstract class TextNode {
  abstract len(): number;
  abstract equal(o: TextNode): boolean;
  abstract compact(b: string, d: DiffMode): [string, TextNode];
  abstract expanded(b: string, d: DiffMode, n: number): string;
  toString(): string {
    const [, s2] = this.compact('', '');
    let b = appendIndent('', '', 0);
    b = s2.expanded(b, '', 0);
    return b + '\n';
  }
}

class TextLine extends TextNode {
  constructor(readonly s: string) { super(); }
  len() { return bytes(this.s); }
  equal(o: TextNode) { return o instanceof TextLine && o.s === this.s; }
  compact(b: string): [string, TextNode] { return [b + this.s, this]; }
  expanded(b: string) { return b + this.s; }
  override toString() { return this.s; }
}

const textNil = new TextLine('nil');
const textEllipsis = new TextLine('...');

class TextWrap extends TextNode {
  constructor(public prefix: string, public value: TextNode, public suffix: string) { super(); }
  len() { return bytes(this.prefix) + this.value.len() + bytes(this.suffix); }
  equal(o: TextNode) { return o instanceof TextWrap && o.prefix === this.prefix && o.suffix === this.suffix && this.value.equal(o.value); }
  compact(b: string, d: DiffMode): [string, TextNode] {
    const n0 = b.length;
    b += this.prefix;
    let v: TextNode;
    [b, v] = this.value.compact(b, d);
    this.value = v;
    b += this.suffix;
    if (v instanceof TextLine) return [b, new TextLine(b.slice(n0))];
    return [b, this];
  }
  expanded(b: string, d: DiffMode, n: number) {
    return this.value.expanded(b + this.prefix, d, n) + this.suffix;
  }
}

interface TextRecord { diff: DiffMode; key: string; value: TextNode; elideComma?: boolean; comment?: DiffStats | string }

class TextList extends TextNode {
  constructor(public recs: TextRecord[] = []) { super(); }
  len() {
    let n = 0;
    this.recs.forEach((r, i) => {
      n += bytes(r.key);
      if (r.key) n += 2;
      n += r.value.len();
      if (i < this.recs.length - 1) n += 2;
    });
    return n;
  }
  equal(o: TextNode): boolean {
    if (!(o instanceof TextList) || o.recs.length !== this.recs.length) return false;
    return this.recs.every((r, i) => {
      const r2 = o.recs[i];
      if (!r2) return false;
      const ce = typeof r.comment === 'string' || typeof r2.comment === 'string' ? r.comment === r2.comment
        : statsEqual(r.comment, r2.comment as DiffStats | undefined);
      return r.diff === r2.diff && r.key === r2.key && r.value.equal(r2.value) && ce;
    });
  }
  appendEllipsis(ds: DiffStats): void {
    const hasStats = !statsZero(ds);
    const last = this.recs[this.recs.length - 1];
    if (!last || !last.value.equal(textEllipsis)) {
      this.recs.push(hasStats ? { diff: '', key: '', value: textEllipsis, elideComma: true, comment: ds }
        : { diff: '', key: '', value: textEllipsis, elideComma: true });
      return;
    }
    if (hasStats) last.comment = statsAppend(last.comment as DiffStats, ds);
  }
  compact(b: string, d: DiffMode): [string, TextNode] {
    const s = new TextList(this.recs.map((r) => ({ ...r })));
    const n0 = b.length;
    let multi = false;
    s.recs.forEach((r, i) => {
      if (r.diff === '+' || r.diff === '-') multi = true;
      b += r.key;
      if (r.key) b += ': ';
      let v: TextNode;
      [b, v] = r.value.compact(b, (d || r.diff) as DiffMode);
      r.value = v;
      if (!(v instanceof TextLine)) multi = true;
      if (r.comment !== undefined) multi = true;
      if (i < s.recs.length - 1) b += ', ';
    });
    if ((d === '+' || d === '-') && bytes(b.slice(n0)) > MAX_COLUMN_LENGTH) multi = true;
    if (!multi) return [b, new TextLine(b.slice(n0))];
    return [b, s];
  }
  private alignLens(skip: (r: TextRecord) => boolean, len: (r: TextRecord) => number): number[] {
    let start = 0;
    let end = 0;
    let max = 0;
    const lens = new Array<number>(this.recs.length).fill(0);
    this.recs.forEach((r, i) => {
      if (skip(r)) {
        this.recs.slice(start, end).forEach((rj, k) => { lens[start + k] = max - len(rj); });
        start = end = i + 1;
        max = 0;
      } else {
        max = Math.max(max, len(r));
        end = i + 1;
      }
    });
    this.recs.slice(start, end).forEach((rj, k) => { lens[start + k] = max - len(rj); });
    return lens;
  }
  expanded(b: string, d: DiffMode, n: number): string {
    const keyLens = this.alignLens((r) => r.key === '' || !(r.value instanceof TextLine), (r) => runes(r.key));
    const valLens = this.alignLens((r) => !(r.value instanceof TextLine) || r.value.equal(textEllipsis) || r.comment === undefined,
      (r) => runes((r.value as TextLine).s));
    const isSimple = this.recs.length > 0 &&
      this.recs.every((r) => r.diff === '' && r.key === '' && r.value instanceof TextLine && r.comment === undefined);
    if (isSimple) {
      n++;
      let batch = '';
      const emit = () => {
        if (batch.length) { b = appendIndent(b + '\n', d, n) + batch.replace(/ +$/, ''); batch = ''; }
      };
      for (const r of this.recs) {
        const line = (r.value as TextLine).s;
        if (bytes(batch) + bytes(line) + 2 > MAX_COLUMN_LENGTH) emit();
        batch += line + ', ';
      }
      emit();
      n--;
      return appendIndent(b + '\n', d, n);
    }
    n++;
    this.recs.forEach((r, i) => {
      b = appendIndent(b + '\n', (d || r.diff) as DiffMode, n);
      if (r.key) b += r.key + ': ';
      b += ' '.repeat(keyLens[i] ?? 0);
      b = r.value.expanded(b, (d || r.diff) as DiffMode, n);
      if (!r.elideComma) b += ',';
      b += ' '.repeat(valLens[i] ?? 0);
      if (r.comment !== undefined) b += ' // ' + (typeof r.comment === 'string' ? r.comment : statsString(r.comment));
    });
    n--;
    return appendIndent(b + '\n', d, n);
  }
}

// ---------------------------------------------------------------------------
// Formatting (report_compare.go, report_reflect.go).

type TypeMode = 'emit' | 'elide' | 'auto';

interface Opts {
  diffMode: DiffMode;
  typeMode: TypeMode;
  avoidStringer: boolean;
  limitVerbosity: boolean;
  verbosityLevel: number;
}

const with_ = (o: Opts, p: Partial<Opts>): Opts => ({ ...o, ...p });
const verbosity = (o: Opts) => Math.max(0, Math.min(16, o.verbosityLevel));
const withVerbosity = (o: Opts, level: number) => with_(o, { verbosityLevel: level, limitVerbosity: true });
const MAX_VERBOSITY_PRESET = 6;
function verbosityPreset(o: Opts, i: number): Opts {
  const r = with_(o, { verbosityLevel: verbosity(o) + 2 * i });
  if (i > 0) r.avoidStringer = true;
  return r;
}

const isComposite = (t: GoType) => t.kind === 'struct' || t.kind === 'slice' || t.kind === 'map' || t.kind === 'quantity';

function formatType(o: Opts, t: GoType, s: TextNode): TextNode {
  if (o.typeMode === 'auto') {
    if (!isComposite(t)) return s;
    if (s.equal(textNil)) return s;
    if (o.diffMode === ' ') return s;
  } else if (o.typeMode === 'elide') return s;
  let name = typeString(t);
  if (!isNamed(t) && t.kind === 'ptr') name = `(${name})`;
  return new TextWrap(name, wrapParens(s), '');
}

function wrapParens(s: TextNode): TextNode {
  if (s instanceof TextWrap) {
    const parens = s.prefix.startsWith('(') && s.suffix.endsWith(')');
    const braces = s.prefix.startsWith('{') && s.suffix.endsWith('}');
    if (parens || braces) return s;
  }
  return new TextWrap('(', s, ')');
}

/** strconv.Quote */
function strconvQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
      default: break;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** formatString: a double-quoted string, or a raw `string` when that is shorter. */
function quoteString(s: string): string {
  const qs = strconvQuote(s);
  if (bytes(qs) === 1 + bytes(s) + 1) return qs;
  const rawInvalid = [...s].some((ch) => ch === '`' || ch === '\n' || (ch !== '\t' && (ch.codePointAt(0)! < 0x20 || ch.codePointAt(0)! === 0x7f)));
  if (!rawInvalid) return '`' + s + '`';
  return qs;
}

function formatStringOpts(o: Opts, prefix: string, s: string): TextNode {
  let maxLen = bytes(s);
  if (o.limitVerbosity) maxLen = (1 << verbosity(o)) << 5;
  if (bytes(s) > maxLen + 3) {
    const cut = Buffer.from(s, 'utf8').subarray(0, maxLen).toString('utf8');
    return new TextLine(prefix + quoteString(cut) + '...');
  }
  return new TextLine(prefix + quoteString(s));
}

function quantityString(q: GoQuantity): string {
  return q.q ? formatQuantity(q.q) : '0';
}

const INT64_AMOUNT: GoType = { kind: 'struct', name: 'resource.int64Amount', fields: [
  { name: 'value', type: { kind: 'int64' }, json: '' }, { name: 'scale', type: { kind: 'int32', name: 'resource.Scale' }, json: '' }] };

/** A resource.Quantity as a struct of its unexported fields. */
function quantityFields(q: GoQuantity): [string, TextNode][] {
  const out: [string, TextNode][] = [];
  if (!q.q) return out;
  const i = int64Amount(q.q);
  if (i && (i.value !== 0n || i.scale !== 0)) {
    const parts = [];
    if (i.value !== 0n) parts.push(`value: ${i.value}`);
    if (i.scale !== 0) parts.push(`scale: ${i.scale}`);
    out.push(['i', new TextLine(`${typeString(INT64_AMOUNT)}{${parts.join(', ')}}`)]);
  } else if (!i) {
    out.push(['d', new TextLine('resource.infDecAmount{Dec: &inf.Dec{...}}')]);
  }
  if (q.q.s) out.push(['s', new TextLine(strconvQuote(q.q.s))]);
  out.push(['Format', new TextLine(strconvQuote(q.q.format))]);
  return out;
}

/** value.IsZero for our values. */
function isZero(t: GoType, v: V): boolean {
  if (v === INVALID) return true;
  switch (t.kind) {
    case 'bool': return v === false;
    case 'string': return v === '';
    case 'int': case 'int32': case 'int64': return v === 0;
    case 'quantity': return !(v as GoQuantity).q;
    case 'struct': return t.fields.every((f) => isZero(f.type, structField(v as GoStruct, f)));
    default: return v === null;
  }
}

/**
 * FormatValue. `viaPointer` marks the element of a pointer, whose method set
 * includes pointer-receiver String methods (*LabelSelector, *Quantity).
 */
function formatValue(o: Opts, t: GoType, v: V, parentKind: string): TextNode | undefined {
  if (v === INVALID) return undefined;
  if (!o.avoidStringer && t.kind === 'string' && t.stringer) return formatStringOpts(o, 's', v as string);
  let skipType = false;
  const out = ((): TextNode => {
    switch (t.kind) {
      case 'bool': return new TextLine(String(v));
      case 'int': case 'int32': case 'int64': return new TextLine(String(v));
      case 'string': return formatStringOpts(o, '', v as string);
      case 'quantity': {
        const list = new TextList();
        for (const [k, x] of quantityFields(v as GoQuantity)) list.recs.push({ diff: '', key: k, value: x });
        return new TextWrap('{', list, '}');
      }
      case 'struct': {
        const list = new TextList();
        let maxLen = t.fields.length;
        let oo = o;
        if (o.limitVerbosity) {
          maxLen = ((1 << verbosity(o)) >> 1) << 2;
          oo = with_(o, { verbosityLevel: o.verbosityLevel - 1 });
        }
        const s = v as GoStruct;
        for (const f of t.fields) {
          const fv = structField(s, f);
          if (isZero(f.type, fv)) continue;
          if (list.recs.length === maxLen) { list.appendEllipsis(newStats('')); break; }
          const x = formatValue(with_(oo, { typeMode: 'auto' }), f.type, fv, 'struct')!;
          list.recs.push({ diff: '', key: f.name, value: x });
        }
        return new TextWrap('{', list, '}');
      }
      case 'slice': {
        if (v === null) return textNil;
        const items = v as GoValue[];
        let maxLen = items.length;
        let oo = o;
        if (o.limitVerbosity) {
          maxLen = ((1 << verbosity(o)) >> 1) << 2;
          oo = with_(o, { verbosityLevel: o.verbosityLevel - 1 });
        }
        const list = new TextList();
        for (const x of items) {
          if (list.recs.length === maxLen) { list.appendEllipsis(newStats('')); break; }
          list.recs.push({ diff: '', key: '', value: formatValue(with_(oo, { typeMode: 'elide' }), t.elem, x, 'slice')! });
        }
        return new TextWrap('{', list, '}');
      }
      case 'map': {
        if (v === null) return textNil;
        const entries = (v as GoMap).entries;
        let maxLen = entries.length;
        let oo = o;
        if (o.limitVerbosity) {
          maxLen = ((1 << verbosity(o)) >> 1) << 2;
          oo = with_(o, { verbosityLevel: o.verbosityLevel - 1 });
        }
        const list = new TextList();
        for (const [k, x] of entries) {
          if (list.recs.length === maxLen) { list.appendEllipsis(newStats('')); break; }
          list.recs.push({ diff: '', key: formatMapKey(t.key, k), value: formatValue(with_(oo, { typeMode: 'elide' }), t.elem, x, 'map')! });
        }
        return new TextWrap('{', list, '}');
      }
      case 'ptr': {
        if (v === null) return textNil;
        // *T's method set includes T's pointer-receiver String methods.
        if (!o.avoidStringer) {
          if (t.elem.kind === 'struct' && t.elem.stringerPtr) return formatStringOpts(o, 's', t.elem.stringerPtr(v as GoStruct));
          if (t.elem.kind === 'quantity') return formatStringOpts(o, 's', quantityString(v as GoQuantity));
        }
        skipType = true;
        return new TextWrap('&', formatValue(o, t.elem, v, 'ptr')!, '');
      }
    }
  })();
  void parentKind;
  if (skipType) return out;
  if ((t.kind === 'string' && t.stringer && !o.avoidStringer)) return out;
  return formatType(o, t, out);
}

function formatMapKey(t: GoType, k: GoValue): string {
  const o: Opts = { diffMode: ' ', typeMode: 'elide', avoidStringer: false, limitVerbosity: true, verbosityLevel: MAX_VERBOSITY_PRESET };
  return (formatValue(o, t, k, 'map') ?? textNil).toString().trim();
}

function canFormatDiffSlice(o: Opts, v: ValueNode): boolean {
  if (o.diffMode !== '' || v.numDiff === 0 || v.vx === INVALID || v.vy === INVALID) return false;
  if (v.type.kind === 'slice' && (v.vx === null || v.vy === null)) return false;
  if (v.numCompared > 1 || (v.numCompared === 1 && isNamed(v.type))) return false;
  if (v.type.kind === 'string') return bytes(v.vx as string) >= 64 && bytes(v.vy as string) >= 64;
  if (v.type.kind === 'slice') {
    const ek = v.type.elem.kind;
    if (!['bool', 'int', 'int32', 'int64'].includes(ek)) return false;
    if (v.numDiff > v.numSame) return true;
    return (v.vx as GoValue[]).length >= 64 && (v.vy as GoValue[]).length >= 64;
  }
  return false;
}

/** FormatDiffSlice for long single-line strings: chunked differences of 64 bytes. */
function formatDiffSlice(o: Opts, v: ValueNode): TextNode {
  if (v.type.kind !== 'string') {
    // Slices of primitives: emit as removed/inserted whole values (rare in pod specs).
    const list = new TextList([
      { diff: '-', key: '', value: formatValue(with_(o, { typeMode: 'elide' }), v.type, v.vx, '')! },
      { diff: '+', key: '', value: formatValue(with_(o, { typeMode: 'elide' }), v.type, v.vy, '')! },
    ]);
    return formatType(with_(o, { typeMode: 'emit' }), v.type, list);
  }
  const sx = v.vx as string;
  const sy = v.vy as string;
  const bx = Buffer.from(sx, 'utf8');
  const by = Buffer.from(sy, 'utf8');
  const es = difference(bx.length, by.length, (ix, iy) => (bx[ix] === by[iy] ? { numSame: 1, numDiff: 0 } : { numSame: 0, numDiff: 2 }));
  const chunk = 64;
  const list = new TextList();
  const rec = (b: Buffer, d: DiffMode) => list.recs.push({ diff: d, key: '', value: new TextLine(quoteString(b.toString('utf8'))) });
  const chunks = (b: Buffer, d: DiffMode) => { for (let i = 0; i < b.length; i += chunk) rec(b.subarray(i, Math.min(b.length, i + chunk)), d); };
  // Group the edit script into equal and unequal runs.
  const groups: DiffStats[] = [];
  let prev = 0;
  for (const e of es) {
    const c = e === '.' ? 1 : 2;
    let g = groups.at(-1);
    if (c !== prev || !g) { g = newStats('byte'); groups.push(g); prev = c; }
    if (e === '.') g.identical++; else if (e === 'X') g.removed++; else if (e === 'Y') g.inserted++; else g.modified++;
  }
  let x = bx;
  let y = by;
  groups.forEach((ds, i) => {
    if (numDiff(ds) === 0) {
      const numEqual = ds.identical;
      let lo = 0;
      let hi = 0;
      while (lo < chunk * 2 && lo + hi < numEqual && i !== 0) lo++;
      while (hi < chunk * 2 && lo + hi < numEqual && i !== groups.length - 1) hi++;
      if (numEqual - (lo + hi) <= chunk) hi = numEqual - lo;
      chunks(x.subarray(0, lo), '');
      if (numEqual > lo + hi) list.appendEllipsis({ ...ds, identical: numEqual - lo - hi });
      chunks(x.subarray(numEqual - hi, numEqual), '');
      x = x.subarray(numEqual);
      y = y.subarray(numEqual);
      return;
    }
    const nx = ds.identical + ds.removed + ds.modified;
    const ny = ds.identical + ds.inserted + ds.modified;
    chunks(x.subarray(0, nx), '-');
    x = x.subarray(nx);
    chunks(y.subarray(0, ny), '+');
    y = y.subarray(ny);
  });
  return new TextWrap('strings.Join(', new TextWrap('{', list, '}'), ', "")');
}

function formatDiff(o0: Opts, v: ValueNode): TextNode | undefined {
  let o = o0;
  if (o.diffMode === ' ') o = withVerbosity(o, 1);
  else if (verbosity(o) < 3) o = withVerbosity(o, 3);

  if (canFormatDiffSlice(o, v)) return formatDiffSlice(o, v);
  const parentKind = v.parent?.type.kind ?? '';

  if (v.maxDepth === 0) {
    switch (o.diffMode) {
      case '': case ' ': {
        if (v.numDiff === 0) {
          const outx = formatValue(o, v.type, v.vx, parentKind);
          const outy = formatValue(o, v.type, v.vy, parentKind);
          if (outx && outy && outx.len() < outy.len()) return outx;
          return outy;
        }
        let outx = formatValue(with_(o, { typeMode: 'elide' }), v.type, v.vx, parentKind);
        let outy = formatValue(with_(o, { typeMode: 'elide' }), v.type, v.vy, parentKind);
        for (let i = 0; i <= MAX_VERBOSITY_PRESET && outx && outy && outx.equal(outy); i++) {
          const o2 = with_(verbosityPreset(o, i), { typeMode: 'elide' });
          outx = formatValue(o2, v.type, v.vx, parentKind);
          outy = formatValue(o2, v.type, v.vy, parentKind);
        }
        const list = new TextList();
        if (outx) list.recs.push({ diff: '-', key: '', value: outx });
        if (outy) list.recs.push({ diff: '+', key: '', value: outy });
        return formatType(with_(o, { typeMode: 'emit' }), v.type, list);
      }
      case '-': return formatValue(o, v.type, v.vx, parentKind);
      case '+': return formatValue(o, v.type, v.vy, parentKind);
    }
  }

  switch (v.type.kind) {
    case 'struct': case 'slice': case 'map':
      return formatType(o, v.type, formatDiffList(o, v.records, v.type.kind));
    case 'ptr':
      return new TextWrap('&', formatDiff(o, v.value!)!, '');
    default:
      throw new Error(`go-cmp: ${v.type.kind} cannot have children`);
  }
}

function coalesceAdjacentRecords(name: string, recs: ValueNode[]): DiffStats[] {
  const groups: DiffStats[] = [];
  let prev = 0;
  const last = (i: number) => {
    let g = groups.at(-1);
    if (prev !== i || !g) { g = newStats(name); groups.push(g); prev = i; }
    return g;
  };
  for (const rv of recs) {
    if (rv.numDiff === 0) last(1).identical++;
    else if (rv.vy === INVALID) last(2).removed++;
    else if (rv.vx === INVALID) last(2).inserted++;
    else last(2).modified++;
  }
  return groups;
}

function formatDiffList(o0: Opts, records: ValueNode['records'], kind: 'struct' | 'slice' | 'map'): TextNode {
  let o = o0;
  let name: string;
  let formatKey: (r: ValueNode['records'][number]) => string;
  switch (kind) {
    case 'struct': name = 'field'; o = with_(o, { typeMode: 'auto' }); formatKey = (r) => r.key!.value as string; break;
    case 'slice': name = 'element'; o = with_(o, { typeMode: 'elide' }); formatKey = () => ''; break;
    default: name = 'entry'; o = with_(o, { typeMode: 'elide' }); formatKey = (r) => formatMapKey(r.key!.type, r.key!.value); break;
  }
  let maxLen = -1;
  if (o.limitVerbosity) {
    maxLen = o.diffMode === ' ' ? ((1 << verbosity(o)) >> 1) << 2 : (1 << verbosity(o)) << 1;
    o = with_(o, { verbosityLevel: o.verbosityLevel - 1 });
  }

  if (o.diffMode !== '') {
    const list = new TextList();
    let deferredEllipsis = false;
    for (const r of records) {
      if (list.recs.length === maxLen) { deferredEllipsis = true; break; }
      if (kind === 'struct') {
        let zero: boolean;
        if (o.diffMode === ' ') zero = isZero(r.value.type, r.value.vx) || isZero(r.value.type, r.value.vy);
        else if (o.diffMode === '-') zero = isZero(r.value.type, r.value.vx);
        else zero = isZero(r.value.type, r.value.vy);
        if (zero) continue;
      }
      const out = formatDiff(o, r.value);
      if (out) list.recs.push({ diff: '', key: formatKey(r), value: out });
    }
    if (deferredEllipsis) list.appendEllipsis(newStats(''));
    return new TextWrap('{', list, '}');
  }

  let numDiffs = 0;
  const list = new TextList();
  let recs = records;
  const groups = coalesceAdjacentRecords(name, recs.map((r) => r.value));
  let maxGroup = newStats(name);
  groups.forEach((ds0, i) => {
    const ds = { ...ds0 };
    if (maxLen >= 0 && numDiffs >= maxLen) { maxGroup = statsAppend(maxGroup, ds); return; }
    if (numDiff(ds) === 0) {
      let lo = 0;
      let hi = 0;
      const numEqual = ds.ignored + ds.identical;
      while (lo < 2 && lo + hi < numEqual && i !== 0) lo++;
      while (hi < 2 && lo + hi < numEqual && i !== groups.length - 1) hi++;
      if (numEqual - (lo + hi) === 1 && ds.ignored === 0) hi++;
      for (const r of recs.slice(0, lo)) list.recs.push({ diff: '', key: formatKey(r), value: formatDiff(with_(o, { diffMode: ' ' }), r.value)! });
      if (numEqual > lo + hi) {
        ds.identical -= lo + hi;
        list.appendEllipsis(ds);
      }
      for (const r of recs.slice(numEqual - hi, numEqual)) {
        list.recs.push({ diff: '', key: formatKey(r), value: formatDiff(with_(o, { diffMode: ' ' }), r.value)! });
      }
      recs = recs.slice(numEqual);
      return;
    }
    for (const r of recs.slice(0, numDiff(ds))) {
      if (canFormatDiffSlice(o, r.value)) {
        list.recs.push({ diff: '', key: formatKey(r), value: formatDiffSlice(o, r.value) });
      } else if (r.value.numChildren === r.value.maxDepth) {
        let outx = formatDiff(with_(o, { diffMode: '-' }), r.value);
        let outy = formatDiff(with_(o, { diffMode: '+' }), r.value);
        for (let j = 0; j <= MAX_VERBOSITY_PRESET && outx && outy && outx.equal(outy); j++) {
          const o2 = verbosityPreset(o, j);
          outx = formatDiff(with_(o2, { diffMode: '-' }), r.value);
          outy = formatDiff(with_(o2, { diffMode: '+' }), r.value);
        }
        if (outx) list.recs.push({ diff: '-', key: formatKey(r), value: outx });
        if (outy) list.recs.push({ diff: '+', key: formatKey(r), value: outy });
      } else {
        list.recs.push({ diff: '', key: formatKey(r), value: formatDiff(o, r.value)! });
      }
    }
    recs = recs.slice(numDiff(ds));
    numDiffs += numDiff(ds);
  });
  if (!statsZero(maxGroup)) list.appendEllipsis(maxGroup);
  return new TextWrap('{', list, '}');
}

/** cmp.Diff(x, y) for two values of type t: "" when equal. */
export function cmpDiff(t: GoType, x: GoValue, y: GoValue): string {
  const root = node(t, x, y);
  compareAny(root);
  if (root.numDiff === 0) return '';
  const o: Opts = { diffMode: '', typeMode: 'emit', avoidStringer: false, limitVerbosity: false, verbosityLevel: 0 };
  const text = formatDiff(o, root)!;
  return text.toString();
}

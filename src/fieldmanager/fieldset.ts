/**
 * Sets of field paths, as structured-merge-diff's fieldpath.Set, and their
 * FieldsV1 form.
 *
 * A path is a list of path elements, each written as in FieldsV1:
 * `f:<field name>`, `k:<key fields as JSON>` (an item of a list of type
 * map), `v:<value as JSON>` (an item of a list of type set) or `i:<index>`.
 * A set is a tree: each node stands for one path element under its parent,
 * and is a member of the set itself or only leads to members below it
 * (FieldsV1 writes a node that is both as `".": {}` among its children).
 */

export class FieldSet {
  /** Whether the path of this node is in the set (never for the root). */
  member = false;
  children: Map<string, FieldSet> | undefined;
  /** The children's elements in upstream's order, once written (see childOrder). */
  order: string[] | undefined = undefined;

  child(pe: string): FieldSet | undefined {
    return this.children?.get(pe);
  }

  /** The child for pe, created if missing. */
  ensure(pe: string): FieldSet {
    this.children ??= new Map();
    let c = this.children.get(pe);
    if (!c) this.children.set(pe, c = new FieldSet());
    return c;
  }

  empty(): boolean {
    return !this.children || this.children.size === 0;
  }

  insert(path: readonly string[]): void {
    if (path.length === 0) return;
    ensurePath(this, path).member = true;
  }

  has(path: readonly string[]): boolean {
    if (path.length === 0) return false;
    return childAt(this, path)?.member ?? false;
  }

  /** The set of paths below pe (upstream's WithPrefix). */
  withPrefix(pe: string): FieldSet {
    return this.child(pe) ?? EMPTY;
  }

  /** Every member path: members of a node first, then the paths below its children, each in upstream's order. */
  iterate(fn: (path: string[]) => void, prefix: string[] = []): void {
    if (!this.children) return;
    const keys = sortedElements([...this.children.keys()]);
    for (const k of keys) if (this.children.get(k)!.member) fn([...prefix, k]);
    for (const k of keys) {
      const c = this.children.get(k)!;
      if (c.children) c.iterate(fn, [...prefix, k]);
    }
  }

  paths(): string[][] {
    const out: string[][] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  clone(): FieldSet {
    const s = new FieldSet();
    s.member = this.member;
    if (this.children) {
      s.children = new Map();
      for (const [k, c] of this.children) s.children.set(k, c.clone());
    }
    return s;
  }
}

const EMPTY = new FieldSet();

function node(member: boolean, children: Map<string, FieldSet> | undefined): FieldSet | undefined {
  if (!member && (!children || children.size === 0)) return undefined;
  const s = new FieldSet();
  s.member = member;
  if (children && children.size) s.children = children;
  return s;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const out = new FieldSet();
  out.children = new Map();
  for (const [k, ca] of a.children!) {
    const cb = b.children!.get(k);
    out.children.set(k, cb ? unionNode(ca, cb) : ca);
  }
  for (const [k, cb] of b.children!) if (!a.children!.has(k)) out.children.set(k, cb);
  return out;
}

function unionNode(a: FieldSet, b: FieldSet): FieldSet {
  const s = union(a, b);
  const out = new FieldSet();
  out.member = a.member || b.member;
  out.children = s.children;
  return out;
}

/** Whether every member of a is a member of b. */
export function isSubset(a: FieldSet, b: FieldSet): boolean {
  if (!a.children) return true;
  for (const [k, ca] of a.children) {
    const cb = b.children?.get(k);
    if (!cb) {
      if (ca.member || !ca.empty()) return false;
      continue;
    }
    if ((ca.member && !cb.member) || !isSubset(ca, cb)) return false;
  }
  return true;
}

/** Members of a that are not members of b (children of b's members stay). */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  if (a.empty() || b.empty()) return a;
  const out = new FieldSet();
  for (const [k, ca] of a.children!) {
    const cb = b.children!.get(k);
    if (!cb) { (out.children ??= new Map()).set(k, ca); continue; }
    const sub = difference(ca, cb);
    const n = node(ca.member && !cb.member, sub.children);
    if (n) (out.children ??= new Map()).set(k, n);
  }
  return out;
}

/** Members of a that are neither members of b nor below a member of b. */
export function recursiveDifference(a: FieldSet, b: FieldSet): FieldSet {
  if (a.empty() || b.empty()) return a;
  const out = new FieldSet();
  for (const [k, ca] of a.children!) {
    const cb = b.children!.get(k);
    if (!cb) { (out.children ??= new Map()).set(k, ca); continue; }
    if (cb.member) continue;
    const sub = recursiveDifference(ca, cb);
    const n = node(ca.member, sub.children);
    if (n) (out.children ??= new Map()).set(k, n);
  }
  return out;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  if (a.empty() || b.empty()) return EMPTY;
  const out = new FieldSet();
  for (const [k, ca] of a.children!) {
    const cb = b.children!.get(k);
    if (!cb) continue;
    const sub = intersection(ca, cb);
    const n = node(ca.member && cb.member, sub.children);
    if (n) (out.children ??= new Map()).set(k, n);
  }
  return out;
}

export function setFromPaths(paths: string[][]): FieldSet {
  const s = new FieldSet();
  for (const p of paths) s.insert(p);
  return s;
}

// ---- path elements ----

/** JSON as Go's encoder writes it (HTML-safe escapes); object keys in the given order. */
export function goJSON(v: unknown): string {
  const s = JSON.stringify(v);
  return /[<>&\u2028\u2029]/.test(s)
    ? s.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : s;
}

export function fieldPE(name: string): string {
  return `f:${name}`;
}

/** The element of a list-map item: its key fields, sorted by name. */
export function keyPE(fields: [string, unknown][]): string {
  if (fields.length > 1) fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let s = 'k:{';
  let first = true;
  for (const [name, value] of fields) {
    if (!first) s += ',';
    first = false;
    s += `${goJSON(name)}:${goJSON(value)}`;
  }
  return `${s}}`;
}

export function valuePE(v: unknown): string {
  return `v:${goJSON(v)}`;
}

/** A path element as written by a client, in our canonical spelling (or undefined if malformed). */
export function canonicalPE(pe: string): string | undefined {
  const kind = pe.slice(0, 2);
  const rest = pe.slice(2);
  try {
    switch (kind) {
      case 'f:': return pe;
      case 'i:': return /^\d+$/.test(rest) ? pe : undefined;
      case 'v:': return valuePE(JSON.parse(rest));
      case 'k:': {
        const o = JSON.parse(rest) as unknown;
        if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
        return keyPE(Object.entries(o));
      }
      default: return undefined;
    }
  } catch {
    return undefined;
  }
}

/** The set at `path` below `root`, created as needed. */
function ensurePath(root: FieldSet, path: readonly string[]): FieldSet {
  let n = root;
  for (const pe of path) n = n.ensure(pe);
  return n;
}

/** The set at `path` below `root`, if every step exists. */
function childAt(root: FieldSet, path: readonly string[]): FieldSet | undefined {
  let n: FieldSet | undefined = root;
  for (const pe of path) {
    n = n.child(pe);
    if (!n) return undefined;
  }
  return n;
}

/** Go's %v of a value in a path (value.ToString): strings quoted, the rest as JSON. */
function valueString(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${k}=${valueString(x)}`).join(',')}}`;
  return String(v);
}

/** A path as upstream prints it in conflicts: `.spec.containers[name="web"].image`. */
export function pathString(path: readonly string[]): string {
  let s = '';
  for (const pe of path) {
    const rest = pe.slice(2);
    switch (pe.slice(0, 2)) {
      case 'f:': s += `.${rest}`; break;
      case 'k:': {
        const o = JSON.parse(rest) as Record<string, unknown>;
        s += `[${Object.entries(o).map(([k, v]) => `${k}=${valueString(v)}`).join(',')}]`;
        break;
      }
      case 'v:': s += `[=${valueString(JSON.parse(rest))}]`; break;
      case 'i:': s += `[${rest}]`; break;
      default: s += pe;
    }
  }
  return s;
}

// ---- ordering (upstream's PathElement.Compare) ----

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 2;
  if (typeof v === 'boolean') return 3;
  if (Array.isArray(v)) return 4;
  if (v !== null && typeof v === 'object') return 5;
  return 6;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0: return (a as number) - (b as number);
    case 2: return compareStrings(a as string, b as string);
    case 3: return Number(a) - Number(b);
    case 4: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c) return c;
      }
      return x.length - y.length;
    }
    case 5: return compareFieldLists(Object.entries(a as object), Object.entries(b as object));
    default: return 0;
  }
}

function compareFieldLists(x: [string, unknown][], y: [string, unknown][]): number {
  const sx = [...x].sort(([a], [b]) => compareStrings(a, b));
  const sy = [...y].sort(([a], [b]) => compareStrings(a, b));
  for (const [i, [kx, vx]] of sx.entries()) {
    const fy = sy[i];
    if (!fy) break;
    const c = compareStrings(kx, fy[0]) || compareValues(vx, fy[1]);
    if (c) return c;
  }
  return sx.length - sy.length;
}

export function comparePE(a: string, b: string): number {
  const ra = RANK[a.charAt(0)] ?? 4;
  const rb = RANK[b.charAt(0)] ?? 4;
  if (ra !== rb) return ra - rb;
  const x = a.slice(2);
  const y = b.slice(2);
  switch (a[0]) {
    case 'f': return compareStrings(x, y);
    case 'i': return Number(x) - Number(y);
    case 'k': return compareFieldLists(Object.entries(JSON.parse(x)), Object.entries(JSON.parse(y)));
    case 'v': return compareValues(JSON.parse(x), JSON.parse(y));
    default: return compareStrings(a, b);
  }
}

export function sortedElements(pes: string[]): string[] {
  if (pes.length < 2) return pes;
  if (pes.every((p) => p.startsWith('f:'))) return pes.sort(compareStrings);
  return pes.sort(comparePE);
}

/**
 * A node's child elements in upstream's order, remembered on the node: sets
 * are built once and then only read (operations make new nodes and share
 * unchanged ones), and the managedFields of stored objects are written again
 * on every update. A node that gained children since is sorted again.
 */
function childOrder(s: FieldSet): string[] {
  const children = s.children!;
  let keys = s.order;
  if (!keys || keys.length !== children.size) s.order = keys = sortedElements([...children.keys()]);
  return keys;
}

// ---- FieldsV1 ----

export type FieldsV1 = { [pe: string]: FieldsV1 };

/** The set as FieldsV1 (`{"f:spec":{"f:replicas":{}}}`), elements in upstream's order. */
export function toFieldsV1(s: FieldSet): FieldsV1 {
  return writeV1(s, {});
}

function writeV1(s: FieldSet, out: FieldsV1): FieldsV1 {
  if (!s.children) return out;
  for (const k of childOrder(s)) {
    const c = s.children.get(k)!;
    out[k] = c.children && c.children.size ? writeV1(c, c.member ? { '.': {} } : {}) : {};
  }
  return out;
}

export class FieldsV1Error extends Error {}

/** Reads FieldsV1; canonical re-spells client-written key and value elements as we write them. */
export function fromFieldsV1(v: unknown, canonical = false): FieldSet {
  const s = new FieldSet();
  readInto(s, v, canonical, true);
  return s;
}

function readInto(n: FieldSet, v: unknown, canonical: boolean, root: boolean): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new FieldsV1Error('FieldsV1 must be an object');
  // for-in: the entries of decoded JSON without an array of pairs (this runs over every manager's set on every write).
  let empty = true;
  for (const k in v as Record<string, unknown>) {
    empty = false;
    const c = (v as Record<string, unknown>)[k];
    if (k === '.') {
      if (!root) n.member = true;
      continue;
    }
    const pe = canonical ? canonicalPE(k) : k;
    if (pe === undefined) throw new FieldsV1Error(`invalid path element ${JSON.stringify(k)}`);
    readInto(n.ensure(pe), c, canonical, false);
  }
  if (empty && !root) n.member = true;
}

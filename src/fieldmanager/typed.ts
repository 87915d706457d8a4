/**
 * Typed walks over JSON objects, as structured-merge-diff's typed package:
 * the set of fields an object sets (ToFieldSet), the fields two objects
 * differ in (Compare), merging an applied configuration into an object
 * (Merge), removing fields (RemoveItems) and validating an applied
 * configuration against the schema.
 *
 * Values are JSON values; `undefined` stands for an absent value (Go's nil
 * value.Value), `null` for a JSON null.
 */
import { FieldSet, fieldPE, keyPE, pathString, valuePE } from './fieldset.js';
import { DEDUCED, type ListType, type TypeNode } from './schema.js';

type Obj = Record<string, unknown>;

export function isMap(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // for-in rather than Object.keys: the same keys for JSON data (no inherited enumerable properties),
  // without an array per object compared (this runs several times over whole objects on every write).
  let n = 0;
  for (const k in a as Obj) {
    if (!Object.hasOwn(b as Obj, k) || !deepEqual((a as Obj)[k], (b as Obj)[k])) return false;
    n++;
  }
  for (const _ in b as Obj) n--;
  return n === 0;
}

/** The type of a field of a struct or map (undeclared struct fields are deduced from their value). */
export function fieldType(t: TypeNode, name: string): TypeNode {
  if (t.t === 'struct') return t.fields.get(name) ?? DEDUCED;
  if (t.t === 'map') return t.values;
  return DEDUCED;
}

function declared(t: TypeNode, name: string): boolean {
  return t.t === 'struct' && t.fields.has(name);
}

/** The type below a path element. */
export function childType(t: TypeNode, pe: string): TypeNode {
  if (pe.startsWith('f:')) return fieldType(t, pe.slice(2));
  if (t.t === 'list') return t.items;
  return DEDUCED;
}

type Shape = 'leaf' | 'map' | 'list';

/** How a node is walked given its type and value(s): as a leaf, a granular map/struct or an associative list. */
function shape(t: TypeNode, a: unknown, b?: unknown): Shape {
  switch (t.t) {
    case 'struct': case 'map':
      if (t.atomic) return 'leaf';
      return (a === undefined || a === null || isMap(a)) && (b === undefined || b === null || isMap(b)) ? 'map' : 'leaf';
    case 'list':
      return (a === undefined || a === null || Array.isArray(a)) && (b === undefined || b === null || Array.isArray(b)) ? 'list' : 'leaf';
    case 'deduced':
      return (isMap(a) || isMap(b)) && (a === undefined || a === null || isMap(a)) && (b === undefined || b === null || isMap(b)) ? 'map' : 'leaf';
    default:
      return 'leaf';
  }
}

export class PathElementError extends Error {}

/** The path element of a list item (upstream's listItemToPathElement). */
export function itemPE(t: ListType, item: unknown): string {
  if (t.rel === 'set') {
    if (isMap(item)) throw new PathElementError("associative list without keys has an element that's a map type");
    if (Array.isArray(item)) throw new PathElementError("associative list without keys has an element that's a list type");
    return valuePE(item);
  }
  if (item === null) throw new PathElementError('associative list with keys may not have a null element');
  if (!isMap(item)) throw new PathElementError('associative list with keys may not have non-map elements');
  const fields: [string, unknown][] = [];
  for (const k of t.keys) {
    if (Object.hasOwn(item, k)) fields.push([k, item[k]]);
    else if (Object.hasOwn(t.defaults, k)) fields.push([k, t.defaults[k]]);
    else throw new PathElementError(`associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
  }
  return keyPE(fields);
}

/** Items of a list indexed by path element, in order; repeated elements keep their first item (and the copies). */
function indexList(t: ListType, list: unknown[] | undefined): { order: string[]; items: Map<string, unknown[]> } {
  const order: string[] = [];
  const items = new Map<string, unknown[]>();
  if (!list) return { order, items };
  for (const item of list) {
    let pe: string;
    try { pe = itemPE(t, item); } catch { continue; }
    const seen = items.get(pe);
    if (seen) { seen.push(item); continue; }
    items.set(pe, [item]);
    order.push(pe);
  }
  return { order, items };
}

// ---- ToFieldSet ----

/** The fields an object sets: leaves, list items and map entries (struct fields only as the way to them). */
export function toFieldSet(t: TypeNode, v: unknown): FieldSet {
  return toSetNode(t, v) ?? new FieldSet();
}

function toSetNode(t: TypeNode, v: unknown): FieldSet | undefined {
  const s = shape(t, v);
  if (s === 'leaf') return leafNode();
  if (s === 'map') {
    if (!isMap(v)) return undefined;
    let out: FieldSet | undefined;
    for (const k in v) {
      let c = toSetNode(fieldType(t, k), v[k]);
      if (!declared(t, k)) { c ??= new FieldSet(); c.member = true; }
      if (c) ((out ??= new FieldSet()).children ??= new Map()).set(fieldPE(k), c);
    }
    return out;
  }
  if (!Array.isArray(v)) return undefined;
  const lt = t as ListType;
  let out: FieldSet | undefined;
  for (const item of v) {
    let pe: string;
    try { pe = itemPE(lt, item); } catch { continue; }
    const c = toSetNode(lt.items, item) ?? new FieldSet();
    c.member = true;
    ((out ??= new FieldSet()).children ??= new Map()).set(pe, c);
  }
  return out;
}

function leafNode(): FieldSet {
  const n = new FieldSet();
  n.member = true;
  return n;
}

/** Every node of a value that is only on one side of a comparison: each is added (or removed). */
function wholeNode(t: TypeNode, v: unknown): FieldSet {
  const n = leafNode();
  const s = shape(t, v);
  if (s === 'map' && isMap(v)) {
    for (const k in v) (n.children ??= new Map()).set(fieldPE(k), wholeNode(fieldType(t, k), v[k]));
  } else if (s === 'list' && Array.isArray(v)) {
    const lt = t as ListType;
    for (const item of v) {
      let pe: string;
      try { pe = itemPE(lt, item); } catch { continue; }
      (n.children ??= new Map()).set(pe, wholeNode(lt.items, item));
    }
  }
  return n;
}

// ---- Compare ----

export interface Comparison { added: FieldSet; removed: FieldSet; modified: FieldSet }

/**
 * The fields rhs adds, removes and modifies relative to lhs. `skip` names
 * top-level fields left out (upstream's ignored fields: status, or spec for
 * the status subresource).
 */
export function compare(t: TypeNode, lhs: unknown, rhs: unknown, skip?: ReadonlySet<string>): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  const path: string[] = [];
  const attach = (root: FieldSet, n: FieldSet) => {
    const leaf = path.at(-1);
    // Only reached below a field, so the path is never empty.
    if (leaf === undefined) return;
    let p = root;
    for (const pe of path.slice(0, -1)) p = p.ensure(pe);
    (p.children ??= new Map()).set(leaf, n);
  };
  const walk = (t: TypeNode, l: unknown, r: unknown, top: boolean): void => {
    if (l === undefined) { if (path.length) attach(c.added, wholeNode(t, r)); return; }
    if (r === undefined) { if (path.length) attach(c.removed, wholeNode(t, l)); return; }
    const s = shape(t, l, r);
    if (s === 'map') {
      const lm = isMap(l) ? l : undefined;
      const rm = isMap(r) ? r : undefined;
      const lEmpty = !lm || isEmptyObject(lm);
      const rEmpty = !rm || isEmptyObject(rm);
      if (!(lEmpty && rEmpty)) {
        if (lm) {
          for (const k in lm) {
            if (top && skip?.has(k)) continue;
            path.push(fieldPE(k));
            walk(fieldType(t, k), lm[k], rm?.[k], false);
            path.pop();
          }
        }
        if (rm) {
          for (const k in rm) {
            if ((lm && Object.hasOwn(lm, k)) || (top && skip?.has(k))) continue;
            path.push(fieldPE(k));
            walk(fieldType(t, k), undefined, rm[k], false);
            path.pop();
          }
        }
        return;
      }
    } else if (s === 'list') {
      const ll = Array.isArray(l) && l.length ? l : undefined;
      const rl = Array.isArray(r) && r.length ? r : undefined;
      if (ll || rl) {
        const lt = t as ListType;
        const li = indexList(lt, ll);
        const ri = indexList(lt, rl);
        for (const pe of li.order) {
          path.push(pe);
          walk(lt.items, li.items.get(pe)![0], ri.items.get(pe)?.[0], false);
          path.pop();
        }
        for (const pe of ri.order) {
          if (li.items.has(pe)) continue;
          path.push(pe);
          walk(lt.items, undefined, ri.items.get(pe)![0], false);
          path.pop();
        }
        return;
      }
    }
    if (path.length && !deepEqual(l, r)) c.modified.insert(path);
  };
  walk(t, lhs, rhs, true);
  return c;
}

function isEmptyObject(o: Obj): boolean {
  for (const _ in o) return false;
  return true;
}

// ---- Merge ----

/** lhs with the applied configuration rhs merged in (rhs wins on leaves). */
export function merge(t: TypeNode, lhs: unknown, rhs: unknown): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const s = shape(t, lhs, rhs);
  if (s === 'map') {
    const lm = isMap(lhs) ? lhs : undefined;
    const rm = isMap(rhs) ? rhs : undefined;
    if ((!lm || isEmptyObject(lm)) && (!rm || isEmptyObject(rm))) return rhs;
    const out: Obj = {};
    if (lm) {
      for (const k in lm) {
        const v = merge(fieldType(t, k), lm[k], rm?.[k]);
        if (v !== undefined) out[k] = v;
      }
    }
    if (rm) {
      for (const k in rm) {
        if (lm && Object.hasOwn(lm, k)) continue;
        const v = merge(fieldType(t, k), undefined, rm[k]);
        if (v !== undefined) out[k] = v;
      }
    }
    return isEmptyObject(out) ? undefined : out;
  }
  if (s === 'list') {
    const ll = Array.isArray(lhs) && lhs.length ? lhs : undefined;
    const rl = Array.isArray(rhs) && rhs.length ? rhs : undefined;
    if (!ll && !rl) return rhs;
    const out = mergeList(t as ListType, ll, rl);
    return out.length ? out : undefined;
  }
  return rhs;
}

/**
 * Upstream's list merge order: items only in lhs keep their place, items in
 * both follow rhs's order, items only in rhs come where rhs puts them.
 */
function mergeList(t: ListType, lhs: unknown[] | undefined, rhs: unknown[] | undefined): unknown[] {
  const L = indexList(t, lhs);
  const R = indexList(t, rhs);
  const out: unknown[] = [];
  const shared = R.order.filter((pe) => L.items.has(pe));
  let si = 0;
  let nextShared: string | undefined = shared[si++];
  const done = new Set<string>();
  const emit = (pe: string, l: unknown[] | undefined, r: unknown[] | undefined) => {
    done.add(pe);
    if (!r) { out.push(...l!); return; }
    const v = merge(t.items, l?.[0], r[0]);
    if (v !== undefined) out.push(v);
  };
  const lLen = L.order.length;
  const rLen = R.order.length;
  for (let lI = 0, rI = 0; lI < lLen || rI < rLen;) {
    // Each side's next element, undefined once that side is used up.
    const lpe = L.order[lI];
    const rpe = R.order[rI];
    if (lpe !== undefined && rpe !== undefined) {
      const pe = lpe;
      if (pe === rpe) {
        emit(pe, L.items.get(pe), R.items.get(pe));
        lI++; rI++;
        nextShared = shared[si++];
        continue;
      }
      if (R.items.has(pe) && nextShared !== undefined && nextShared !== pe) { lI++; continue; }
    }
    if (lpe !== undefined) {
      const pe = lpe;
      if (!R.items.has(pe)) { emit(pe, L.items.get(pe), undefined); lI++; continue; }
      if (done.has(pe)) { lI++; continue; }
    }
    if (rpe !== undefined) {
      const pe = rpe;
      emit(pe, L.items.get(pe), R.items.get(pe));
      rI++;
      if (nextShared !== undefined && nextShared === pe) nextShared = shared[si++];
    }
  }
  return out;
}

// ---- RemoveItems ----

/** v without the members of set (a map or list emptied this way becomes null, as upstream). */
export function removeItems(t: TypeNode, v: unknown, set: FieldSet): unknown {
  if (set.empty()) return v;
  return removeWalk(t, v, set);
}

function removeWalk(t: TypeNode, v: unknown, set: FieldSet): unknown {
  const s = shape(t, v);
  if (s === 'leaf') return isMap(v) || Array.isArray(v) ? undefined : v;
  if (s === 'map') {
    if (!isMap(v) || isEmptyObject(v)) return undefined;
    const out: Obj = {};
    let any = false;
    for (const k in v) {
      const c = set.child(fieldPE(k));
      if (c?.member) continue;
      let val = v[k];
      if (c && !c.empty()) {
        const r = removeWalk(fieldType(t, k), val, c);
        val = r === undefined ? null : r;
      }
      out[k] = val;
      any = true;
    }
    return any ? out : undefined;
  }
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const lt = t as ListType;
  const out: unknown[] = [];
  for (const item of v) {
    let pe: string;
    try { pe = itemPE(lt, item); } catch { out.push(item); continue; }
    const c = set.child(pe);
    if (c?.member) continue;
    if (c && !c.empty()) {
      const r = removeWalk(lt.items, item, c);
      out.push(r === undefined ? null : r);
    } else {
      out.push(item);
    }
  }
  return out.length ? out : undefined;
}

// ---- EnsureNamedFieldsAreMembers ----

/** The set with every struct field that leads to members made a member too. */
export function ensureNamedFieldsAreMembers(s: FieldSet, t: TypeNode): FieldSet {
  if (s.empty()) return s;
  const out = new FieldSet();
  out.member = s.member;
  out.children = new Map();
  for (const [pe, c] of s.children!) {
    if (c.empty()) { out.children.set(pe, c); continue; }
    const n = ensureNamedFieldsAreMembers(c, childType(t, pe));
    if (!n.member && pe.startsWith('f:') && declared(t, pe.slice(2))) n.member = true;
    out.children.set(pe, n);
  }
  return out;
}

// ---- validation of an applied configuration ----

export interface ValidationError { path: string; message: string }

/** Upstream's ValidationErrors text. */
export function formatValidationErrors(errs: ValidationError[]): string {
  const one = (e: ValidationError) => (e.path ? `${e.path}: ${e.message}` : e.message);
  const [only] = errs;
  if (only && errs.length === 1) return one(only);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

/** What the typed conversion of an applied configuration refuses: undeclared fields, bad or repeated list keys. */
export function validate(t: TypeNode, v: unknown): ValidationError[] {
  const errs: ValidationError[] = [];
  const path: string[] = [];
  const walk = (t: TypeNode, v: unknown) => {
    const s = shape(t, v);
    if (s === 'map') {
      if (!isMap(v)) return;
      for (const k in v) {
        path.push(fieldPE(k));
        if (t.t === 'struct' && !t.fields.has(k)) errs.push({ path: pathString(path), message: 'field not declared in schema' });
        else walk(fieldType(t, k), v[k]);
        path.pop();
      }
    } else if (s === 'list' && Array.isArray(v)) {
      const lt = t as ListType;
      const seen = new Set<string>();
      for (let i = 0; i < v.length; i++) {
        let pe: string;
        try {
          pe = itemPE(lt, v[i]);
        } catch (e) {
          errs.push({ path: pathString(path), message: `element ${i}: ${(e as Error).message}` });
          return;
        }
        if (seen.has(pe)) errs.push({ path: pathString(path), message: `duplicate entries for key ${pathString([pe])}` });
        seen.add(pe);
        path.push(pe);
        walk(lt.items, v[i]);
        path.pop();
      }
    }
  };
  walk(t, v);
  return errs;
}

/** Drops null map entries and null list items, as decoding into Go types does. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    let changed = false;
    const out: unknown[] = [];
    for (const x of v) {
      if (x === null) { changed = true; continue; }
      const y = dropNulls(x);
      if (y !== x) changed = true;
      out.push(y);
    }
    return changed ? out : v;
  }
  if (isMap(v)) {
    let out: Obj | undefined;
    for (const k in v) {
      const x = v[k];
      const y = x === null ? undefined : dropNulls(x);
      if (y !== x) {
        out ??= { ...v };
        if (y === undefined) delete out[k]; else out[k] = y;
      }
    }
    return out ?? v;
  }
  return v;
}

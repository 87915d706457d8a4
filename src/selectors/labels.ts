/**
 * Label selectors with upstream's grammar and error messages
 * (k8s.io/apimachinery/pkg/labels/selector.go).
 */
import { isQualifiedName, isValidLabelValue, validateLabelKeyMessage, validateLabelValueMessage } from '../meta/names.js';

export type Operator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | '>' | '<';

export interface Requirement { key: string; op: Operator; values: string[] }

export interface LabelSelector {
  requirements: Requirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  empty(): boolean;
}

type Tok = 'ident' | 'eos' | 'in' | 'notin' | '!' | '!=' | '(' | ')' | ',' | '=' | '==' | '>' | '<' | 'error';

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const SYMBOLS = ['!=', '==', '!', '(', ')', ',', '=', '>', '<'];

function lex(s: string): { tok: Tok; lit: string }[] {
  const out: { tok: Tok; lit: string }[] = [];
  let i = 0;
  while (true) {
    while (i < s.length && /\s/.test(s.charAt(i))) i++;
    if (i >= s.length) { out.push({ tok: 'eos', lit: '' }); return out; }
    if (SPECIAL.has(s.charAt(i))) {
      const sym = SYMBOLS.find((x) => s.startsWith(x, i))!;
      out.push({ tok: sym as Tok, lit: sym });
      i += sym.length;
      continue;
    }
    let j = i;
    while (j < s.length && !/\s/.test(s.charAt(j)) && !SPECIAL.has(s.charAt(j))) j++;
    const lit = s.slice(i, j);
    i = j;
    out.push({ tok: lit === 'in' ? 'in' : lit === 'notin' ? 'notin' : 'ident', lit });
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly toks: { tok: Tok; lit: string }[]) {}

  /** In the Values context, keywords are plain identifiers. */
  private look(values: boolean): { tok: Tok; lit: string } {
    // lex() ends every token list with eos, which the parser never reads past.
    const t = this.toks[this.pos] ?? { tok: 'eos', lit: '' };
    return values && (t.tok === 'in' || t.tok === 'notin') ? { tok: 'ident', lit: t.lit } : t;
  }
  private take(values: boolean): { tok: Tok; lit: string } {
    const t = this.look(values);
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    while (true) {
      const { tok, lit } = this.look(true);
      if (tok === 'ident' || tok === '!') {
        let r: Requirement;
        try { r = this.requirement(); } catch (e) { throw new Error(`unable to parse requirement: ${(e as Error).message}`, { cause: e }); }
        reqs.push(r);
        const t = this.take(true);
        if (t.tok === 'eos') return reqs;
        if (t.tok === ',') {
          const t2 = this.look(true);
          if (t2.tok !== 'ident' && t2.tok !== '!') throw new Error(`found '${t2.lit}', expected: identifier after ','`);
          continue;
        }
        throw new Error(`found '${t.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === 'eos') return reqs;
      throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  private requirement(): Requirement {
    let op: Operator | undefined;
    let t = this.take(true);
    if (t.tok === '!') { op = '!'; t = this.take(true); }
    if (t.tok !== 'ident') throw new Error(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErr = validateLabelKeyMessage(key);
    if (keyErr) throw new Error(keyErr);
    const next = this.look(true).tok;
    if (next === 'eos' || next === ',') {
      return { key, op: op ?? 'exists', values: [] };
    }
    if (op === '!') throw new Error(`found '${this.look(true).lit}', expected: ',' or 'end of string'`);
    const o = this.take(false);
    let values: string[];
    switch (o.tok) {
      case 'in': case 'notin': values = this.setValues(); break;
      case '=': case '==': case '!=': case '>': case '<': values = this.exactValue(); break;
      default: throw new Error(`found '${o.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const operator = o.tok as Operator;
    if ((operator === '>' || operator === '<')) {
      const [only] = values;
      if (only === undefined || values.length !== 1 || !/^-?\d+$/.test(only)) {
        throw new Error(`for 'Gt', 'Lt' operators, the value must be an integer`);
      }
    }
    for (const v of values) {
      const err = validateLabelValueMessage(key, v);
      if (err) throw new Error(err);
    }
    return { key, op: operator, values: [...new Set(values)].sort() };
  }

  private setValues(): string[] {
    const t = this.take(true);
    if (t.tok !== '(') throw new Error(`found '${t.lit}' expected: '('`);
    const t2 = this.look(true);
    if (t2.tok === 'ident' || t2.tok === ',') {
      const s = this.identifiers();
      const c = this.take(true);
      if (c.tok !== ')') throw new Error(`found '${t2.lit}', expected: ')'`);
      return s;
    }
    if (t2.tok === ')') { this.take(true); return ['']; }
    throw new Error(`found '${t2.lit}', expected: ',', ')' or identifier`);
  }

  private identifiers(): string[] {
    const s: string[] = [];
    while (true) {
      const t = this.take(true);
      if (t.tok === 'ident') {
        s.push(t.lit);
        const t2 = this.look(true);
        if (t2.tok === ',') continue;
        if (t2.tok === ')') return s;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (s.length === 0) s.push('');
        const t2 = this.look(true);
        if (t2.tok === ')') { s.push(''); return s; }
        if (t2.tok === ',') { this.take(true); s.push(''); }
      } else {
        throw new Error(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string[] {
    const t = this.look(true);
    if (t.tok === 'eos' || t.tok === ',') return [''];
    const v = this.take(true);
    if (v.tok === 'ident') return [v.lit];
    throw new Error(`found '${v.lit}', expected: identifier`);
  }
}

function matchOne(r: Requirement, labels: Record<string, string>): boolean {
  const v = Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined;
  const has = v !== undefined;
  switch (r.op) {
    case '=': case '==': case 'in': return has && r.values.includes(v);
    case '!=': case 'notin': return !has || !r.values.includes(v);
    case 'exists': return has;
    case '!': return !has;
    case '>': case '<': {
      if (!has || !/^-?\d+$/.test(v)) return false;
      const n = Number(v); const m = Number(r.values[0]);
      return r.op === '>' ? n > m : n < m;
    }
  }
}

function selectorOf(requirements: Requirement[]): LabelSelector {
  return {
    requirements,
    empty: () => requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchOne(r, labels ?? {})),
  };
}

/** Parses a selector string; throws Error with upstream's message when malformed. */
export function parseLabelSelector(s: string): LabelSelector {
  const reqs = new Parser(lex(s)).parse();
  reqs.sort((a, b) => byteOrder(a.key, b.key));
  return selectorOf(reqs);
}

export const everything: LabelSelector = selectorOf([]);

/** A metav1.LabelSelector (matchLabels/matchExpressions) as a matcher. */
export function fromLabelSelector(sel: {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
} | undefined | null): LabelSelector | undefined {
  if (!sel) return undefined;
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, op: '=', values: [v] });
  for (const e of sel.matchExpressions ?? []) {
    const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[e.operator as 'In'];
    if (!op) return undefined;
    reqs.push({ key: e.key, op, values: e.values ?? [] });
  }
  return selectorOf(reqs);
}

/*
 * metav1.LabelSelector as upstream prints it: LabelSelectorAsSelector(sel).String()
 * (requirements sorted by key, invalid selectors unconvertible), used raw by the
 * Deployment printer and the Scale subresource, and through metav1.FormatLabelSelector
 * by the other printers.
 */
interface Req { key: string; op: string; values: string[] }

/** Go's string ordering (by bytes; for the ASCII keys here, by UTF-16 unit). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const OPS: Record<string, string> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** labels.NewRequirement's checks; false where it would return an error. */
function validRequirement(r: Req): boolean {
  if (isQualifiedName(r.key).length) return false;
  switch (r.op) {
    case 'in': case 'notin': if (r.values.length === 0) return false; break;
    case '=': if (r.values.length !== 1) return false; break;
    default: if (r.values.length !== 0) return false;
  }
  return r.values.every((v) => isValidLabelValue(v).length === 0);
}

/** Requirement.String(). */
function renderRequirement(r: Req): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(byteOrder).join(',');
  switch (r.op) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case '=': return `${r.key}=${values}`;
    default: return `${r.key} ${r.op} (${values})`;
  }
}

/** The selector's string; undefined where LabelSelectorAsSelector fails. Nil and empty give "". */
export function selectorString(sel: any): string | undefined {
  if (!sel) return '';
  const reqs: Req[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, op: '=', values: [String(v)] });
  for (const e of sel.matchExpressions ?? []) {
    const op = OPS[e?.operator];
    if (!op) return undefined;
    reqs.push({ key: String(e.key ?? ''), op, values: [...(e.values ?? [])].map(String) });
  }
  if (!reqs.every(validRequirement)) return undefined;
  // Selector.Add sorts by key; Array.prototype.sort is stable, as Go's insertion sort is for these sizes.
  reqs.sort((a, b) => byteOrder(a.key, b.key));
  return reqs.map(renderRequirement).join(',');
}

/** metav1.FormatLabelSelector: "<error>" when unconvertible, "<none>" when empty. */
export function formatLabelSelector(sel: any): string {
  const s = selectorString(sel);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

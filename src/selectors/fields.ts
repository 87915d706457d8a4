/**
 * Field selectors with upstream's grammar and messages
 * (k8s.io/apimachinery/pkg/fields/selector.go).
 */
export interface FieldTerm { field: string; value: string; negate: boolean }

export interface FieldSelector {
  terms: FieldTerm[];
  matches(get: (field: string) => string | undefined): boolean;
}

function splitTerms(s: string): string[] {
  if (s === '') return [];
  const out: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) { escaped = false; continue; }
    if (s[i] === '\\') { escaped = true; continue; }
    if (s[i] === ',') { out.push(s.slice(start, i)); start = i + 1; }
  }
  out.push(s.slice(start));
  return out;
}

function splitTerm(term: string): [string, string, string] | undefined {
  let escaped = false;
  for (let i = 0; i < term.length; i++) {
    if (escaped) { escaped = false; continue; }
    if (term[i] === '\\') { escaped = true; continue; }
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescape(v: string): string {
  if (!v.includes('\\')) return v;
  let out = '';
  for (let i = 0; i < v.length; i++) {
    if (v[i] === '\\') {
      const c = v[++i];
      if (c === undefined || !['\\', ',', '='].includes(c)) {
        throw new Error(`invalid field selector: invalid escape sequence: ${c === undefined ? '\\' : '\\' + c}`);
      }
      out += c;
    } else {
      if (v[i] === ',' || v[i] === '=') throw new Error(`invalid field selector: unescaped character: ${v[i]}`);
      out += v[i];
    }
  }
  return out;
}

/** Parses `a=b,c!=d`; throws Error with upstream's message when malformed. */
export function parseFieldSelector(s: string): FieldSelector {
  const parts = splitTerms(s).sort();
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new Error(`invalid selector: '${s}'; can't understand '${part}'`);
    terms.push({ field: t[0], value: unescape(t[2]), negate: t[1] === '!=' });
  }
  return {
    terms,
    matches: (get) => terms.every((t) => ((get(t.field) ?? '') === t.value) !== t.negate),
  };
}

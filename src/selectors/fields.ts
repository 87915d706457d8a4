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

/** The first operator in the term, wherever it is: the field name takes no escapes. */
function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** UnescapeValue; its UnescapedRune error prints the character as Go's %v prints a rune: its number. */
function unescape(v: string): string {
  if (!/[\\,=]/.test(v)) return v;
  let out = '';
  let inSlash = false;
  for (const c of v) {
    if (inSlash) {
      if (!['\\', ',', '='].includes(c)) throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
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

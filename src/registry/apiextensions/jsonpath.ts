/**
 * The subset of client-go's jsonpath that printer columns and scale paths use:
 * `.a.b`, `[n]`, `['key']`, `[*]` and `[?(@.x=="v")]` filters (== and != on
 * strings, numbers and booleans). FindResults returns every match, in order.
 */

type Step =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; op: '==' | '!=' | 'exists'; value?: unknown };

export class JSONPathError extends Error {}

function parseSteps(text: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const ident = () => {
    const m = /^[^.[\]\s]*/.exec(text.slice(i))![0];
    i += m.length;
    return m;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      i++;
      if (text[i] === '[' || i >= text.length) continue;
      const key = ident();
      if (key === '*') steps.push({ kind: 'all' }); else if (key) steps.push({ kind: 'key', key });
    } else if (c === '[') {
      const end = matchingBracket(text, i);
      const inner = text.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'key', key: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1).trim()));
      else throw new JSONPathError(`unrecognized character in action: ${inner}`);
    } else if (c === '@' || c === '$') {
      i++;
    } else {
      const key = ident();
      if (!key) throw new JSONPathError(`unrecognized character in action: ${c}`);
      steps.push({ kind: 'key', key });
    }
  }
  return steps;
}

function matchingBracket(text: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let j = start; j < text.length; j++) {
    const c = text[j];
    if (quote) { if (c === quote) quote = undefined; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new JSONPathError('unterminated array');
}

function parseFilter(expr: string): Step {
  const m = /^@((?:\.[^\s=!<>]+)*)\s*(==|!=)\s*(.+)$/.exec(expr);
  if (!m) {
    const e = /^@((?:\.[^\s=!<>]+)+)$/.exec(expr);
    if (e) return { kind: 'filter', path: parseSteps(e[1]!), op: 'exists' };
    throw new JSONPathError(`unrecognized filter: ${expr}`);
  }
  const raw = m[3]!.trim();
  let value: unknown;
  if (/^".*"$|^'.*'$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  else throw new JSONPathError(`unrecognized filter value: ${raw}`);
  return { kind: 'filter', path: parseSteps(m[1]!), op: m[2] as '==' | '!=', value };
}

function apply(steps: Step[], values: unknown[]): unknown[] {
  let cur = values;
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (s.kind === 'key') {
        if (v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, s.key)) next.push((v as Record<string, unknown>)[s.key]);
      } else if (s.kind === 'index') {
        if (Array.isArray(v)) {
          const idx = s.index < 0 ? v.length + s.index : s.index;
          if (idx >= 0 && idx < v.length) next.push(v[idx]);
        }
      } else if (s.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === 'object') next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : [];
        for (const item of items) {
          const found = apply(s.path, [item]);
          if (s.op === 'exists' ? found.length > 0
            : s.op === '==' ? found.some((x) => x === s.value) : found.length > 0 && found.every((x) => x !== s.value)) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

/** A parsed path (`{.spec.replicas}` braces optional). */
export class JSONPath {
  private readonly steps: Step[];

  constructor(readonly text: string) {
    const t = text.trim();
    this.steps = parseSteps(t.startsWith('{') && t.endsWith('}') ? t.slice(1, -1) : t);
  }

  find(obj: unknown): unknown[] {
    return apply(this.steps, [obj]);
  }
}

/** How jsonpath's PrintResults writes one value: strings bare, other scalars as Go's %v, the rest as JSON. */
export function printJSONPathValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * busybox `awk` for the one-line programs scripts pipe through it
 * (`wc -l $f | awk '{print $1}'`, `awk -F: '/^root/ {print $1, $NF}'`):
 * rules of an optional pattern (`/regex/`, `NR==n`, `BEGIN`, `END`) and a
 * `{ print ... }` action whose items are fields (`$0`, `$n`, `$NF`), `NF`,
 * `NR` and string literals, concatenated when adjacent and joined by a
 * space (OFS) when separated by commas. Records split on runs of blanks
 * (leading ones ignored), or on `-F`'s separator. A program outside this
 * subset is refused with busybox's parse error rather than misread.
 */
import type { Step } from './types.js';

type Out = (text: string) => Generator<Step, void, void>;

export interface AwkIO {
  stdin(): string;
  readFile(path: string): string | undefined;
  out: Out;
  err: Out;
}

type Item = { kind: 'field'; index: number | 'NF' } | { kind: 'var'; name: 'NF' | 'NR' } | { kind: 'str'; value: string };
type Pattern = { kind: 'all' } | { kind: 'begin' } | { kind: 'end' } | { kind: 're'; re: RegExp } | { kind: 'nr'; n: number };
interface Rule { pattern: Pattern; print: Item[][] | undefined }

class AwkSyntaxError extends Error {}

/** Parses a program of the supported subset; throws AwkSyntaxError otherwise. */
export function parseAwk(src: string): Rule[] {
  let i = 0;
  const ws = () => { while (i < src.length && /[ \t\n;]/.test(src[i]!)) i++; };
  const fail = (): never => { throw new AwkSyntaxError(); };
  const rules: Rule[] = [];
  ws();
  while (i < src.length) {
    let pattern: Pattern = { kind: 'all' };
    if (src.startsWith('BEGIN', i)) { pattern = { kind: 'begin' }; i += 5; }
    else if (src.startsWith('END', i)) { pattern = { kind: 'end' }; i += 3; }
    else if (src[i] === '/') {
      const close = src.indexOf('/', i + 1);
      if (close === -1) fail();
      pattern = { kind: 're', re: new RegExp(src.slice(i + 1, close)) };
      i = close + 1;
    } else {
      const m = /^NR\s*==\s*(\d+)/.exec(src.slice(i));
      if (m) { pattern = { kind: 'nr', n: Number(m[1]) }; i += m[0].length; }
    }
    ws();
    if (src[i] !== '{') {
      if (pattern.kind === 're' || pattern.kind === 'nr') { rules.push({ pattern, print: undefined }); continue; }
      fail();
    }
    i++;
    ws();
    let print: Item[][] = [[{ kind: 'field', index: 0 }]];
    if (src.startsWith('print', i)) {
      i += 5;
      const groups: Item[][] = [[]];
      for (;;) {
        while (src[i] === ' ' || src[i] === '\t') i++;
        const c = src[i];
        if (c === undefined || c === '}' || c === ';' || c === '\n') break;
        if (c === ',') { groups.push([]); i++; continue; }
        const rest = src.slice(i);
        let m: RegExpExecArray | null;
        if ((m = /^\$(\d+)/.exec(rest))) groups[groups.length - 1]!.push({ kind: 'field', index: Number(m[1]) });
        else if ((m = /^\$NF\b/.exec(rest))) groups[groups.length - 1]!.push({ kind: 'field', index: 'NF' });
        else if ((m = /^(NF|NR)\b/.exec(rest))) groups[groups.length - 1]!.push({ kind: 'var', name: m[1] as 'NF' | 'NR' });
        else if ((m = /^"((?:[^"\\]|\\.)*)"/.exec(rest))) groups[groups.length - 1]!.push({ kind: 'str', value: m[1]!.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\(.)/g, '$1') });
        else fail();
        i += m![0].length;
      }
      if (groups.some((g) => g.length === 0)) {
        if (groups.length > 1 || groups[0]!.length > 0) fail();
      } else print = groups;
    }
    ws();
    if (src[i] !== '}') fail();
    i++;
    rules.push({ pattern, print });
    ws();
  }
  return rules;
}

function splitRecord(line: string, fs: string | undefined): string[] {
  if (fs === undefined || fs === ' ') return line.split(/[ \t]+/).filter((f) => f !== '');
  if (fs.length === 1 && fs !== '\\') return line.split(fs);
  return line.split(new RegExp(fs));
}

export function* busyboxAwk(args: readonly string[], io: AwkIO): Generator<Step, number, void> {
  let fs: string | undefined;
  const rest: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '-F') fs = args[++k] ?? '';
    else if (a.startsWith('-F')) fs = a.slice(2);
    else rest.push(a);
  }
  const [program, ...files] = rest;
  if (program === undefined) { yield* io.err('Usage: awk [OPTIONS] [AWK_PROGRAM] [FILE]...\n'); return 1; }
  let rules: Rule[];
  try { rules = parseAwk(program); } catch (e) {
    if (!(e instanceof AwkSyntaxError)) throw e;
    yield* io.err('awk: cmd. line:1: Unexpected token\n');
    return 1;
  }
  let text = '';
  if (!files.length) text = io.stdin();
  for (const f of files) {
    const t = f === '-' ? io.stdin() : io.readFile(f);
    if (t === undefined) { yield* io.err(`awk: ${f}: No such file or directory\n`); return 2; }
    text += t;
  }
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  let out = '';
  const run = (r: Rule, fields: string[], record: string, nr: number) => {
    if (!r.print) { out += record + '\n'; return; }
    const value = (it: Item): string => {
      if (it.kind === 'str') return it.value;
      if (it.kind === 'var') return String(it.name === 'NF' ? fields.length : nr);
      const idx = it.index === 'NF' ? fields.length : it.index;
      return idx === 0 ? record : fields[idx - 1] ?? '';
    };
    out += r.print.map((g) => g.map(value).join('')).join(' ') + '\n';
  };
  for (const r of rules) if (r.pattern.kind === 'begin') run(r, [], '', 0);
  lines.forEach((record, n) => {
    const fields = splitRecord(record, fs);
    for (const r of rules) {
      const p = r.pattern;
      if (p.kind === 'all' || (p.kind === 're' && p.re.test(record)) || (p.kind === 'nr' && p.n === n + 1)) run(r, fields, record, n + 1);
    }
  });
  // END sees the last record, as busybox and gawk keep $0.
  const last = lines[lines.length - 1] ?? '';
  for (const r of rules) if (r.pattern.kind === 'end') run(r, splitRecord(last, fs), last, lines.length);
  if (out) yield* io.out(out);
  return 0;
}

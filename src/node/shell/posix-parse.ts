/**
 * Parser for the POSIX shell language as container command lines use it:
 * lists (`;`, newline, `&`), `&&`/`||`, pipelines with `!`, simple commands
 * with assignments and redirections, `while`/`until`/`for`/`if`/`case`-free
 * compound commands, `{ ...; }` and `( ... )`. Words keep their raw text;
 * quoting and `$` expansion happen at run time (posix.ts).
 */
export type Redirect = { fd: number; op: '>' | '>>' | '<' | '>&'; target: string };

export type Node =
  | { type: 'simple'; assigns: string[]; words: string[]; redirects: Redirect[] }
  | { type: 'pipeline'; negate: boolean; commands: Node[] }
  | { type: 'andor'; first: Node; rest: { op: '&&' | '||'; node: Node }[] }
  | { type: 'list'; items: Node[] }
  | { type: 'while'; until: boolean; cond: Node; body: Node; redirects: Redirect[] }
  | { type: 'for'; name: string; items: string[] | undefined; body: Node; redirects: Redirect[] }
  | { type: 'if'; branches: { cond: Node; body: Node }[]; otherwise?: Node; redirects: Redirect[] }
  | { type: 'group'; body: Node; subshell: boolean; redirects: Redirect[] };

type Token = { t: 'word'; v: string } | { t: 'op'; v: string } | { t: 'io'; fd: number; v: string };

export class ParseError extends Error {
  constructor(readonly token: string) { super(`syntax error: unexpected ${token === '' ? 'end of file' : `"${token}"`}`); }
}

const OPS = ['&&', '||', ';;', '>>', '>&', '<<', ';', '&', '|', '(', ')', '>', '<', '\n'];

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '\\' && src[i + 1] === '\n') { i += 2; continue; }
    if (c === '#') { while (i < src.length && src[i] !== '\n') i++; continue; }
    const io = /^(\d)(>>|>&|>|<)/.exec(src.slice(i, i + 3));
    const [ioText, ioFd, ioOp] = io ?? [];
    if (ioText !== undefined && ioOp !== undefined) { out.push({ t: 'io', fd: Number(ioFd), v: ioOp }); i += ioText.length; continue; }
    if (src.startsWith('&>', i)) { out.push({ t: 'io', fd: -1, v: '>' }); i += 2; continue; }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) { out.push({ t: 'op', v: op }); i += op.length; continue; }
    // A word: up to unquoted blank or operator, quotes and $(...) kept raw.
    let w = '';
    while (i < src.length) {
      const ch = src.charAt(i);
      if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n' || ';&|()<>'.includes(ch)) break;
      if (ch === '\\') { w += src.slice(i, i + 2); i += 2; continue; }
      if (ch === "'") {
        const end = src.indexOf("'", i + 1);
        if (end === -1) throw new ParseError('');
        w += src.slice(i, end + 1); i = end + 1; continue;
      }
      if (ch === '"') {
        let j = i + 1;
        while (j < src.length && src[j] !== '"') { if (src[j] === '\\') j++; else if (src[j] === '$' && src[j + 1] === '(') j = matchParen(src, j + 1); j++; }
        if (j >= src.length) throw new ParseError('');
        w += src.slice(i, j + 1); i = j + 1; continue;
      }
      if (ch === '$' && src[i + 1] === '(') { const end = matchParen(src, i + 1); w += src.slice(i, end + 1); i = end + 1; continue; }
      if (ch === '$' && src[i + 1] === '{') { const end = src.indexOf('}', i); if (end === -1) throw new ParseError(''); w += src.slice(i, end + 1); i = end + 1; continue; }
      if (ch === '`') { const end = src.indexOf('`', i + 1); if (end === -1) throw new ParseError(''); w += src.slice(i, end + 1); i = end + 1; continue; }
      w += ch; i++;
    }
    out.push({ t: 'word', v: w });
  }
  return out;
}

/** Index of the `)` closing the `(` at `open`. */
function matchParen(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    const ch = src[j];
    if (ch === '\\') { j++; continue; }
    if (ch === "'") { j = src.indexOf("'", j + 1); if (j === -1) break; continue; }
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return j;
  }
  throw new ParseError('');
}

const RESERVED_END = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', '}']);

export function parse(src: string): Node {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const isWord = (v?: string) => peek()?.t === 'word' && (v === undefined || peek()!.v === v);
  const isOp = (v: string) => peek()?.t === 'op' && peek()!.v === v;
  const tokText = (t?: Token) => (t ? (t.t === 'io' ? `${t.fd}${t.v}` : t.v === '\n' ? 'newline' : t.v) : '');
  const expectWord = (v: string) => { if (!isWord(v)) throw new ParseError(tokText(peek())); p++; };
  const skipNewlines = () => { while (isOp('\n')) p++; };

  function list(stopWords: Set<string>, stopOps: Set<string> = new Set()): Node {
    const items: Node[] = [];
    for (;;) {
      while (isOp('\n') || isOp(';')) { if (isOp(';') && items.length === 0) throw new ParseError(';'); p++; }
      const t = peek();
      if (!t) break;
      if (t.t === 'word' && stopWords.has(t.v)) break;
      if (t.t === 'op' && stopOps.has(t.v)) break;
      items.push(andOr());
      if (isOp(';') || isOp('&') || isOp('\n')) { p++; continue; }
      break;
    }
    return { type: 'list', items };
  }

  function andOr(): Node {
    const first = pipeline();
    const rest: { op: '&&' | '||'; node: Node }[] = [];
    while (isOp('&&') || isOp('||')) {
      const op = peek()!.v as '&&' | '||'; p++; skipNewlines();
      rest.push({ op, node: pipeline() });
    }
    return rest.length ? { type: 'andor', first, rest } : first;
  }

  function pipeline(): Node {
    let negate = false;
    if (isWord('!')) { negate = true; p++; }
    const first = command();
    const commands = [first];
    while (isOp('|')) { p++; skipNewlines(); commands.push(command()); }
    return commands.length > 1 || negate ? { type: 'pipeline', negate, commands } : first;
  }

  function redirects(): Redirect[] {
    const rs: Redirect[] = [];
    for (;;) {
      const t = peek();
      if (t?.t === 'io' || (t?.t === 'op' && ['>', '>>', '<', '>&'].includes(t.v))) {
        p++;
        const target = peek();
        if (target?.t !== 'word') throw new ParseError(tokText(target));
        p++;
        const fd = t.t === 'io' ? t.fd : t.v === '<' ? 0 : 1;
        // `&>file` is `>file 2>&1`.
        if (fd === -1) rs.push({ fd: 1, op: t.v as Redirect['op'], target: target.v }, { fd: 2, op: '>&', target: '1' });
        else rs.push({ fd, op: t.v as Redirect['op'], target: target.v });
      } else return rs;
    }
  }

  function command(): Node {
    const t = peek();
    if (!t) throw new ParseError('');
    if (t.t === 'word') {
      switch (t.v) {
        case 'while': case 'until': {
          p++;
          const cond = list(new Set(['do']));
          expectWord('do');
          const body = list(new Set(['done']));
          expectWord('done');
          return { type: 'while', until: t.v === 'until', cond, body, redirects: redirects() };
        }
        case 'for': {
          p++;
          if (!isWord()) throw new ParseError(tokText(peek()));
          const name = peek()!.v; p++;
          let items: string[] | undefined;
          skipNewlines();
          if (isWord('in')) {
            p++; items = [];
            while (isWord()) { items.push(peek()!.v); p++; }
            if (isOp(';') || isOp('\n')) p++;
          } else if (isOp(';')) p++;
          skipNewlines();
          expectWord('do');
          const body = list(new Set(['done']));
          expectWord('done');
          return { type: 'for', name, items, body, redirects: redirects() };
        }
        case 'if': {
          p++;
          const branches: { cond: Node; body: Node }[] = [];
          let otherwise: Node | undefined;
          const cond = list(new Set(['then']));
          expectWord('then');
          branches.push({ cond, body: list(new Set(['elif', 'else', 'fi'])) });
          for (;;) {
            if (isWord('elif')) {
              p++;
              const c = list(new Set(['then']));
              expectWord('then');
              branches.push({ cond: c, body: list(new Set(['elif', 'else', 'fi'])) });
            } else if (isWord('else')) {
              p++; otherwise = list(new Set(['fi']));
            } else break;
          }
          expectWord('fi');
          return { type: 'if', branches, otherwise, redirects: redirects() };
        }
        case '{': {
          p++;
          const body = list(new Set(['}']));
          expectWord('}');
          return { type: 'group', body, subshell: false, redirects: redirects() };
        }
      }
      if (RESERVED_END.has(t.v)) throw new ParseError(t.v);
    }
    if (t.t === 'op' && t.v === '(') {
      p++;
      const body = list(new Set(), new Set([')']));
      if (!isOp(')')) throw new ParseError(tokText(peek()));
      p++;
      return { type: 'group', body, subshell: true, redirects: redirects() };
    }
    const assigns: string[] = [];
    const words: string[] = [];
    const reds: Redirect[] = [];
    for (;;) {
      reds.push(...redirects());
      const w = peek();
      if (w?.t !== 'word') break;
      if (!words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.v)) assigns.push(w.v);
      else words.push(w.v);
      p++;
    }
    if (!assigns.length && !words.length && !reds.length) throw new ParseError(tokText(peek()));
    return { type: 'simple', assigns, words, redirects: reds };
  }

  const root = list(new Set());
  if (p < toks.length) throw new ParseError(tokText(toks[p]));
  return root;
}

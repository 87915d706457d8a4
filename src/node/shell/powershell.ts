/**
 * Windows PowerShell 5.1 (`powershell`) and PowerShell 7 (`pwsh`) as
 * container command lines use them: `-Command` scripts of statements
 * separated by `;` or newlines, `while`/`for`/`if` blocks, variables and
 * `$env:` variables, double-quoted interpolation, and the cmdlets containers
 * call (Write-Host, Write-Output, Start-Sleep, Get-ChildItem Env:,
 * Get-Content, hostname, exit). `-Command` exits 1 when the last statement
 * failed, N on `exit N`, 0 otherwise. An unknown command writes the
 * CommandNotFoundException error record: 5.1's NormalView with its
 * position block, 7's ConciseView.
 */
import { CmdShell, cmdScript } from './cmd.js';
import type { ShellContext, Step } from './types.js';

type Gen = Generator<Step, number, void>;
class PsExit { constructor(readonly code: number) {} }
type Value = string | number | boolean | null;

/** One statement of the script with its column (1-based) on its line and that line's text. */
interface Stmt { text: string; col: number; line: string; lineNo: number }

/** Splits at `;`/newline outside quotes, parentheses and braces. */
function splitStatements(src: string, baseCol = 1, lineText?: string, lineNo = 1): Stmt[] {
  const out: Stmt[] = [];
  let depth = 0; let q: string | null = null; let start = 0;
  const lines = src.split('\n');
  let ln = 0; let lineStart = 0;
  const push = (end: number) => {
    const raw = src.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    if (raw.trim()) {
      const colInLine = start + lead - lineStart;
      out.push({ text: raw.trim(), col: (ln === 0 ? baseCol : 1) + colInLine, line: lineText ?? lines[ln].replace(/\r$/, ''), lineNo: lineNo + ln });
    }
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (q) { if (c === '`') { i++; continue; } if (c === q) q = null; continue; }
    if (c === '"' || c === "'") { q = c; continue; }
    if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') depth--;
    else if (depth === 0 && (c === ';' || c === '\n')) {
      push(i); start = i + 1;
      if (c === '\n') { ln++; lineStart = i + 1; }
    } else if (c === '\n') { ln++; lineStart = i + 1; }
  }
  push(src.length);
  return out;
}

/** Reads a balanced `(...)` or `{...}` starting at `i`; returns inner text and the index after it. */
function balanced(s: string, i: number): { inner: string; end: number } {
  const open = s[i]; const close = open === '(' ? ')' : '}';
  let depth = 0; let q: string | null = null;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (q) { if (c === '`') { j++; continue; } if (c === q) q = null; continue; }
    if (c === '"' || c === "'") { q = c; continue; }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return { inner: s.slice(i + 1, j), end: j + 1 };
  }
  return { inner: s.slice(i + 1), end: s.length };
}

/** Command-mode argument tokens: quoted strings, `(...)`, `$(...)`, bare words. */
function argTokens(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (i >= s.length) break;
    let j = i; let tok = '';
    while (j < s.length && s[j] !== ' ' && s[j] !== '\t') {
      const c = s[j];
      if (c === '"' || c === "'") {
        let k = j + 1;
        while (k < s.length && !(s[k] === c && s[k + 1] !== c)) { if (s[k] === '`' || (s[k] === c && s[k + 1] === c)) k++; k++; }
        tok += s.slice(j, k + 1); j = k + 1; continue;
      }
      if (c === '(' || (c === '$' && s[j + 1] === '(')) { const st = c === '$' ? j + 1 : j; const b = balanced(s, st); tok += s.slice(j, b.end); j = b.end; continue; }
      if (c === '{') { const b = balanced(s, j); tok += s.slice(j, b.end); j = b.end; continue; }
      tok += c; j++;
    }
    out.push(tok); i = j;
  }
  return out;
}

const STATUS_LINE_PAD = 24;

export class PowerShell {
  readonly vars = new Map<string, Value>();
  readonly env = new Map<string, string>();
  private readonly envNames = new Map<string, string>();
  /** $? of the last statement. */
  ok = true;
  cwd: string;

  constructor(readonly ctx: ShellContext, readonly version: 5 | 7 = 5) {
    for (const [k, v] of Object.entries(ctx.env)) this.setEnv(k, v);
    if (!this.env.has('COMPUTERNAME')) this.setEnv('COMPUTERNAME', ctx.hostname.toUpperCase());
    this.cwd = ctx.cwd ?? 'C:\\';
    this.vars.set('true', true); this.vars.set('false', false); this.vars.set('null', null);
  }

  private setEnv(k: string, v: string): void {
    if (v === '') { this.env.delete(k.toUpperCase()); return; }
    this.env.set(k.toUpperCase(), v); if (!this.envNames.has(k.toUpperCase())) this.envNames.set(k.toUpperCase(), k);
  }
  envList(): [string, string][] {
    return [...this.env].map(([k, v]) => [this.envNames.get(k) ?? k, v] as [string, string])
      .sort(([a], [b]) => (a.toUpperCase() < b.toUpperCase() ? -1 : 1));
  }

  /** Runs a -Command script; returns the process exit code (exit N, else 1 when the last statement failed). */
  *run(src: string): Gen {
    try { yield* this.block(splitStatements(src)); } catch (e) { if (e instanceof PsExit) return e.code; throw e; }
    return this.ok ? 0 : 1;
  }

  *program(src: string): Generator<Step, void, void> {
    yield { kind: 'exit', code: yield* this.run(src) };
  }

  private *block(stmts: Stmt[]): Generator<Step, void, void> {
    for (const s of stmts) yield* this.statement(s);
  }

  private sub(text: string, parent: Stmt, offset: number): Stmt[] {
    return splitStatements(text, parent.col + offset, parent.line, parent.lineNo);
  }

  private *statement(st: Stmt): Generator<Step, void, void> {
    const t = st.text;
    const kw = /^(while|if|for|foreach|try|do)\b\s*/i.exec(t);
    if (kw) { yield* this.compound(kw[1].toLowerCase(), st); return; }
    const assign = /^\$(env:)?([A-Za-z_][\w]*)\s*(=|\+=|-=)\s*(.*)$/is.exec(t);
    if (assign && !/^=/.test(assign[4])) {
      const [, isEnv, name, op, rhs] = assign;
      const cur = isEnv ? this.env.get(name.toUpperCase()) ?? '' : this.vars.get(name.toLowerCase()) ?? 0;
      let v = this.expr(rhs);
      if (op === '+=') v = typeof cur === 'number' && typeof v === 'number' ? cur + v : `${cur ?? ''}${v ?? ''}`;
      if (op === '-=') v = Number(cur) - Number(v);
      if (isEnv) this.setEnv(name, v === null ? '' : String(v)); else this.vars.set(name.toLowerCase(), v);
      this.ok = true; return;
    }
    const inc = /^\$([A-Za-z_]\w*)(\+\+|--)$/.exec(t);
    if (inc) { const n = inc[1].toLowerCase(); this.vars.set(n, Number(this.vars.get(n) ?? 0) + (inc[2] === '++' ? 1 : -1)); this.ok = true; return; }
    // Pipelines: only the sinks containers use are modelled.
    const pipe = splitPipe(t);
    const sinkName = pipe.length > 1 ? pipe[pipe.length - 1].trim().split(/\s+/)[0].toLowerCase() : '';
    const head = pipe[0];
    if (/^[$"'(\d\[-]/.test(head) && !/^-\w/.test(head)) {
      const v = this.expr(head);
      if (sinkName !== 'out-null' && v !== null) yield* this.output(format(v));
      this.ok = true; return;
    }
    const buf: Step[] = [];
    const gen = this.command(head, st);
    let r = gen.next();
    while (!r.done) {
      if (sinkName === 'out-null' && r.value.kind === 'stdout') { r = gen.next(); continue; }
      yield r.value; r = gen.next();
    }
    void buf;
    this.ok = r.value;
  }

  private *compound(kw: string, st: Stmt): Generator<Step, void, void> {
    const t = st.text;
    let i = kw.length; while (t[i] === ' ') i++;
    switch (kw) {
      case 'while': {
        const cond = balanced(t, i);
        let j = cond.end; while (t[j] === ' ' || t[j] === '\n' || t[j] === '\r') j++;
        const body = balanced(t, j);
        const stmts = this.sub(body.inner, st, j + 1);
        for (let n = 0; truthy(this.expr(cond.inner)); n++) {
          let slept = false;
          for (const s of stmts) { const g = this.statement(s); for (let r = g.next(); !r.done; r = g.next()) { if (r.value.kind === 'sleep') slept = true; yield r.value; } }
          if (!slept && n >= 100) yield { kind: 'sleep', ms: 10 };
        }
        this.ok = true; return;
      }
      case 'for': {
        const head = balanced(t, i);
        const [init, cond, step] = head.inner.split(';');
        let j = head.end; while (t[j] === ' ') j++;
        const body = balanced(t, j);
        if (init.trim()) yield* this.statement({ ...st, text: init.trim() });
        while (!cond.trim() || truthy(this.expr(cond))) {
          yield* this.block(this.sub(body.inner, st, j + 1));
          if (step.trim()) yield* this.statement({ ...st, text: step.trim() });
        }
        return;
      }
      case 'foreach': {
        const head = balanced(t, i);
        const m = /^\s*\$(\w+)\s+in\s+(.*)$/is.exec(head.inner);
        let j = head.end; while (t[j] === ' ') j++;
        const body = balanced(t, j);
        if (!m) return;
        for (const item of m[2].split(',').map((x) => this.expr(x.trim()))) {
          this.vars.set(m[1].toLowerCase(), item);
          yield* this.block(this.sub(body.inner, st, j + 1));
        }
        return;
      }
      case 'if': {
        let rest = t.slice(i);
        let off = i;
        for (;;) {
          const cond = balanced(rest, 0);
          let j = cond.end; while (rest[j] === ' ') j++;
          const body = balanced(rest, j);
          if (truthy(this.expr(cond.inner))) { yield* this.block(this.sub(body.inner, st, off + j + 1)); return; }
          let k = body.end; while (rest[k] === ' ' || rest[k] === '\n' || rest[k] === '\r') k++;
          const tail = rest.slice(k);
          const el = /^elseif\s*/i.exec(tail);
          if (el) { off += k + el[0].length; rest = tail.slice(el[0].length); continue; }
          const e2 = /^else\s*/i.exec(tail);
          if (e2) { const b = balanced(tail, e2[0].length); yield* this.block(this.sub(b.inner, st, off + k + e2[0].length + 1)); }
          return;
        }
      }
      case 'try': {
        const body = balanced(t, i);
        yield* this.block(this.sub(body.inner, st, i + 1));
        return;
      }
      case 'do': {
        const body = balanced(t, i);
        let j = body.end; while (t[j] === ' ') j++;
        const m = /^(while|until)\s*/i.exec(t.slice(j));
        const cond = balanced(t, j + (m?.[0].length ?? 0));
        do { yield* this.block(this.sub(body.inner, st, i + 1)); } while (m && truthy(this.expr(cond.inner)) === (m[1].toLowerCase() === 'while'));
        return;
      }
    }
  }

  *output(text: string): Generator<Step, void, void> { yield { kind: 'stdout', text: text + '\r\n' }; }

  /** A non-terminating error record on stderr. */
  *errorRecord(st: Stmt, target: string, message: string, category: string, exception: string, fqid: string, cmdlet: string, at = st.col, len = target.length): Generator<Step, void, void> {
    if (this.version === 7) {
      yield { kind: 'stderr', text: `${cmdlet || target}: ${message}\r\n` };
      return;
    }
    yield {
      kind: 'stderr',
      text: `${cmdlet || target} : ${message}\r\nAt line:${st.lineNo} char:${at}\r\n+ ${st.line}\r\n+ ${' '.repeat(at - 1)}${'~'.repeat(Math.max(1, len))}\r\n` +
        `    + CategoryInfo          : ${category}: (${target}:String) [${cmdlet}], ${exception}\r\n` +
        `    + FullyQualifiedErrorId : ${fqid}\r\n \r\n`,
    };
  }

  private *command(text: string, st: Stmt): Generator<Step, boolean, void> {
    const [rawName, ...rawArgs] = argTokens(text);
    const name = rawName.replace(/^["']|["']$/g, '');
    const lower = name.toLowerCase().replace(/\.exe$/, '').replace(/^.*\\/, '');
    const named = (names: string[]): string | undefined => {
      const i = rawArgs.findIndex((a) => names.some((n) => a.toLowerCase() === `-${n}` || a.toLowerCase().startsWith(`-${n}:`)));
      if (i === -1) return undefined;
      const a = rawArgs[i];
      const colon = a.indexOf(':');
      if (colon !== -1 && colon < a.length - 1 && a.startsWith('-')) return String(this.expr(a.slice(colon + 1)) ?? '');
      return String(this.expr(rawArgs[i + 1] ?? '') ?? '');
    };
    const positional = (skip: string[]): string[] => {
      const out: string[] = [];
      for (let i = 0; i < rawArgs.length; i++) {
        const a = rawArgs[i];
        if (/^-[A-Za-z]/.test(a)) { if (!skip.includes(a.toLowerCase()) && !a.includes(':')) i++; continue; }
        out.push(this.argValue(a));
      }
      return out;
    };
    switch (lower) {
      case 'write-host': {
        const noNl = rawArgs.some((a) => a.toLowerCase() === '-nonewline');
        const parts = positional(['-nonewline']).filter((_, i, a) => a.length > 0 && i >= 0);
        const obj = named(['object']);
        const text2 = (obj !== undefined ? [obj, ...parts] : parts).join(' ');
        yield { kind: 'stdout', text: text2 + (noNl ? '' : '\r\n') };
        return true;
      }
      case 'write-output': case 'echo': case 'write': {
        for (const p of positional(['-noenumerate'])) yield* this.output(p);
        return true;
      }
      case 'write-error': {
        const msg = named(['message']) ?? positional([]).join(' ');
        yield* this.errorRecord(st, msg, msg, 'NotSpecified', 'WriteErrorException', 'Microsoft.PowerShell.Commands.WriteErrorException', '', st.col, text.length);
        return false;
      }
      case 'start-sleep': case 'sleep': {
        const ms = named(['milliseconds', 'm']);
        const s = named(['seconds', 's']) ?? positional([])[0];
        const total = ms !== undefined ? Number(ms) : Number(s ?? 0) * 1000;
        if (!Number.isFinite(total)) return false;
        yield { kind: 'sleep', ms: Math.round(total) };
        return true;
      }
      case 'exit': throw new PsExit(rawArgs.length ? Number(this.expr(rawArgs[0])) | 0 : this.ok ? 0 : 1);
      case 'hostname': yield* this.output(this.ctx.hostname); return true;
      case 'whoami': yield* this.output('user manager\\containeradministrator'); return true;
      case 'get-date': yield* this.output(psDate((this.ctx.now ?? (() => new Date()))())); return true;
      case 'get-location': case 'pwd': yield* this.output(`\r\nPath\r\n----\r\n${this.cwd}\r\n`); return true;
      case 'set-location': case 'cd': case 'chdir': {
        const p = positional([])[0] ?? named(['path']);
        const abs = this.ctx.fs.resolve(p ?? this.cwd, this.cwd);
        if (this.ctx.fs.stat(abs)?.type !== 'dir') {
          yield* this.errorRecord(st, abs, `Cannot find path '${abs}' because it does not exist.`, 'ObjectNotFound', 'ItemNotFoundException', 'PathNotFound,Microsoft.PowerShell.Commands.SetLocationCommand', 'Set-Location', st.col, text.length);
          return false;
        }
        this.cwd = abs; return true;
      }
      case 'get-content': case 'gc': case 'cat': case 'type': {
        const p = named(['path', 'literalpath']) ?? positional([])[0] ?? '';
        const abs = this.ctx.fs.resolve(p, this.cwd);
        const e = this.ctx.fs.stat(abs);
        if (e?.type !== 'file') {
          yield* this.errorRecord(st, abs, `Cannot find path '${abs}' because it does not exist.`, 'ObjectNotFound', 'ItemNotFoundException',
            'PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand', 'Get-Content', st.col, text.length);
          return false;
        }
        if (e.content) yield* this.output(e.content.replace(/\r?\n$/, '').split(/\r?\n/).join('\r\n'));
        return true;
      }
      case 'get-childitem': case 'gci': case 'ls': case 'dir': {
        const p = named(['path', 'literalpath']) ?? positional(['-recurse', '-force', '-name'])[0] ?? '.';
        if (/^env:\\?$/i.test(p)) { yield { kind: 'stdout', text: envTable(this.envList()) }; return true; }
        const m = /^env:\\?(.+)$/i.exec(p);
        if (m) {
          const hit = this.envList().filter(([k]) => k.toUpperCase() === m[1].toUpperCase());
          if (!hit.length) {
            yield* this.errorRecord(st, m[1], `Cannot find path '${m[1]}' because it does not exist.`, 'ObjectNotFound', 'ItemNotFoundException',
              'PathNotFound,Microsoft.PowerShell.Commands.GetChildItemCommand', 'Get-ChildItem', st.col, text.length);
            return false;
          }
          yield { kind: 'stdout', text: envTable(hit) }; return true;
        }
        const abs = this.ctx.fs.resolve(p, this.cwd);
        const e = this.ctx.fs.stat(abs);
        if (!e) {
          yield* this.errorRecord(st, abs, `Cannot find path '${abs}' because it does not exist.`, 'ObjectNotFound', 'ItemNotFoundException',
            'PathNotFound,Microsoft.PowerShell.Commands.GetChildItemCommand', 'Get-ChildItem', st.col, text.length);
          return false;
        }
        const names = e.type === 'dir' ? this.ctx.fs.list(abs) : [abs.slice(abs.lastIndexOf('\\') + 1)];
        const dir = e.type === 'dir' ? abs : abs.slice(0, abs.lastIndexOf('\\'));
        if (rawArgs.some((a) => a.toLowerCase() === '-name')) { for (const n of names) yield* this.output(n); return true; }
        if (!names.length) return true;
        const now = (this.ctx.now ?? (() => new Date()))();
        const rows = names.map((n) => {
          const ent = this.ctx.fs.stat(`${dir.replace(/\\$/, '')}\\${n}`);
          const len = ent?.type === 'file' ? String(Buffer.byteLength(ent.content)) : '';
          return `${(ent?.type === 'dir' ? 'd-----' : '-a----').padEnd(STATUS_LINE_PAD - 3)}${psShortDate(now).padStart(20)}${len.padStart(15)} ${n}`;
        });
        yield { kind: 'stdout', text: `\r\n\r\n    Directory: ${dir}\r\n\r\n\r\nMode                 LastWriteTime         Length Name\r\n----                 -------------         ------ ----\r\n${rows.join('\r\n')}\r\n\r\n\r\n` };
        return true;
      }
      case 'test-path': {
        const p = named(['path', 'literalpath']) ?? positional([])[0] ?? '';
        yield* this.output(this.ctx.fs.stat(this.ctx.fs.resolve(p, this.cwd)) ? 'True' : 'False');
        return true;
      }
      case 'new-item': case 'set-content': case 'out-file': case 'add-content': {
        const p = named(['path', 'filepath']) ?? positional(['-force'])[0] ?? '';
        const v = named(['value']) ?? '';
        const abs = this.ctx.fs.resolve(p, this.cwd);
        const dirType = /directory/i.test(named(['itemtype']) ?? '');
        const r = dirType ? this.ctx.fs.mkdir(abs) : this.ctx.fs.write(abs, v ? v + '\r\n' : '', lower === 'add-content');
        return r === 'ok' || r === 'exists';
      }
      case 'remove-item': case 'rm': case 'del': {
        const p = named(['path']) ?? positional(['-force', '-recurse'])[0] ?? '';
        return this.ctx.fs.remove(this.ctx.fs.resolve(p, this.cwd)) === 'ok';
      }
      case 'cmd': {
        const sub = cmdScript(rawArgs.map((a) => this.argValue(a)));
        if (sub === undefined) return true;
        const child = new CmdShell({ ...this.ctx, env: Object.fromEntries(this.envList()), cwd: this.cwd });
        const g = child.program(sub);
        let code = 0;
        for (let r = g.next(); !r.done; r = g.next()) { if (r.value.kind === 'exit') code = r.value.code; else yield r.value; }
        this.vars.set('lastexitcode', code);
        return code === 0;
      }
      case 'powershell': case 'pwsh': {
        const src = psScript(rawArgs.map((a) => this.argValue(a)));
        if (src === undefined) return true;
        const child = new PowerShell({ ...this.ctx, env: Object.fromEntries(this.envList()), cwd: this.cwd }, lower === 'pwsh' ? 7 : 5);
        const code = yield* child.run(src);
        this.vars.set('lastexitcode', code);
        return code === 0;
      }
      case 'ping': case 'ping.exe': case 'timeout': case 'hostname.exe': case 'ipconfig': {
        const child = new CmdShell({ ...this.ctx, env: Object.fromEntries(this.envList()), cwd: this.cwd });
        const g = child.program(text);
        let code = 0;
        for (let r = g.next(); !r.done; r = g.next()) { if (r.value.kind === 'exit') code = r.value.code; else yield r.value; }
        this.vars.set('lastexitcode', code);
        return code === 0;
      }
      case 'out-null': case 'clear-host': case 'cls': case 'set-strictmode': case 'import-module': return true;
    }
    if (this.ctx.programs?.includes(lower)) { yield { kind: 'forever' }; return true; }
    const msg = this.version === 7
      ? `The term '${name}' is not recognized as a name of a cmdlet, function, script file, or executable program.\r\nCheck the spelling of the name, or if a path was included, verify that the path is correct and try again.`
      : `The term '${name}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`;
    yield* this.errorRecord(st, name, msg, 'ObjectNotFound', 'CommandNotFoundException', 'CommandNotFoundException', '', st.col, rawName.length);
    return false;
  }

  /** A command-mode argument: quoted strings and variables evaluate, bare words are strings. */
  private argValue(a: string): string {
    if (/^["'$(]/.test(a)) { const v = this.expr(a); return v === null ? '' : format(v); }
    return a;
  }

  /** Expression mode: literals, variables, comparisons, -not, +. */
  expr(src: string): Value {
    const s = src.trim();
    if (!s) return null;
    const orM = splitOp(s, /\s-or\s/i); if (orM) return truthy(this.expr(orM[0])) || truthy(this.expr(orM[1]));
    const andM = splitOp(s, /\s-and\s/i); if (andM) return truthy(this.expr(andM[0])) && truthy(this.expr(andM[1]));
    const cmp = splitOp(s, /\s-(eq|ne|lt|le|gt|ge|like|match)\s/i);
    if (cmp) {
      const op = /\s-(eq|ne|lt|le|gt|ge|like|match)\s/i.exec(s)![1].toLowerCase();
      const l = this.expr(cmp[0]); const r = this.expr(cmp[1]);
      const num = typeof l === 'number' ? Number(r) : r;
      const eq = typeof l === 'string' && typeof num === 'string' ? l.toLowerCase() === num.toLowerCase() : l === num;
      switch (op) {
        case 'eq': return eq;
        case 'ne': return !eq;
        case 'lt': return (l as number) < (num as number);
        case 'le': return (l as number) <= (num as number);
        case 'gt': return (l as number) > (num as number);
        case 'ge': return (l as number) >= (num as number);
        case 'like': return new RegExp('^' + String(r).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$', 'i').test(String(l));
        case 'match': return new RegExp(String(r), 'i').test(String(l));
      }
    }
    if (/^(-not\s+|!)/i.test(s)) return !truthy(this.expr(s.replace(/^(-not\s+|!)/i, '')));
    const plus = splitOp(s, /\s\+\s/);
    if (plus) { const l = this.expr(plus[0]); const r = this.expr(plus[1]); return typeof l === 'number' ? l + Number(r) : `${l ?? ''}${r ?? ''}`; }
    if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
    if (s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
    if (s.startsWith('"') && s.endsWith('"')) return this.interpolate(s.slice(1, -1));
    if (s.startsWith('$(') && s.endsWith(')')) return this.capture(s.slice(2, -1));
    if (s.startsWith('(') && s.endsWith(')')) return this.expr(s.slice(1, -1));
    const v = /^\$(env:)?([A-Za-z_]\w*)$/i.exec(s);
    if (v) return v[1] ? this.env.get(v[2].toUpperCase()) ?? null : this.vars.get(v[2].toLowerCase()) ?? null;
    if (/^\[environment\]::machinename$/i.test(s)) return this.ctx.hostname.toUpperCase();
    if (/^\[environment\]::getenvironmentvariable\(/i.test(s)) { const a = /\(\s*(.+?)\s*\)$/.exec(s); return this.env.get(String(this.expr(a?.[1] ?? '')).toUpperCase()) ?? null; }
    return s;
  }

  /** Output of a `$(...)` subexpression, joined by spaces as PowerShell does in a string. */
  private capture(src: string): string {
    const parts: string[] = [];
    const g = this.block(splitStatements(src));
    for (let r = g.next(), n = 0; !r.done && n < 10000; r = g.next(), n++) {
      if (r.value.kind === 'stdout') parts.push(r.value.text.replace(/\r\n$/, ''));
      if (r.value.kind === 'forever') break;
    }
    return parts.join(' ');
  }

  interpolate(s: string): string {
    let out = '';
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '`' && i + 1 < s.length) {
        const e = s[++i];
        out += e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e === '0' ? '\0' : e === 'a' ? '\x07' : e;
      } else if (c === '"' && s[i + 1] === '"') { out += '"'; i++; }
      else if (c === '$' && s[i + 1] === '(') { const b = balanced(s, i + 1); out += this.capture(b.inner); i = b.end - 1; }
      else if (c === '$' && s[i + 1] === '{') { const e = s.indexOf('}', i); out += format(this.expr('$' + s.slice(i + 2, e)) ?? ''); i = e; }
      else if (c === '$') {
        const m = /^\$(env:)?([A-Za-z_]\w*)/i.exec(s.slice(i));
        if (!m) { out += c; continue; }
        const v = this.expr(m[0]);
        out += v === null ? '' : format(v);
        i += m[0].length - 1;
      } else out += c;
    }
    return out;
  }
}

function splitOp(s: string, re: RegExp): [string, string] | undefined {
  // Only at depth 0 and outside quotes.
  let depth = 0; let q: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) { if (c === q) q = null; continue; }
    if (c === '"' || c === "'") { q = c; continue; }
    if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') depth--;
    else if (depth === 0) {
      const m = re.exec(s.slice(i));
      if (m && m.index === 0) return [s.slice(0, i), s.slice(i + m[0].length)];
    }
  }
  return undefined;
}

function splitPipe(s: string): string[] {
  const out: string[] = []; let depth = 0; let q: string | null = null; let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) { if (c === q) q = null; continue; }
    if (c === '"' || c === "'") { q = c; continue; }
    if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') depth--;
    else if (depth === 0 && c === '|' && s[i + 1] !== '|') { out.push(s.slice(start, i)); start = i + 1; }
  }
  out.push(s.slice(start));
  return out;
}

const truthy = (v: Value): boolean => v !== null && v !== false && v !== 0 && v !== '';
const format = (v: Value): string => (v === true ? 'True' : v === false ? 'False' : v === null ? '' : String(v));

/** Get-ChildItem Env: as Format-Table lays out DictionaryEntry: Name in a 30-wide column. */
export function envTable(entries: [string, string][]): string {
  const w = Math.max(30, ...entries.map(([k]) => k.length + 1));
  const rows = entries.map(([k, v]) => `${k.padEnd(w)} ${v}`.trimEnd());
  return `\r\n${'Name'.padEnd(w)} Value\r\n${'----'.padEnd(w)} -----\r\n${rows.join('\r\n')}\r\n\r\n`;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
function time12(d: Date): string {
  const h = d.getUTCHours() % 12 || 12;
  return `${h}:${String(d.getUTCMinutes()).padStart(2, '0')}:${String(d.getUTCSeconds()).padStart(2, '0')} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`;
}
/** Get-Date in en-US: `Monday, November 23, 2026 1:16:57 PM`. */
export function psDate(d: Date): string {
  return `\r\n${DAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${time12(d)}\r\n`;
}
function psShortDate(d: Date): string {
  const h = d.getUTCHours() % 12 || 12;
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()} ${String(h).padStart(2)}:${String(d.getUTCMinutes()).padStart(2, '0')} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`;
}

/**
 * The script of `powershell|pwsh [-NoProfile] [-NonInteractive]
 * [-ExecutionPolicy X] -Command ...` (the rest joined by spaces). Without
 * -Command, positional arguments are the command (5.1's default). Undefined
 * for a bare `powershell` (an interactive shell with no stdin: it exits).
 */
export function psScript(args: string[]): string | undefined {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i].toLowerCase();
    if (['-command', '-c', '/c', '-com', '-comm'].includes(a)) { i++; break; }
    if (['-executionpolicy', '-ep', '-ex', '-exec', '-windowstyle', '-outputformat', '-inputformat', '-workingdirectory', '-wd'].includes(a)) { i++; continue; }
    if (a.startsWith('-')) continue;
    break;
  }
  if (i >= args.length) return undefined;
  return args.slice(i).join(' ');
}

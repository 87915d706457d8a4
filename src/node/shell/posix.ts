/**
 * The POSIX shells of Linux images: busybox ash (busybox, alpine), dash
 * (Debian/Ubuntu-based images' /bin/sh) and bash, as far as container
 * command lines use them. Executes the parse tree of posix-parse.ts as a
 * generator of Steps. Error texts are the shells' own:
 *   ash:  `sh: foo: not found` (127)      dash: `sh: 1: foo: not found` (127)
 *   bash: `bash: line 1: foo: command not found` (127)
 * prefixed with $0 as the shells do (`/bin/sh: foo: not found`).
 */
import { busyboxAwk } from './busybox-awk.js';
import { busyboxHexdump } from './busybox-hexdump.js';
import { busyboxNc } from './busybox-nc.js';
import { bindDig } from './bind-dig.js';
import { bindHost } from './bind-host.js';
import { bindNslookup } from './bind-nslookup.js';
import { busyboxLegacyNslookup } from './busybox-legacy-nslookup.js';
import { busyboxNslookup } from './busybox-nslookup.js';
import { busyboxPing } from './busybox-ping.js';
import { busyboxSysctl } from './busybox-sysctl.js';
import { getent } from './getent.js';
import { idCommand, ROOT_IDENTITY, whoamiCommand } from './posix-id.js';
import { mvCommand } from './posix-mv.js';
import { ipCommand } from './busybox-ip.js';
import { busyboxWget, curl, type ToolIO } from './http-tools.js';
import { linuxImageHas, nslookupFlavour } from './linux-image-tools.js';
import { parse, ParseError, type Node, type Redirect } from './posix-parse.js';
import { backslashEscapes, printf, unixDate } from './format.js';
import type { ShellContext, Step } from './types.js';
import { tar } from './tar-command.js';
import { fileBytes } from './fs.js';

export type PosixFlavour = 'ash' | 'dash' | 'bash';

/** `exit` unwinds the generators. */
class ExitSignal extends Error { constructor(readonly code: number) { super(`exit ${code}`); } }
class LoopSignal extends Error { constructor(readonly kind: 'break' | 'continue', readonly levels: number) { super(kind); } }

type Sink = { kind: 'stdout' | 'stderr' } | { kind: 'buf'; buf: string[] } | { kind: 'file'; path: string } | { kind: 'null' };
type Gen = Generator<Step, number, void>;
type Builtin = (sh: PosixShell, args: string[]) => Gen;

/** Directories whose programs resolve to the emulated ones (`/bin/echo` is echo). */
const BIN_DIRS = ['/bin', '/usr/bin', '/sbin', '/usr/sbin', '/usr/local/bin'];

/** Loops that never sleep are throttled: after this many iterations each one waits 10 ms. */
const BUSY_LOOP_FREE_ITERATIONS = 100;

export class PosixShell {
  readonly vars = new Map<string, string>();
  readonly exported = new Set<string>();
  status = 0;
  cwd: string;
  errexit = false;
  positional: string[] = [];
  traps = new Map<string, string>();
  private fds: Map<number, Sink>[] = [];
  private stdin: string;
  /** Line number of the -c script shown by dash/bash errors (always 1: we do not track lines). */
  private readonly line = 1;
  private sleptSinceCheck = false;

  constructor(readonly ctx: ShellContext, readonly flavour: PosixFlavour = 'ash', public arg0 = 'sh') {
    for (const [k, v] of Object.entries(ctx.env)) { this.vars.set(k, v); this.exported.add(k); }
    if (!this.vars.has('HOSTNAME')) this.vars.set('HOSTNAME', ctx.hostname);
    this.cwd = ctx.cwd ?? '/';
    this.stdin = ctx.stdin ?? '';
    this.fds.push(new Map<number, Sink>([[1, { kind: 'stdout' }], [2, { kind: 'stderr' }]]));
  }

  /** Runs a script (a `-c` argument or one interactive line); returns its status. Throws ExitSignal on `exit`. */
  *script(src: string): Gen {
    let tree: Node;
    try {
      tree = parse(src);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      yield* this.err(this.syntaxError(e.token));
      throw new ExitSignal(2);
    }
    return (this.status = yield* this.run(tree));
  }

  /** A whole program: the script, then the exit step. */
  *program(src: string): Generator<Step, void, void> {
    let code: number;
    try { code = yield* this.script(src); } catch (e) { code = this.exitCode(e); }
    yield { kind: 'exit', code };
  }

  /** Runs the TERM trap, if any: its steps, then exit if it exits. */
  *trap(signal: string): Generator<Step, void, void> {
    const action = this.traps.get(signal);
    if (action === undefined) return;
    try { yield* this.script(action); } catch (e) { yield { kind: 'exit', code: this.exitCode(e) }; }
  }

  exitCode(e: unknown): number {
    if (e instanceof ExitSignal) return e.code & 255;
    if (e instanceof LoopSignal) return 0;
    throw e;
  }

  private syntaxError(token: string): string {
    const shown = token === '' ? 'end of file' : token;
    switch (this.flavour) {
      case 'dash': return `${this.arg0}: ${this.line}: Syntax error: ${token === '' ? 'end of file unexpected' : `"${shown}" unexpected`}`;
      case 'bash': return token === ''
        ? `${this.arg0}: -c: line ${this.line}: syntax error: unexpected end of file`
        : `${this.arg0}: -c: line ${this.line}: syntax error near unexpected token \`${shown}'`;
      default: return `${this.arg0}: syntax error: unexpected ${token === '' ? 'end of file' : `"${shown}"`}`;
    }
  }

  /** The shell's own error prefix: `sh: `, `sh: 1: `, `bash: line 1: `. */
  prefix(): string {
    return this.flavour === 'dash' ? `${this.arg0}: ${this.line}: ` : this.flavour === 'bash' ? `${this.arg0}: line ${this.line}: ` : `${this.arg0}: `;
  }

  // -- output -------------------------------------------------------------

  /** Output on a descriptor; `bytes`, when given, are the exact bytes of binary output (an archive), `text` their UTF-8 reading. */
  *write(fd: number, text: string, bytes?: Uint8Array): Generator<Step, void, void> {
    if (!text) return;
    const sink = this.fds.at(-1)?.get(fd) ?? { kind: 'null' };
    switch (sink.kind) {
      case 'stdout': yield bytes ? { kind: 'stdout', text, bytes } : { kind: 'stdout', text }; break;
      case 'stderr': yield { kind: 'stderr', text }; break;
      case 'buf': sink.buf.push(text); break;
      case 'file': if (bytes) this.ctx.fs.writeBytes(sink.path, bytes, true); else this.ctx.fs.write(sink.path, text, true); break;
      case 'null': break;
    }
  }
  *out(text: string): Generator<Step, void, void> { yield* this.write(1, text); }
  /** Binary output: its bytes reach the client or a file unchanged; a pipe or substitution reads their text. */
  *outBytes(bytes: Uint8Array): Generator<Step, void, void> { yield* this.write(1, Buffer.from(bytes).toString('utf8'), bytes); }
  *err(line: string): Generator<Step, void, void> { yield* this.write(2, line + '\n'); }
  /** A tool computed as a pure function: its output, then its exit status. */
  *tool(r: { out: string; err: string; code: number }): Generator<Step, number, void> { yield* this.write(1, r.out); yield* this.write(2, r.err); return r.code; }

  readStdin(): string { const s = this.stdin; this.stdin = ''; return s; }
  /** Stdin as bytes: the client's own bytes while nothing has consumed or replaced them (binary-safe for tar). */
  readStdinBytes(): Uint8Array {
    const untouched = this.ctx.stdinBytes && this.stdin === (this.ctx.stdin ?? '');
    const text = this.readStdin();
    return untouched ? this.ctx.stdinBytes! : Buffer.from(text, 'utf8');
  }

  // -- execution ----------------------------------------------------------

  *run(node: Node): Gen {
    switch (node.type) {
      case 'list': {
        let st = 0;
        for (const item of node.items) {
          st = yield* this.run(item);
          this.status = st;
          if (st !== 0 && this.errexit && item.type !== 'andor') throw new ExitSignal(st);
        }
        return st;
      }
      case 'andor': {
        let st = yield* this.run(node.first);
        for (const { op, node: n } of node.rest) {
          this.status = st;
          if ((op === '&&' && st === 0) || (op === '||' && st !== 0)) st = yield* this.run(n);
        }
        return st;
      }
      case 'pipeline': {
        let st = 0;
        let input: string | undefined;
        for (const [i, command] of node.commands.entries()) {
          const last = i === node.commands.length - 1;
          const buf: string[] = [];
          if (input !== undefined) this.stdin = input;
          if (!last) this.pushFds(new Map([[1, { kind: 'buf', buf }]]));
          try { st = yield* this.run(command); } finally { if (!last) this.fds.pop(); }
          input = buf.join('');
        }
        this.stdin = '';
        return node.negate ? (st === 0 ? 1 : 0) : st;
      }
      case 'while': return yield* this.withRedirects(node.redirects, () => this.loop(node));
      case 'for': return yield* this.withRedirects(node.redirects, () => this.forLoop(node));
      case 'if': return yield* this.withRedirects(node.redirects, function* (this: PosixShell) {
        for (const b of node.branches) {
          if ((yield* this.condition(b.cond)) === 0) return yield* this.run(b.body);
        }
        return node.otherwise ? yield* this.run(node.otherwise) : 0;
      }.bind(this));
      case 'group': return yield* this.withRedirects(node.redirects, function* (this: PosixShell) {
        if (!node.subshell) return yield* this.run(node.body);
        const saved = { vars: new Map(this.vars), exported: new Set(this.exported), cwd: this.cwd };
        try { return yield* this.run(node.body); } catch (e) { return this.exitCode(e); } finally {
          this.vars.clear(); for (const [k, v] of saved.vars) this.vars.set(k, v);
          this.exported.clear(); for (const k of saved.exported) this.exported.add(k);
          this.cwd = saved.cwd;
        }
      }.bind(this));
      case 'simple': return yield* this.simple(node);
    }
  }

  /** A condition (if/while/&&): errexit does not apply inside. */
  private *condition(n: Node): Gen {
    const e = this.errexit; this.errexit = false;
    try { return yield* this.run(n); } finally { this.errexit = e; }
  }

  private *loop(node: Extract<Node, { type: 'while' }>): Gen {
    let st = 0;
    for (let i = 0; ; i++) {
      this.sleptSinceCheck = false;
      const c = yield* this.condition(node.cond);
      if ((c === 0) === node.until) break;
      try { st = yield* this.run(node.body); } catch (e) {
        if (!(e instanceof LoopSignal)) throw e;
        if (e.levels > 1) throw new LoopSignal(e.kind, e.levels - 1);
        if (e.kind === 'break') break;
      }
      if (!this.sleptSinceCheck && i >= BUSY_LOOP_FREE_ITERATIONS) yield { kind: 'sleep', ms: 10 };
    }
    return st;
  }

  private *forLoop(node: Extract<Node, { type: 'for' }>): Gen {
    const items = node.items === undefined ? [...this.positional] : node.items.flatMap((w) => this.expand(w));
    let st = 0;
    for (const v of items) {
      this.vars.set(node.name, v);
      try { st = yield* this.run(node.body); } catch (e) {
        if (!(e instanceof LoopSignal)) throw e;
        if (e.levels > 1) throw new LoopSignal(e.kind, e.levels - 1);
        if (e.kind === 'break') break;
      }
    }
    return st;
  }

  private pushFds(over: Map<number, Sink>): void {
    const next = new Map(this.fds[this.fds.length - 1]);
    for (const [k, v] of over) next.set(k, v);
    this.fds.push(next);
  }

  /** Applies redirections around `body`; a failed redirection is the shell's error and status 1 (2 in dash). */
  private *withRedirects(reds: Redirect[], body: () => Gen): Gen {
    if (!reds.length) return yield* body();
    const next = new Map(this.fds[this.fds.length - 1]);
    for (const r of reds) {
      const target = this.expand(r.target).join(' ');
      if (r.op === '>&') {
        const src = next.get(Number(target));
        if (src) next.set(r.fd, src);
        continue;
      }
      if (r.op === '<') {
        const abs = this.ctx.fs.resolve(target, this.cwd);
        const content = this.ctx.fs.read(abs);
        if (content === undefined) { yield* this.err(`${this.prefix()}can't open ${target}: no such file`); return this.flavour === 'dash' ? 2 : 1; }
        this.stdin = content;
        continue;
      }
      const abs = this.ctx.fs.resolve(target, this.cwd);
      if (abs === '/dev/null') { next.set(r.fd, { kind: 'null' }); continue; }
      if (abs === '/dev/stdout' || abs === '/proc/self/fd/1') { next.set(r.fd, next.get(1) ?? { kind: 'null' }); continue; }
      if (abs === '/dev/stderr' || abs === '/proc/self/fd/2') { next.set(r.fd, next.get(2) ?? { kind: 'null' }); continue; }
      const res = this.ctx.fs.write(abs, '', r.op === '>>');
      if (res !== 'ok') {
        // bash reports strerror; dash's errmsg(E_CREAT) says "Directory nonexistent" and busybox ash "nonexistent directory".
        const why = res === 'read-only' ? 'Read-only file system' : res === 'is-dir' ? 'Is a directory'
          : this.flavour === 'bash' ? 'No such file or directory' : this.flavour === 'dash' ? 'Directory nonexistent' : 'nonexistent directory';
        yield* this.err(this.flavour === 'bash' ? `${this.prefix()}${target}: ${why}`
          : `${this.prefix()}${this.flavour === 'dash' ? 'cannot' : "can't"} create ${target}: ${why}`);
        return this.flavour === 'dash' ? 2 : 1;
      }
      next.set(r.fd, { kind: 'file', path: abs });
    }
    this.fds.push(next);
    try { return yield* body(); } finally { this.fds.pop(); }
  }

  private *simple(node: Extract<Node, { type: 'simple' }>): Gen {
    const words = node.words.flatMap((w) => this.expand(w));
    const assigns = node.assigns.map((a) => { const i = a.indexOf('='); return [a.slice(0, i), this.expand(a.slice(i + 1), false).join(' ')] as const; });
    if (!words.length) {
      for (const [k, v] of assigns) this.vars.set(k, v);
      return yield* this.withRedirects(node.redirects, function* () { return 0; });
    }
    // Prefix assignments apply to this command's environment only.
    const saved = assigns.map(([k]) => [k, this.vars.get(k), this.exported.has(k)] as const);
    for (const [k, v] of assigns) { this.vars.set(k, v); this.exported.add(k); }
    try {
      return yield* this.withRedirects(node.redirects, () => this.command(words));
    } finally {
      for (const [k, v, ex] of saved) { if (v === undefined) this.vars.delete(k); else this.vars.set(k, v); if (!ex) this.exported.delete(k); }
    }
  }

  /** Runs one command by name: a builtin/emulated program, or the not-found error. */
  *command(words: string[]): Gen {
    // Callers run a command only for a non-empty word list; an empty name is not found.
    const [name = '', ...args] = words;
    let prog = name;
    if (name.includes('/')) {
      const abs = this.ctx.fs.resolve(name, this.cwd);
      const dir = abs.slice(0, abs.lastIndexOf('/')) || '/';
      prog = BIN_DIRS.includes(dir) ? abs.slice(abs.lastIndexOf('/') + 1) : '';
    }
    const b = prog && linuxImageHas(prog, this.ctx) ? BUILTINS[prog] : undefined;
    if (b) return (this.status = yield* b(this, args));
    if (prog && this.ctx.programs?.includes(prog)) { yield { kind: 'forever' }; return 0; }
    if (name.includes('/') && this.ctx.fs.stat(this.ctx.fs.resolve(name, this.cwd))) {
      yield* this.err(`${this.prefix()}${name}: Permission denied`);
      return 126;
    }
    return yield* this.notFound(name);
  }

  /** The shell's answer for a program the image does not have. */
  *notFound(name: string): Gen {
    yield* this.err(this.flavour === 'bash' ? `${this.prefix()}${name}: ${name.includes('/') ? 'No such file or directory' : 'command not found'}` : `${this.prefix()}${name}: not found`);
    return 127;
  }

  exportedEnv(): [string, string][] {
    return [...this.exported].filter((k) => this.vars.has(k)).map((k) => [k, this.vars.get(k)!] as [string, string]);
  }

  // -- expansion ----------------------------------------------------------

  /** Expands a word into fields: parameters, command substitution, quote removal, field splitting, globbing. */
  expand(raw: string, split = true): string[] {
    type Piece = { text: string; quoted: boolean };
    const pieces: Piece[] = [];
    let quotedSeen = false;
    let i = 0;
    const param = (src: string, at: number): { value: string; end: number } => {
      const c = src[at + 1];
      if (c === '{') {
        const close = src.indexOf('}', at);
        const body = src.slice(at + 2, close);
        return { value: this.braceParam(body), end: close + 1 };
      }
      if (c === '(') {
        let depth = 0; let j = at + 1;
        for (; j < src.length; j++) { if (src[j] === '(') depth++; else if (src[j] === ')' && --depth === 0) break; }
        return { value: this.substitute(src.slice(at + 2, j)), end: j + 1 };
      }
      const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9?#$@*!-])/.exec(src.slice(at + 1));
      if (!m) return { value: '$', end: at + 1 };
      return { value: this.param(m[0]), end: at + 1 + m[0].length };
    };
    while (i < raw.length) {
      const c = raw[i];
      if (c === "'") {
        const end = raw.indexOf("'", i + 1);
        pieces.push({ text: raw.slice(i + 1, end), quoted: true }); quotedSeen = true; i = end + 1;
      } else if (c === '"') {
        quotedSeen = true;
        let j = i + 1; let text = '';
        while (j < raw.length && raw[j] !== '"') {
          const next = raw[j + 1];
          if (raw[j] === '\\' && next !== undefined && '$`"\\\n'.includes(next)) { text += next; j += 2; }
          else if (raw[j] === '$') { const r = param(raw, j); text += r.value; j = r.end; }
          else if (raw[j] === '`') { const e = raw.indexOf('`', j + 1); text += this.substitute(raw.slice(j + 1, e)); j = e + 1; }
          else text += raw[j++];
        }
        pieces.push({ text, quoted: true }); i = j + 1;
      } else if (c === '\\') {
        pieces.push({ text: raw[i + 1] ?? '', quoted: true }); i += 2;
      } else if (c === '$') {
        const r = param(raw, i); pieces.push({ text: r.value, quoted: false }); i = r.end;
      } else if (c === '`') {
        const e = raw.indexOf('`', i + 1); pieces.push({ text: this.substitute(raw.slice(i + 1, e)), quoted: false }); i = e + 1;
      } else if (c === '~' && i === 0 && (raw.length === 1 || raw[1] === '/')) {
        pieces.push({ text: this.vars.get('HOME') ?? '/root', quoted: true }); i++;
      } else {
        let j = i; while (j < raw.length && !`'"\\$\``.includes(raw.charAt(j))) j++;
        pieces.push({ text: raw.slice(i, j), quoted: false, literal: true } as Piece); i = j;
      }
    }
    if (!split) return [pieces.map((p) => p.text).join('')];
    const fields: string[] = [];
    let cur = '';
    let have = quotedSeen;
    let glob = false;
    for (const p of pieces) {
      if (p.quoted) { cur += p.text; have = true; continue; }
      if ((p as Piece & { literal?: boolean }).literal) {
        if (/[*?]/.test(p.text)) glob = true;
        cur += p.text; if (p.text) have = true; continue;
      }
      const parts = p.text.split(/[ \t\n]+/);
      for (let k = 0; k < parts.length; k++) {
        if (k > 0) { if (have || cur) fields.push(cur); cur = ''; have = false; }
        cur += parts[k]; if (parts[k]) have = true;
      }
    }
    if (have || cur) fields.push(cur);
    return glob ? fields.flatMap((f) => this.glob(f)) : fields;
  }

  private glob(pattern: string): string[] {
    if (!/[*?]/.test(pattern)) return [pattern];
    const slash = pattern.lastIndexOf('/');
    const dir = slash === -1 ? '' : pattern.slice(0, slash + 1);
    const base = pattern.slice(slash + 1);
    const re = new RegExp('^' + base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
    const abs = this.ctx.fs.resolve(dir || '.', this.cwd);
    const names = this.ctx.fs.list(abs).filter((n) => re.test(n) && (base.startsWith('.') || !n.startsWith('.')));
    return names.length ? names.map((n) => dir + n) : [pattern];
  }

  param(name: string): string {
    switch (name) {
      case '?': return String(this.status);
      case '$': return '1';
      case '!': return '';
      case '#': return String(this.positional.length);
      case '@': case '*': return this.positional.join(' ');
      case '-': return this.errexit ? 'e' : '';
      case '0': return this.arg0;
    }
    if (/^[1-9]$/.test(name)) return this.positional[Number(name) - 1] ?? '';
    return this.vars.get(name) ?? '';
  }

  private braceParam(body: string): string {
    if (body.startsWith('#')) return String(this.param(body.slice(1)).length);
    const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9?#$@*!-])(:?[-=+?])?(.*)$/s.exec(body);
    if (!m) return '';
    const [, name = '', op, word = ''] = m;
    const set = name.length > 1 || /[A-Za-z_]/.test(name) ? this.vars.has(name) : true;
    const value = this.param(name);
    if (!op) return value;
    const empty = op.startsWith(':') ? value === '' : !set;
    const w = () => this.expand(word, false)[0] ?? '';
    switch (op.replace(':', '')) {
      case '-': return empty ? w() : value;
      case '=': if (empty) { this.vars.set(name, w()); return this.vars.get(name)!; } return value;
      case '+': return empty ? '' : w();
      default: return value;
    }
  }

  /** $(...): runs the script collecting stdout, trailing newlines removed; sleeps and network waits inside are not waited for. */
  private substitute(src: string): string {
    const buf: string[] = [];
    this.pushFds(new Map([[1, { kind: 'buf', buf }]]));
    const gen = (function* (sh: PosixShell) { try { return yield* sh.script(src); } catch (e) { return sh.exitCode(e); } })(this);
    try {
      for (let n = 0; n < 100_000; n++) {
        const r = gen.next();
        if (r.done) { this.status = r.value; break; }
        if (r.value.kind === 'forever') break;
        // Substitution runs synchronously: a response still on its way never comes.
        if (r.value.kind === 'wait' && !r.value.on.settled) break;
        if (r.value.kind === 'stderr') continue;
      }
    } finally { this.fds.pop(); }
    return buf.join('').replace(/\n+$/, '');
  }
}

// ---------------------------------------------------------------------------
// Builtins and emulated programs

function* noop(): Gen { return 0; }

/** sleep(1) durations: `5`, `0.5`, `1m`, `2h`, `1d`; infinity blocks. */
export function parseSleep(arg: string): number | 'forever' | undefined {
  if (/^inf(inity)?$/i.test(arg)) return 'forever';
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
  if (!m) return undefined;
  const mult = ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2] ?? ''];
  if (mult === undefined) return undefined;
  return Math.round(Number(m[1]) * mult * 1000);
}

function listing(sh: PosixShell, args: string[], all: boolean): { out: string; err: string[]; code: number } {
  const fs = sh.ctx.fs;
  const paths = args.length ? args : ['.'];
  let out = '';
  const err: string[] = [];
  let code = 0;
  const files: string[] = [];
  const dirs: string[] = [];
  for (const p of paths) {
    const e = fs.stat(fs.resolve(p, sh.cwd));
    if (!e) {
      err.push(sh.flavour === 'ash' ? `ls: ${p}: No such file or directory` : `ls: cannot access '${p}': No such file or directory`);
      code = sh.flavour === 'ash' ? 1 : 2;
    } else if (e.type === 'file') files.push(p); else dirs.push(p);
  }
  for (const f of files) out += f + '\n';
  dirs.forEach((d, i) => {
    if (paths.length > 1) out += `${files.length || i ? '\n' : ''}${d}:\n`;
    for (const n of fs.list(fs.resolve(d, sh.cwd))) if (all || !n.startsWith('.')) out += n + '\n';
  });
  return { out, err, code };
}

function* cat(sh: PosixShell, args: string[]): Gen {
  let code = 0;
  const files = args.filter((a) => a !== '-u');
  if (!files.length || files.every((f) => f === '-')) { yield* sh.out(sh.readStdin()); return 0; }
  for (const f of files) {
    if (f === '-') { yield* sh.out(sh.readStdin()); continue; }
    const abs = sh.ctx.fs.resolve(f, sh.cwd);
    const e = sh.ctx.fs.stat(abs);
    if (!e) { yield* sh.err(sh.flavour === 'ash' ? `cat: can't open '${f}': No such file or directory` : `cat: ${f}: No such file or directory`); code = 1; continue; }
    if (e.type === 'dir') { yield* sh.err(sh.flavour === 'ash' ? `cat: read error: Is a directory` : `cat: ${f}: Is a directory`); code = 1; continue; }
    yield* sh.out(e.content);
  }
  return code;
}

function testExpr(sh: PosixShell, a: string[]): number {
  const fs = sh.ctx.fs;
  const unary = (op: string, v: string): boolean => {
    const e = fs.stat(fs.resolve(v, sh.cwd));
    switch (op) {
      case '-z': return v === '';
      case '-n': return v !== '';
      case '-e': return !!e;
      case '-f': return e?.type === 'file';
      case '-d': return e?.type === 'dir';
      case '-s': return e?.type === 'file' && e.content.length > 0;
      case '-r': case '-x': return !!e;
      case '-w': return !!e && !e.readOnly;
      default: return false;
    }
  };
  const eval1 = (x: string[]): boolean => {
    if (x[0] === '!') return !eval1(x.slice(1));
    const or = x.indexOf('-o'); if (or > 0) return eval1(x.slice(0, or)) || eval1(x.slice(or + 1));
    const and = x.indexOf('-a'); if (and > 0) return eval1(x.slice(0, and)) && eval1(x.slice(and + 1));
    if (x.length === 0) return false;
    const [l = '', op = '', r = ''] = x;
    if (x.length === 1) return l !== '';
    if (x.length === 2) return unary(l, op);
    const n = (s: string) => Number(s);
    switch (op) {
      case '=': case '==': return l === r;
      case '!=': return l !== r;
      case '-eq': return n(l) === n(r);
      case '-ne': return n(l) !== n(r);
      case '-lt': return n(l) < n(r);
      case '-le': return n(l) <= n(r);
      case '-gt': return n(l) > n(r);
      case '-ge': return n(l) >= n(r);
      default: return false;
    }
  };
  return eval1(a) ? 0 : 1;
}

/** The shell's streams and files as the HTTP tools write them. */
function toolIO(sh: PosixShell): ToolIO {
  return {
    ctx: sh.ctx,
    out: (text) => sh.write(1, text),
    err: (text) => sh.write(2, text),
    writeFile: (path, content) => sh.ctx.fs.write(sh.ctx.fs.resolve(path, sh.cwd), content) === 'ok',
    readFile: (path) => sh.ctx.fs.read(sh.ctx.fs.resolve(path, sh.cwd)),
  };
}

const BUILTINS: Record<string, Builtin> = {
  ':': noop,
  true: noop,
  false: function* () { return 1; },
  *echo(sh, args) {
    let newline = true; let escapes = sh.flavour === 'dash';
    let i = 0;
    if (sh.flavour !== 'dash') {
      for (let a = args[i]; a !== undefined && /^-[neE]+$/.test(a); a = args[++i]) {
        for (const f of a.slice(1)) { if (f === 'n') newline = false; else escapes = f === 'e'; }
      }
    } else if (args[0] === '-n') { newline = false; i = 1; }
    let text = args.slice(i).join(' ');
    if (escapes) { const r = backslashEscapes(text); text = r.text; if (r.stop) newline = false; }
    yield* sh.out(text + (newline ? '\n' : ''));
    return 0;
  },
  *printf(sh, args) {
    const [format, ...values] = args;
    if (format === undefined) { yield* sh.err('printf: usage: printf format [arguments]'); return sh.flavour === 'bash' ? 2 : 1; }
    yield* sh.out(printf(format, values));
    return 0;
  },
  *sleep(sh, args) {
    if (!args.length) { yield* sh.err(sh.flavour === 'ash' ? 'sleep: missing operand' : 'sleep: missing operand'); return 1; }
    let ms = 0;
    for (const a of args) {
      const d = parseSleep(a);
      if (d === undefined) { yield* sh.err(sh.flavour === 'ash' ? `sleep: invalid number '${a}'` : `sleep: invalid time interval '${a}'`); return 1; }
      if (d === 'forever') { yield { kind: 'forever' }; return 0; }
      ms += d;
    }
    (sh as unknown as { sleptSinceCheck: boolean }).sleptSinceCheck = true;
    yield { kind: 'sleep', ms };
    return 0;
  },
  *exit(sh, args) {
    const code = args.length ? Number(args[0]) : sh.status;
    if (!Number.isInteger(code)) {
      yield* sh.err(`${sh.prefix()}exit: Illegal number: ${args[0]}`);
      throw new ExitSignal(2);
    }
    throw new ExitSignal(code);
  },
  *return(sh, args) { throw new ExitSignal(args.length ? Number(args[0]) : sh.status); },
  *break(_sh, args) { throw new LoopSignal('break', Number(args[0] ?? 1) || 1); },
  *continue(_sh, args) { throw new LoopSignal('continue', Number(args[0] ?? 1) || 1); },
  *env(sh, args) {
    const assigns: [string, string][] = [];
    let i = 0;
    for (let a = args[i]; a !== undefined && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || a === '-i'); a = args[++i]) {
      if (a !== '-i') { const k = a.indexOf('='); assigns.push([a.slice(0, k), a.slice(k + 1)]); }
    }
    if (i < args.length) {
      const saved = assigns.map(([k]) => [k, sh.vars.get(k)] as const);
      for (const [k, v] of assigns) { sh.vars.set(k, v); sh.exported.add(k); }
      try { return yield* sh.command(args.slice(i)); } finally { for (const [k, v] of saved) if (v === undefined) sh.vars.delete(k); else sh.vars.set(k, v); }
    }
    const env = new Map(sh.exportedEnv());
    for (const [k, v] of assigns) env.set(k, v);
    yield* sh.out([...env].map(([k, v]) => `${k}=${v}\n`).join(''));
    return 0;
  },
  *printenv(sh, args) {
    const env = new Map(sh.exportedEnv());
    if (!args.length) { yield* sh.out([...env].map(([k, v]) => `${k}=${v}\n`).join('')); return 0; }
    let code = 0;
    for (const a of args) { const v = env.get(a); if (v === undefined) code = 1; else yield* sh.out(v + '\n'); }
    return code;
  },
  *export(sh, args) {
    for (const a of args) {
      if (a === '-p') { yield* sh.out(sh.exportedEnv().map(([k, v]) => `export ${k}='${v}'\n`).join('')); continue; }
      const i = a.indexOf('=');
      if (i === -1) sh.exported.add(a); else { sh.vars.set(a.slice(0, i), a.slice(i + 1)); sh.exported.add(a.slice(0, i)); }
    }
    return 0;
  },
  *unset(sh, args) { for (const a of args) { sh.vars.delete(a); sh.exported.delete(a); } return 0; },
  *set(sh, args) {
    if (!args.length) { yield* sh.out([...sh.vars].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}='${v}'\n`).join('')); return 0; }
    for (const a of args) {
      if (/^-[a-z]*e/.test(a)) sh.errexit = true;
      if (/^\+[a-z]*e/.test(a)) sh.errexit = false;
    }
    const dd = args.indexOf('--');
    if (dd !== -1) sh.positional = args.slice(dd + 1);
    return 0;
  },
  *trap(sh, args) {
    const [action, ...sigs] = args;
    if (action === undefined || !sigs.length) return 0;
    for (const s of sigs) {
      const sig = s.toUpperCase().replace(/^SIG/, '');
      const name = sig === '15' ? 'TERM' : sig === '2' ? 'INT' : sig;
      if (action === '-') sh.traps.delete(name); else sh.traps.set(name, action);
    }
    return 0;
  },
  *hostname(sh) { yield* sh.out(sh.ctx.hostname + '\n'); return 0; },
  *whoami(sh) { return yield* sh.tool(whoamiCommand(sh.ctx.identity ?? ROOT_IDENTITY)); },
  *id(sh, args) { return yield* sh.tool(idCommand(sh.ctx.identity ?? ROOT_IDENTITY, args)); },
  *sysctl(sh, args) {
    const fs = sh.ctx.fs;
    return yield* sh.tool(busyboxSysctl(args, {
      read: (p) => fs.read(p),
      list: (p) => (fs.stat(p)?.type === 'dir' ? fs.list(p) : undefined),
      write: (p, content) => fs.write(p, content),
    }));
  },
  *ip(sh, args) { const r = ipCommand(args, sh.ctx.identity ?? ROOT_IDENTITY); return r ? yield* sh.tool(r) : yield* sh.notFound('ip'); },
  *uname(sh, args) {
    const k = sh.ctx.kernelVersion ?? '6.1.0-28-amd64';
    yield* sh.out((args.includes('-a') ? `Linux ${sh.ctx.hostname} ${k} #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22) x86_64 GNU/Linux`
      : args.includes('-r') ? k : args.includes('-n') ? sh.ctx.hostname : 'Linux') + '\n');
    return 0;
  },
  *pwd(sh) { yield* sh.out(sh.cwd + '\n'); return 0; },
  *cd(sh, args) {
    const target = args[0] ?? sh.vars.get('HOME') ?? '/';
    const abs = sh.ctx.fs.resolve(target, sh.cwd);
    if (sh.ctx.fs.stat(abs)?.type !== 'dir') { yield* sh.err(`${sh.prefix()}cd: can't cd to ${target}: No such file or directory`); return sh.flavour === 'dash' ? 2 : 1; }
    sh.cwd = abs; sh.vars.set('PWD', abs);
    return 0;
  },
  *date(sh, args) {
    const f = args.find((a) => a.startsWith('+'));
    yield* sh.out(unixDate((sh.ctx.now ?? (() => new Date()))(), f?.slice(1)) + '\n');
    return 0;
  },
  cat,
  tar,
  *ls(sh, args) {
    const flags = args.filter((a) => a.startsWith('-') && a.length > 1).join('');
    const r = listing(sh, args.filter((a) => !a.startsWith('-') || a.length === 1), flags.includes('a') || flags.includes('A'));
    for (const e of r.err) yield* sh.err(e);
    yield* sh.out(r.out);
    return r.code;
  },
  *touch(sh, args) {
    let code = 0;
    for (const f of args.filter((a) => !a.startsWith('-'))) {
      const abs = sh.ctx.fs.resolve(f, sh.cwd);
      if (sh.ctx.fs.stat(abs)) continue;
      const r = sh.ctx.fs.write(abs, '');
      if (r !== 'ok') { yield* sh.err(`touch: ${f}: ${r === 'read-only' ? 'Read-only file system' : 'No such file or directory'}`); code = 1; }
    }
    return code;
  },
  *rm(sh, args) {
    const force = args.some((a) => /^-[a-zA-Z]*f/.test(a));
    let code = 0;
    for (const f of args.filter((a) => !a.startsWith('-'))) {
      const r = sh.ctx.fs.remove(sh.ctx.fs.resolve(f, sh.cwd));
      if (r === 'missing' && !force) { yield* sh.err(`rm: can't remove '${f}': No such file or directory`); code = 1; }
      if (r === 'read-only') { yield* sh.err(`rm: can't remove '${f}': Read-only file system`); code = 1; }
    }
    return code;
  },
  *mv(sh, args) { return yield* sh.tool(mvCommand(sh.ctx.fs, sh.cwd, args, sh.flavour !== 'ash')); },
  *mkdir(sh, args) {
    const parents = args.includes('-p');
    let code = 0;
    for (const d of args.filter((a) => !a.startsWith('-'))) {
      const abs = sh.ctx.fs.resolve(d, sh.cwd);
      const segs = parents ? abs.split('/').filter(Boolean).map((_, i, a) => '/' + a.slice(0, i + 1).join('/')) : [abs];
      for (const s of segs) {
        const r = sh.ctx.fs.mkdir(s);
        if (r === 'exists' && (parents || s !== abs)) continue;
        if (r !== 'ok') { yield* sh.err(`mkdir: can't create directory '${d}': ${r === 'exists' ? 'File exists' : r === 'read-only' ? 'Read-only file system' : 'No such file or directory'}`); code = 1; break; }
      }
    }
    return code;
  },
  *test(sh, args) { return testExpr(sh, args); },
  *curl(sh, args) { return yield* curl(args, toolIO(sh)); },
  *wget(sh, args) { return yield* busyboxWget(args, toolIO(sh)); },
  *ping(sh, args) { return yield* busyboxPing(args, toolIO(sh)); },
  *nslookup(sh, args) {
    const flavour = nslookupFlavour(sh.ctx);
    const tool = flavour === 'bind9' ? bindNslookup : flavour === 'busybox-legacy' ? busyboxLegacyNslookup : busyboxNslookup;
    return yield* tool(args, toolIO(sh));
  },
  *dig(sh, args) { return yield* bindDig(args, toolIO(sh)); },
  *host(sh, args) { return yield* bindHost(args, toolIO(sh)); },
  *nc(sh, args) { return yield* busyboxNc(args, toolIO(sh), () => sh.readStdin()); },
  *getent(sh, args) { return yield* getent(args, toolIO(sh)); },
  *awk(sh, args) { const io = toolIO(sh); return yield* busyboxAwk(args, { ...io, stdin: () => sh.readStdin() }); },
  *hexdump(sh, args) {
    const fs = sh.ctx.fs;
    const readFile = (p: string) => { const e = fs.stat(fs.resolve(p, sh.cwd)); return e?.type === 'file' ? fileBytes(e) : undefined; };
    return yield* busyboxHexdump(args, { ...toolIO(sh), stdinBytes: () => sh.readStdinBytes(), readFile });
  },
  *'['(sh, args) {
    if (args[args.length - 1] !== ']') { yield* sh.err(`${sh.flavour === 'ash' ? '[' : `${sh.prefix()}[`}: missing ]`); return 2; }
    return testExpr(sh, args.slice(0, -1));
  },
  // busybox ash's bash-compatible `[[` is test with a closing `]]` (test.c); bash has it as a keyword, dash not at all.
  *'[['(sh, args) {
    if (sh.flavour === 'dash') return yield* sh.notFound('[[');
    if (args[args.length - 1] !== ']]') { yield* sh.err(`${sh.flavour === 'ash' ? '[[' : `${sh.prefix()}[[`}: missing ]]`); return 2; }
    return testExpr(sh, args.slice(0, -1));
  },
  *tail(sh, args) {
    if (args.some((a) => a === '-f' || a === '-F' || /^--follow/.test(a))) { yield { kind: 'forever' }; return 0; }
    const ni = args.indexOf('-n');
    const n = ni !== -1 ? Number(args[ni + 1]) : 10;
    const files = args.filter((a, i) => !a.startsWith('-') && i !== ni + 1);
    const [file] = files;
    const text = file !== undefined ? sh.ctx.fs.read(sh.ctx.fs.resolve(file, sh.cwd)) : sh.readStdin();
    if (text === undefined) { yield* sh.err(`tail: can't open '${files[0]}': No such file or directory`); return 1; }
    const lines = text.replace(/\n$/, '').split('\n');
    yield* sh.out(lines.slice(-n).join('\n') + '\n');
    return 0;
  },
  *head(sh, args) {
    const ni = args.indexOf('-n');
    const n = ni !== -1 ? Number(args[ni + 1]) : 10;
    const files = args.filter((a, i) => !a.startsWith('-') && i !== ni + 1);
    const [file] = files;
    const text = file !== undefined ? sh.ctx.fs.read(sh.ctx.fs.resolve(file, sh.cwd)) : sh.readStdin();
    if (text === undefined) { yield* sh.err(`head: can't open '${files[0]}': No such file or directory`); return 1; }
    yield* sh.out(text.split('\n').slice(0, n).join('\n') + (text.split('\n').length > n ? '\n' : ''));
    return 0;
  },
  *grep(sh, args) {
    const flags = args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join('');
    const rest = args.filter((a) => !/^-[a-zA-Z]+$/.test(a));
    const [pattern, ...files] = rest;
    if (pattern === undefined) { yield* sh.err('Usage: grep [-HhnlLoqvsrRiwFE] PATTERN [FILE]...'); return 2; }
    const re = new RegExp(flags.includes('F') ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern, flags.includes('i') ? 'i' : '');
    const text = files.length ? files.map((f) => sh.ctx.fs.read(sh.ctx.fs.resolve(f, sh.cwd)) ?? '').join('') : sh.readStdin();
    const lines = text.split('\n').filter((l, i, a) => i < a.length - 1 || l !== '');
    const hit = lines.filter((l) => re.test(l) !== flags.includes('v'));
    if (!flags.includes('q')) yield* sh.out(flags.includes('c') ? `${hit.length}\n` : hit.map((l) => l + '\n').join(''));
    return hit.length ? 0 : 1;
  },
  *wc(sh, args) {
    const files = args.filter((a) => !a.startsWith('-'));
    const [file] = files;
    const entry = file !== undefined ? sh.ctx.fs.stat(sh.ctx.fs.resolve(file, sh.cwd)) : undefined;
    const text = file !== undefined ? (entry?.type === 'file' ? entry.content : '') : sh.readStdin();
    // -c counts bytes: a file's as stored (UTF-16 or binary ones included), stdin's as UTF-8.
    const bytes = entry?.type === 'file' ? fileBytes(entry).length : Buffer.byteLength(text, 'utf8');
    const lines = (text.match(/\n/g) ?? []).length;
    const name = files.length ? ' ' + files[0] : '';
    yield* sh.out(args.includes('-l') ? `${lines}${name}\n` : args.includes('-c') ? `${bytes}${name}\n` : `${lines} ${text.split(/\s+/).filter(Boolean).length} ${text.length}\n`);
    return 0;
  },
  *read(sh, args) {
    const names = args.filter((a) => !a.startsWith('-'));
    const input = sh.readStdin();
    if (!input) return 1;
    const nl = input.indexOf('\n');
    const line = nl === -1 ? input : input.slice(0, nl);
    const parts = line.split(/\s+/);
    names.forEach((n, i) => sh.vars.set(n, i === names.length - 1 ? parts.slice(i).join(' ') : parts[i] ?? ''));
    return nl === -1 ? 1 : 0;
  },
  wait: noop,
  sync: noop,
  *kill(sh, args) { if (!args.length) { yield* sh.err('kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]'); return 2; } return 0; },
  *exec(sh, args) {
    if (!args.length) return 0;
    const st = yield* sh.command(args);
    throw new ExitSignal(st);
  },
  *sh(sh, args) { return yield* nested(sh, args, 'sh'); },
  *ash(sh, args) { return yield* nested(sh, args, 'ash'); },
  *bash(sh, args) { return yield* nested(sh, args, 'bash'); },
  *dash(sh, args) { return yield* nested(sh, args, 'dash'); },
};
BUILTINS['.'] = noop;
BUILTINS.source = noop;
BUILTINS.ulimit = noop;
BUILTINS.umask = noop;

/** `sh -c '...'` inside a script: a child shell with the exported environment. */
function* nested(parent: PosixShell, args: string[], name: string): Gen {
  const env = Object.fromEntries(parent.exportedEnv());
  const flavour: PosixFlavour = name === 'bash' ? 'bash' : name === 'dash' ? 'dash' : name === 'sh' ? parent.flavour === 'bash' ? 'ash' : parent.flavour : 'ash';
  const parsed = parseShellArgs(args);
  if (!parsed.script) { if (!parsed.script && !args.length) { yield { kind: 'forever' }; return 0; } }
  const child = new PosixShell({ ...parent.ctx, env, cwd: parent.cwd, stdin: parent.readStdin() }, flavour, parsed.arg0 ?? name);
  child.positional = parsed.positional;
  child.errexit = parsed.errexit;
  const src = parsed.script ?? parent.ctx.fs.read(parent.ctx.fs.resolve(parsed.file ?? '', parent.cwd));
  if (src === undefined) { yield* parent.err(`${name}: can't open '${parsed.file}': No such file or directory`); return 2; }
  // The child's output goes where the parent's does.
  const gen = child.script(src);
  let r = gen.next();
  try {
    while (!r.done) {
      const s = r.value;
      if (s.kind === 'stdout') yield* parent.write(1, s.text); else if (s.kind === 'stderr') yield* parent.write(2, s.text); else yield s;
      r = gen.next();
    }
    return r.value;
  } catch (e) { return child.exitCode(e); }
}

export interface ShellArgs { script?: string; file?: string; arg0?: string; positional: string[]; errexit: boolean }

/** `sh [-e] [-x] -c SCRIPT [NAME [ARGS...]]` or `sh FILE [ARGS]`. */
export function parseShellArgs(args: string[]): ShellArgs {
  const out: ShellArgs = { positional: [], errexit: false };
  let i = 0;
  let c = false;
  for (let a = args[i]; a !== undefined && (/^[-+][a-zA-Z]+$/.test(a) || a === '-o'); a = args[++i]) {
    if (a === '-o') { i++; if (args[i] === 'errexit') out.errexit = true; continue; }
    if (a.includes('c')) c = true;
    if (a.startsWith('-') && a.includes('e')) out.errexit = true;
  }
  if (args[i] === '--') i++;
  if (c) {
    out.script = args[i] ?? '';
    if (i + 1 < args.length) out.arg0 = args[i + 1];
    out.positional = args.slice(i + 2);
  } else if (i < args.length) {
    out.file = args[i];
    out.positional = args.slice(i + 1);
  }
  return out;
}

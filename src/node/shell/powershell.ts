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
import { newObject, staticMember } from './ps-dotnet.js';
import { containerProcesses, containerServices, dateTime, fileItem, formatDate, ipAddresses, lastWriteTime, measureInfo, processObject } from './ps-objects.js';
import {
  callMethod, collapse, display, enumerate, formatForHost, hashtable, list, member, PsBlocks, PsRuntimeError, PsWait, setMember, truthy,
  type PsObject, type Value,
} from './ps-values.js';
import { fileBytes } from './fs.js';
import { openOutFile, outFileDefault, writeOutFile } from './ps-out-file.js';
import { parseErrorView, reservedOperators } from './ps-parse-errors.js';
import { takePsRedirections, type PsRedirection, type PsStream } from './ps-redirection.js';
import { OUT_FILE_ENCODINGS_51, outFileEncoding, type TextEncoding } from './text-encoding.js';
import { awaitPending, fetchHttp, parseHttpUrl, resolveHost } from './http-client.js';
import { WINDOWS_CONNECT_TIMEOUT_MS, WINDOWS_REFUSED_MS } from './http-tools.js';
import type { PodNetAccess } from './net-types.js';
import { webResponseObject } from './ps-web.js';
import type { Pending } from './pending.js';
import type { ShellContext, Step } from './types.js';
import { ADAPTER_NAME, curl, echoAnswered, ipconfig, isLocalAddress, linkLocal, ping, pingTarget, resolveLocally, whoami } from './windows-net.js';
import { windowsNslookup } from './windows-nslookup.js';
import { resolveDnsName } from './ps-resolve-dnsname.js';

type Gen = Generator<Step, number, void>;
/**
 * Steps on stdout that are not success output: Write-Host's (the
 * information stream, 6) and warnings (3). Redirection sends each stream
 * its own way; every other stdout step is the success stream, stderr the
 * error stream.
 */
const HOST_WRITES = new WeakSet<Step>();
const WARNINGS = new WeakSet<Step>();
const tag = (set: WeakSet<Step>, step: Step): Step => { set.add(step); return step; };
/** stderr steps of native programs, with the name the program was invoked by. */
const NATIVE_ERRORS = new WeakMap<Step, string>();
/** The programs (not cmdlets) PowerShell runs here: their stderr is text, which redirection turns into error records. */
const NATIVE_PROGRAMS = new Set(['cmd', 'powershell', 'pwsh', 'nslookup', 'ping', 'ipconfig', 'timeout', 'hostname', 'tasklist', 'netstat']);
/** Where a redirected stream goes while its statement runs. */
type Route = { to: 'host' } | { to: 'null' } | { to: 'file'; abs: string; encoding: TextEncoding };
class PsExit extends Error { constructor(readonly code: number) { super(`exit ${code}`); } }

/** Cmdlets that emit objects (or take them from the pipeline): they run through the object pipeline even alone. */
const OBJECT_CMDLETS = new Set(['out-file', 'new-object', 'select-object', 'select', 'where-object', 'where', '?', 'foreach-object', 'foreach', '%',
  'measure-object', 'measure', 'sort-object', 'sort', 'get-process', 'gps', 'ps', 'get-service', 'gsv', 'get-netipaddress',
  'get-netadapter', 'out-string', 'get-date', 'test-netconnection', 'tnc', 'resolve-dnsname', 'invoke-webrequest', 'iwr', 'invoke-restmethod', 'irm']);

/**
 * Comments (`# ...` to the end of the line, `<# ... #>` blocks) blanked out,
 * keeping columns and line breaks for error positions.
 */
export function stripComments(src: string): string {
  let out = ''; let q: string | null = null;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (q) { out += c; if (c === '`' && i + 1 < src.length) out += src[++i]; else if (c === q) q = null; continue; }
    if (c === '"' || c === "'") { q = c; out += c; continue; }
    if (c === '<' && src[i + 1] === '#') {
      const end = src.indexOf('#>', i + 2);
      const stop = end === -1 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop - 1; continue;
    }
    if (c === '#' && (i === 0 || /[\s;]/.test(src.charAt(i - 1)))) {
      let j = i; while (j < src.length && src[j] !== '\n') j++;
      out += ' '.repeat(j - i); i = j - 1; continue;
    }
    out += c;
  }
  return out;
}

/**
 * One statement of the script with its column (1-based) on its line and that
 * line's text. `redirections`: how many characters of redirection operators
 * were taken off its end; a command's extent, which error records underline,
 * still covers them.
 */
interface Stmt { text: string; col: number; line: string; lineNo: number; redirections?: number }

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
      out.push({ text: raw.trim(), col: (ln === 0 ? baseCol : 1) + colInLine, line: lineText ?? (lines[ln] ?? '').replace(/\r$/, ''), lineNo: lineNo + ln });
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
  const open = s[i]; const close = open === '(' ? ')' : open === '[' ? ']' : '}';
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


export class PowerShell {
  readonly vars = new Map<string, Value>();
  readonly env = new Map<string, string>();
  private readonly envNames = new Map<string, string>();
  /** $? of the last statement. */
  ok = true;
  /** Where statements' output goes inside `(...)`, `$(...)` and script blocks of the pipeline; undefined: the host. */
  private sink: Value[] | undefined;
  /** The process id `$PID` and Get-Process show for this shell. */
  readonly pid = 5280;
  cwd: string;
  readonly ctx: ShellContext;
  /** How deep inside synchronously evaluated expressions (`(...)`, `$(...)`, script blocks) the script runs. */
  private syncDepth = 0;
  /**
   * The web exchanges of the statement being run, in the order it made
   * them: when the statement runs again after a wait, each exchange gets
   * its response from here instead of being sent again.
   */
  private replay: { exchanges: Pending<unknown>[]; next: number } | undefined;

  constructor(ctx: ShellContext, readonly version: 5 | 7 = 5) {
    this.ctx = ctx.net ? { ...ctx, net: this.replayingNet(ctx.net) } : ctx;
    for (const [k, v] of Object.entries(ctx.env)) this.setEnv(k, v);
    if (!this.env.has('COMPUTERNAME')) this.setEnv('COMPUTERNAME', ctx.hostname.toUpperCase());
    this.cwd = ctx.cwd ?? 'C:\\';
    this.vars.set('true', true); this.vars.set('false', false); this.vars.set('null', null);
  }

  /** The network as the script's commands use it: exchanges replayed when a statement runs again. */
  private replayingNet(net: PodNetAccess): PodNetAccess {
    return {
      podIP: net.podIP,
      resolve: (name) => net.resolve(name),
      lookup: (name) => net.lookup(name),
      ...(net.reverse ? { reverse: (ip: string) => net.reverse?.(ip) } : {}),
      ping: (ip) => net.ping(ip),
      listen: (port, accept, closed) => net.listen(port, accept, closed),
      connect: (ip, port) => {
        const c = net.connect(ip, port);
        if (c.kind !== 'connected') return c;
        return { ...c, exchange: (req) => this.replayed(() => c.exchange(req)) };
      },
    };
  }

  private replayed<T>(send: () => Pending<T>): Pending<T> {
    const r = this.replay;
    if (!r) return send();
    const done = r.exchanges[r.next];
    if (done) { r.next++; return done as Pending<T>; }
    const p = send();
    r.exchanges.push(p as Pending<unknown>);
    r.next++;
    return p;
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
    const code = stripComments(src);
    // Windows PowerShell parses the whole script first: a parse error runs none of it.
    const parseErrors = this.version === 5 ? reservedOperators(code) : [];
    if (parseErrors.length) { yield { kind: 'stderr', text: parseErrorView(src, parseErrors) }; this.ok = false; return 1; }
    try { yield* this.block(splitStatements(code)); } catch (e) { if (e instanceof PsExit) return e.code; throw e; }
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

  /**
   * One statement. A call that has to wait (HttpListener.GetContext before a
   * request came, a web response on its way) inside an expression abandons
   * the statement; it runs again once what it waited for is there. One that
   * waits for good (GetContext with no network) blocks the script here; a
   * .NET exception becomes an error record and the script goes on, as
   * PowerShell's non-terminating errors do.
   */
  private *statement(st: Stmt): Generator<Step, void, void> {
    // Only a statement the script runs step by step can wait; inside an expression the wait goes up to it.
    const waits = this.syncDepth === 0;
    const outer = this.replay;
    if (waits) this.replay = { exchanges: [], next: 0 };
    try {
      for (;;) {
        try {
          const compound = /^(while|if|for|foreach|try|do)\b/i.test(st.text);
          const parsed = compound || !st.text.includes('>') ? undefined : takePsRedirections(st.text);
          if (parsed?.redirections.length) yield* this.redirected(st, parsed.text, parsed.redirections);
          else yield* this.statementBody(st);
          return;
        } catch (e) {
          if (e instanceof PsWait && waits) {
            while (!e.on.settled) yield { kind: 'wait', on: e.on };
            this.replay!.next = 0;
            continue;
          }
          if (e instanceof PsBlocks) { yield { kind: 'forever' }; throw new PsExit(0); }
          if (e instanceof PsRuntimeError) { yield* this.runtimeError(st, e); this.ok = false; return; }
          throw e;
        }
      }
    } finally {
      if (waits) this.replay = outer;
    }
  }

  /**
   * A statement with redirections. Each file target is opened first, in
   * order, by the Out-File the operator runs (invoked as `out-file`); when
   * one cannot be opened its terminating error ends the statement before the
   * command runs. Then the command's streams go where the operators say:
   * `n>&1` follows the success stream wherever it goes. Errors that end a
   * statement (runtime exceptions) are not on its error stream and are not
   * redirected.
   */
  private *redirected(st: Stmt, text: string, redirections: PsRedirection[]): Generator<Step, void, void> {
    const routes = new Map<PsStream, Route>();
    const merged = new Set<PsStream>();
    const encoding = outFileDefault(this.version);
    for (const r of redirections) {
      if (r.kind === 'merge') { for (const s of r.streams) if (s !== 1) merged.add(s); continue; }
      const path = this.argValue(r.target);
      if (!path.trim()) { for (const s of r.streams) routes.set(s, { to: 'null' }); continue; }
      const abs = this.ctx.fs.resolve(path, this.cwd);
      const failed = openOutFile(this.ctx.fs, abs, r.append, encoding);
      if (failed) {
        yield* this.errorRecord(st, '', failed.message, 'OpenError', failed.exception, 'FileOpenFailure,Microsoft.PowerShell.Commands.OutFileCommand',
          'Out-File', st.col, st.text.length, '', 'out-file');
        this.ok = false;
        return;
      }
      for (const s of r.streams) routes.set(s, { to: 'file', abs, encoding });
    }
    const host: Route = { to: 'host' };
    const routeOf = (s: PsStream): Route => (merged.has(s) ? routes.get(1) ?? host : routes.get(s) ?? host);
    const errorsTaken = merged.has(2) || routes.has(2);
    let nativeErrors = 0;
    const g = this.statementBody({ ...st, text, redirections: st.text.length - text.length });
    for (let r = g.next(); !r.done; r = g.next()) {
      const step = r.value;
      if (step.kind !== 'stdout' && step.kind !== 'stderr') { yield step; continue; }
      const stream: PsStream = step.kind === 'stderr' ? 2 : HOST_WRITES.has(step) ? 6 : WARNINGS.has(step) ? 3 : 1;
      let text = step.text;
      const native = NATIVE_ERRORS.get(step);
      if (native !== undefined && errorsTaken) {
        // Redirected, a native program's stderr lines become error records: the first a
        // NativeCommandError with its position, the rest (NativeCommandErrorMessage) their text alone.
        text = textLines(step.text).map((line) => (nativeErrors++ === 0 ? this.nativeErrorRecord(st, native, line) : `${line}\r\n`)).join('');
      }
      const route = routeOf(stream);
      if (route.to === 'null') continue;
      if (route.to === 'host') {
        // A stream merged into the success stream is success output: the host writes it to stdout.
        yield merged.has(stream) && step.kind === 'stderr' ? { kind: 'stdout', text } : step;
        continue;
      }
      // Out-File writes each record as a line; a warning record's text is its message alone.
      if (stream === 3) text = text.replace(/^WARNING: /gm, '');
      if (stream === 6 && !text.endsWith('\n')) text += '\r\n';
      writeOutFile(this.ctx.fs, route.abs, text, route.encoding);
    }
    // In Windows PowerShell an error record on the error stream fails the statement ($? false).
    if (nativeErrors > 0 && this.version === 5) this.ok = false;
  }

  /** The NativeCommandError record of a native program's first redirected stderr line (5.1's NormalView; 7's ConciseView). */
  private nativeErrorRecord(st: Stmt, program: string, line: string): string {
    if (this.version === 7) return `${line}\r\n`;
    return `${program} : ${line}\r\nAt line:${st.lineNo} char:${st.col}\r\n+ ${st.line}\r\n+ ${' '.repeat(st.col - 1)}${'~'.repeat(st.text.length)}\r\n` +
      `    + CategoryInfo          : NotSpecified: (${ellipsize(line)}:String) [], RemoteException\r\n` +
      '    + FullyQualifiedErrorId : NativeCommandError\r\n \r\n';
  }

  /** A runtime (not cmdlet) error record: 5.1's NormalView, 7's ConciseView. */
  private *runtimeError(st: Stmt, e: PsRuntimeError): Generator<Step, void, void> {
    if (this.version === 7) {
      yield { kind: 'stderr', text: `${e.exceptionType === 'RuntimeException' ? e.category : e.exceptionType}: ${e.message}\r\n` };
      return;
    }
    yield {
      kind: 'stderr',
      text: `${e.message}\r\nAt line:${st.lineNo} char:${st.col}\r\n+ ${st.line}\r\n+ ${' '.repeat(st.col - 1)}${'~'.repeat(Math.max(1, st.text.length))}\r\n` +
        `    + CategoryInfo          : ${e.category}: (:) [], ${e.exceptionType}\r\n` +
        `    + FullyQualifiedErrorId : ${e.fqid}\r\n \r\n`,
    };
  }

  /** Sends values down the pipeline: to the enclosing `(...)`/script block, or formatted to the host. */
  private *emit(values: Value[]): Generator<Step, void, void> {
    if (this.sink) { this.sink.push(...values); return; }
    const text = formatForHost(values);
    if (text) yield { kind: 'stdout', text };
  }

  private *statementBody(st: Stmt): Generator<Step, void, void> {
    const t = st.text;
    const [, keyword] = /^(while|if|for|foreach|try|do)\b\s*/i.exec(t) ?? [];
    if (keyword !== undefined) { yield* this.compound(keyword.toLowerCase(), st); return; }
    const memberAssign = /^(\$[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.([A-Za-z_]\w*)\s*=\s*(?!=)(.*)$/s.exec(t);
    if (memberAssign) {
      const [, target = '', member = '', rhs = ''] = memberAssign;
      setMember(this.expr(target), member, yield* this.valueOf(rhs, st));
      this.ok = true; return;
    }
    const assign = /^\$(env:)?([A-Za-z_][\w]*)\s*(=|\+=|-=)\s*(.*)$/is.exec(t);
    const [, isEnv, name = '', op, rhs = ''] = assign ?? [];
    if (assign && !/^=/.test(rhs)) {
      const cur = isEnv ? this.env.get(name.toUpperCase()) ?? '' : this.vars.get(name.toLowerCase()) ?? 0;
      let v = yield* this.valueOf(rhs, st);
      if (op === '+=') {
        v = typeof cur === 'number' && typeof v === 'number' ? cur + v
          : Array.isArray(cur) ? [...cur, ...enumerate(v)] : `${display(cur ?? null)}${display(v)}`;
      }
      if (op === '-=') v = Number(cur) - Number(v);
      if (isEnv) this.setEnv(name, v === null ? '' : display(v)); else this.vars.set(name.toLowerCase(), v);
      this.ok = true; return;
    }
    const [, incName, incOp] = /^\$([A-Za-z_]\w*)(\+\+|--)$/.exec(t) ?? [];
    if (incName !== undefined) { const n = incName.toLowerCase(); this.vars.set(n, Number(this.vars.get(n) ?? 0) + (incOp === '++' ? 1 : -1)); this.ok = true; return; }
    const pipe = splitPipe(t);
    const head = (pipe[0] ?? '').trim();
    if (pipe.length === 1 && !isExpression(head) && !this.sink && !this.objectCmdlet(commandName(head))) {
      // A command alone writes its own output (Write-Host, native programs, the text cmdlets).
      const gen = this.command(head, st);
      const native = this.nativeProgram(head);
      let r = gen.next();
      while (!r.done) {
        if (native !== undefined && r.value.kind === 'stderr') NATIVE_ERRORS.set(r.value, native);
        yield r.value;
        r = gen.next();
      }
      this.ok = r.value;
      return;
    }
    const values = yield* this.pipeline(pipe, st);
    if (values !== undefined) yield* this.emit(values);
  }

  /** The name a native program (not a cmdlet) was invoked by, for the records its stderr lines become; undefined for cmdlets. */
  private nativeProgram(text: string): string | undefined {
    const typed = (/^[^\s(]+/.exec(text.trim())?.[0] ?? '').replace(/^["']|["']$/g, '');
    const base = typed.toLowerCase().replace(/^.*\\/, '');
    if (base === 'curl.exe' || (base === 'curl' && this.version === 7)) return typed;
    return NATIVE_PROGRAMS.has(base.replace(/\.exe$/, '')) ? typed : undefined;
  }

  /** Whether a command runs through the object pipeline even alone (`curl` is Invoke-WebRequest only in Windows PowerShell). */
  private objectCmdlet(name: string): boolean {
    if (name === 'curl' || name === 'wget') return this.version === 5;
    return OBJECT_CMDLETS.has(name);
  }

  /** The value of an assignment's right side: an expression, or a pipeline's output (one item, an array, or $null). */
  private *valueOf(rhs: string, st: Stmt): Generator<Step, Value, void> {
    const pipe = splitPipe(rhs.trim());
    if (pipe.length === 1 && isExpression((pipe[0] ?? '').trim())) return this.expr(rhs);
    const values = yield* this.pipeline(pipe, st);
    return collapse(values ?? []);
  }

  /**
   * An object pipeline: the first stage's output flows through the others.
   * Text commands in it contribute their output lines as strings. Undefined
   * when a stage failed (its error record is already written).
   */
  private *pipeline(stages: string[], st: Stmt): Generator<Step, Value[] | undefined, void> {
    let values: Value[] = [];
    for (const [i, stage] of stages.entries()) {
      const text = stage.trim();
      if (i === 0 && isExpression(text)) { values = enumerate(this.expr(text)); this.ok = true; continue; }
      const out = yield* this.objectCommand(text, values, i === 0, st);
      if (out === undefined) { this.ok = false; return undefined; }
      values = out;
    }
    this.ok = true;
    return values;
  }

  /** Runs a script block once per input object with `$_` set; its output values. */
  private scriptBlock(body: string, input: Value): Value[] {
    const saved = this.vars.get('_');
    this.vars.set('_', input); this.vars.set('psitem', input);
    try { return this.subValues(body); } finally { if (saved === undefined) this.vars.delete('_'); else this.vars.set('_', saved); }
  }

  /** The output values of statements run inside an expression (`(...)`, `$(...)`, `@(...)`, script blocks). */
  private subValues(src: string): Value[] {
    const saved = this.sink; const sink: Value[] = [];
    this.sink = sink;
    this.syncDepth++;
    try {
      const g = this.block(splitStatements(src));
      for (let r = g.next(), n = 0; !r.done; r = g.next(), n++) {
        if (r.value.kind === 'forever') throw new PsBlocks();
        if (r.value.kind === 'wait' && !r.value.on.settled) throw new PsWait(r.value.on);
        if (n > 100_000) break;
      }
    } finally { this.sink = saved; this.syncDepth--; }
    return sink;
  }

  /**
   * One command of an object pipeline, given the objects flowing in; its
   * output objects, or undefined after an error record. Commands that only
   * write text contribute their lines as strings.
   */
  private *objectCommand(text: string, input: Value[], first: boolean, st: Stmt): Generator<Step, Value[] | undefined, void> {
    const tokens = argTokens(text);
    const name = commandName(text);
    const args = tokens.slice(1);
    const flag = (n: string) => args.some((a) => a.toLowerCase() === `-${n}`);
    const param = (...names: string[]): string | undefined => {
      const i = args.findIndex((a) => names.some((n) => a.toLowerCase() === `-${n}`));
      return i === -1 ? undefined : args[i + 1];
    };
    const positional = args.filter((a, i) => {
      const before = args[i - 1];
      return !a.startsWith('-') && !(before?.startsWith('-') && !/^-(descending|unique|force|recurse|sum|average|maximum|minimum|quiet|informationlevel|usebasicparsing|disablekeepalive)$/i.test(before));
    });
    const block = (a: string | undefined) => (a && a.startsWith('{') ? balanced(a, 0).inner : undefined);
    switch (name) {
      case 'out-file': return yield* this.outFile(text, args, input, st);
      case 'new-object': {
        const type = param('typename') ?? positional[0] ?? '';
        const v = newObject(type, { net: this.ctx.net, now: this.ctx.now ?? (() => new Date()) });
        if (v === undefined) {
          yield* this.errorRecord(st, '', `Cannot find type [${type}]: verify that the assembly containing this type is loaded.`, 'InvalidType', 'PSArgumentException',
            'TypeNotFound,Microsoft.PowerShell.Commands.NewObjectCommand', 'New-Object', st.col, text.length);
          return undefined;
        }
        return [v];
      }
      case 'select-object': case 'select': {
        let out = input;
        const skip = param('skip'); if (skip) out = out.slice(Number(this.expr(skip)));
        const firstN = param('first'); if (firstN) out = out.slice(0, Number(this.expr(firstN)));
        const lastN = param('last'); if (lastN) out = out.slice(Math.max(0, out.length - Number(this.expr(lastN))));
        if (flag('unique')) out = out.filter((v, i) => out.findIndex((w) => display(w) === display(v)) === i);
        const expand = param('expandproperty');
        if (expand) return out.flatMap((v) => enumerate(member(v, String(this.expr(expand)))));
        const props = param('property') ?? positional[0];
        if (props) {
          const names = props.split(',').map((p) => String(this.expr(p.trim())));
          return out.map((v) => ({ kind: 'object', typeName: 'System.Management.Automation.PSCustomObject', props: Object.fromEntries(names.map((n) => [n, member(v, n)])) }) as Value);
        }
        return out;
      }
      case 'where-object': case 'where': case '?': {
        const body = block(param('filterscript') ?? args[0]);
        if (body !== undefined) return input.filter((v) => truthy(collapse(this.scriptBlock(body, v))));
        // Where-Object Name -eq value
        const [prop, op, value] = args;
        if (prop && op) return input.filter((v) => truthy(collapse(this.scriptBlock(`$_.${prop.replace(/^-property$/i, '')} ${op} ${value ?? '$true'}`, v))));
        return input;
      }
      case 'foreach-object': case 'foreach': case '%': {
        const body = block(param('process') ?? args[0]);
        if (body !== undefined) return input.flatMap((v) => this.scriptBlock(body, v));
        const m = param('membername') ?? args[0];
        return m ? input.flatMap((v) => enumerate(member(v, m))) : input;
      }
      case 'measure-object': case 'measure': {
        const prop = param('property') ?? positional[0];
        const nums = (prop ? input.map((v) => member(v, prop)) : input).filter((v) => v !== null).map(Number);
        const stat = (on: boolean, f: () => number) => (on ? f() : undefined);
        return [measureInfo(this.version, input.length, {
          sum: stat(flag('sum'), () => nums.reduce((a, b) => a + b, 0)),
          average: stat(flag('average'), () => nums.reduce((a, b) => a + b, 0) / (nums.length || 1)),
          maximum: stat(flag('maximum'), () => Math.max(...nums)),
          minimum: stat(flag('minimum'), () => Math.min(...nums)),
          property: prop,
        })];
      }
      case 'sort-object': case 'sort': {
        const prop = param('property') ?? positional[0];
        const key = (v: Value) => (prop ? member(v, prop) : v);
        const sorted = [...input].sort((a, b) => {
          const x = key(a); const y = key(b);
          return typeof x === 'number' && typeof y === 'number' ? x - y : display(x).toLowerCase().localeCompare(display(y).toLowerCase());
        });
        if (flag('descending')) sorted.reverse();
        return flag('unique') ? sorted.filter((v, i) => i === 0 || display(v) !== display(sorted[i - 1])) : sorted;
      }
      case 'out-string': return [formatForHost(input)];
      case 'get-date': {
        const now = (this.ctx.now ?? (() => new Date()))();
        const f = param('format');
        if (f !== undefined) return [formatDate(now, display(this.expr(f)))];
        const u = param('uformat');
        if (u !== undefined) return [display(this.expr(u)).replace(/%s/g, String(Math.floor(now.getTime() / 1000)))];
        return [dateTime(now)];
      }
      case 'get-process': case 'gps': case 'ps': {
        const procs = containerProcesses(this.version === 7 ? 'pwsh' : 'powershell', this.pid).map(processObject);
        const wanted = param('name') ?? positional[0];
        if (!wanted) return procs;
        const hit = procs.filter((p) => likeMatch(display(p.props.Name), wanted));
        if (!hit.length && !/[*?]/.test(wanted)) {
          yield* this.errorRecord(st, wanted, `Cannot find a process with the name "${wanted}". Verify the process name and call the cmdlet again.`, 'ObjectNotFound',
            'ProcessCommandException', 'NoProcessFoundForGivenName,Microsoft.PowerShell.Commands.GetProcessCommand', 'Get-Process', st.col, text.length);
          return undefined;
        }
        return hit;
      }
      case 'get-service': case 'gsv': {
        const all = containerServices();
        const wanted = param('name') ?? positional[0];
        if (!wanted) return all;
        const hit = all.filter((s) => likeMatch(display(s.props.Name), wanted) || likeMatch(display(s.props.DisplayName), wanted));
        if (!hit.length && !/[*?]/.test(wanted)) {
          yield* this.errorRecord(st, wanted, `Cannot find any service with service name '${wanted}'.`, 'ObjectNotFound', 'ServiceCommandException',
            'NoServiceFoundForGivenName,Microsoft.PowerShell.Commands.GetServiceCommand', 'Get-Service', st.col, text.length);
          return undefined;
        }
        return hit;
      }
      case 'get-netadapter': case 'get-netipaddress': {
        const ip = this.ctx.network?.podIP;
        const all = ipAddresses(ADAPTER_NAME, ip, ip ? linkLocal(ip).ll : undefined, ip ? linkLocal(ip).ifIndex : undefined, this.ctx.network?.prefixLength);
        if (name === 'get-netadapter') {
          return ip ? [{ kind: 'object', typeName: 'MSFT_NetAdapter', props: { Name: ADAPTER_NAME, InterfaceDescription: 'Hyper-V Virtual Ethernet Container Adapter', ifIndex: linkLocal(ip).ifIndex, Status: 'Up', MacAddress: linkLocal(ip).mac, LinkSpeed: '10 Gbps', __string: ADAPTER_NAME } }] : [];
        }
        // Piped adapters select their own addresses.
        return first ? all : all.filter((a) => input.some((ad) => display(member(ad, 'Name')) === display(a.props.InterfaceAlias)));
      }
      case 'resolve-dnsname': {
        const host = param('name') ?? positional[0] ?? '';
        if (this.ctx.net && resolveLocally(String(this.expr(host)), this.ctx) === undefined) {
          const r = resolveDnsName(String(this.expr(host)), this.ctx.net);
          if (r.kind === 'records') return r.records;
          yield* this.errorRecord(st, String(this.expr(host)), r.message, r.category, r.exception, r.fqid, 'Resolve-DnsName', st.col, text.length);
          return undefined;
        }
        const addr = resolveLocally(String(this.expr(host)), this.ctx);
        if (addr === undefined) {
          yield { kind: 'sleep', ms: 8000 };
          yield* this.errorRecord(st, host, `${host} : This operation returned because the timeout period expired`, 'OperationTimeout', 'Win32Exception',
            'ERROR_TIMEOUT,Microsoft.DnsClient.Commands.ResolveDnsName', 'Resolve-DnsName', st.col, text.length);
          return undefined;
        }
        return [{ kind: 'object', typeName: 'Microsoft.DnsClient.Commands.DnsRecord_A', props: { Name: host, Type: addr.includes(':') ? 'AAAA' : 'A', TTL: 1200, Section: 'Answer', IPAddress: addr, __string: host } }];
      }
      case 'invoke-webrequest': case 'iwr': case 'invoke-restmethod': case 'irm': case 'curl': case 'wget': {
        if (!this.objectCmdlet(name)) break;
        const uri = String(this.expr(param('uri') ?? positional[0] ?? ''));
        if (this.ctx.net) return yield* this.webRequest(name === 'invoke-restmethod' || name === 'irm' ? 'Invoke-RestMethod' : 'Invoke-WebRequest', uri, flag('usebasicparsing'), text, st);
        const target = /^(?:(https?):\/\/)?(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?/i.exec(uri);
        const host = target?.[2] ?? uri;
        const port = target?.[3] ?? (target?.[1]?.toLowerCase() === 'https' ? '443' : '80');
        const addr = resolveLocally(host, this.ctx);
        const cmdlet = name === 'invoke-restmethod' || name === 'irm' ? 'Invoke-RestMethod' : 'Invoke-WebRequest';
        const why = addr === undefined ? `The remote name could not be resolved: '${host}'` : 'Unable to connect to the remote server';
        yield { kind: 'sleep', ms: addr === undefined ? 10_000 : isLocalAddress(addr, this.ctx) ? 2000 : 21_000 };
        if (this.version === 7) {
          // .NET's HttpRequestException names the endpoint after the socket error.
          yield { kind: 'stderr', text: `${cmdlet}: ${addr === undefined ? 'No such host is known.' : 'A connection attempt failed because the connected party did not properly respond after a period of time, or established connection failed because connected host has failed to respond.'} (${host}:${port})\r\n` };
          return undefined;
        }
        yield* this.errorRecord(st, 'System.Net.HttpWebRequest', why, 'InvalidOperation', 'WebException',
          `WebCmdletWebResponseException,Microsoft.PowerShell.Commands.${cmdlet.replace('-', '')}Command`, cmdlet, st.col, text.length, 'HttpWebRequest');
        return undefined;
      }
      case 'test-netconnection': case 'tnc': {
        const host = String(this.expr(param('computername') ?? positional[0] ?? 'internetbeacon.msedge.net'));
        const port = param('port');
        const ip = this.ctx.network?.podIP ?? '';
        if (this.ctx.net && port !== undefined) return yield* this.tcpTest(host, Number(this.expr(port)), ip);
        const target = pingTarget(host, this.ctx);
        const addr = target?.addr;
        if (addr === undefined) {
          // Without the model no DNS server answers; with it, the answer (NXDOMAIN) comes at once.
          if (!this.ctx.net) yield { kind: 'sleep', ms: 8000 };
          yield tag(WARNINGS, { kind: 'stdout', text: `WARNING: Name resolution of ${host} failed\r\n` });
          return [{ kind: 'object', typeName: 'TestNetConnectionResult', props: { ComputerName: host, RemoteAddress: null, InterfaceAlias: null, SourceAddress: null, PingSucceeded: false }, view: tncView }];
        }
        const local = isLocalAddress(addr, this.ctx);
        if (port !== undefined) {
          yield { kind: 'sleep', ms: local ? 2000 : 21_000 };
          yield tag(WARNINGS, { kind: 'stdout', text: `WARNING: TCP connect to (${addr} : ${port}) failed\r\n` });
          return [{ kind: 'object', typeName: 'TestNetConnectionResult', props: { ComputerName: host, RemoteAddress: addr, RemotePort: Number(port), InterfaceAlias: ADAPTER_NAME, SourceAddress: ip, TcpTestSucceeded: false }, view: tncView }];
        }
        const answered = echoAnswered(addr, this.ctx);
        if (!answered) {
          yield { kind: 'sleep', ms: 4000 };
          yield tag(WARNINGS, { kind: 'stdout', text: `WARNING: Ping to ${addr} failed with status: TimedOut\r\n` });
        }
        return [{ kind: 'object', typeName: 'TestNetConnectionResult', props: { ComputerName: host, RemoteAddress: addr, InterfaceAlias: local && addr !== ip ? 'Loopback Pseudo-Interface 1' : ADAPTER_NAME, SourceAddress: local && addr !== ip ? addr : ip, PingSucceeded: answered, 'PingReplyDetails (RTT)': '0 ms' }, view: tncView }];
      }
      case 'get-childitem': case 'gci': case 'ls': case 'dir': {
        const p = param('path', 'literalpath') ?? positional[0] ?? '.';
        const abs = this.ctx.fs.resolve(String(this.expr(p)), this.cwd);
        const e = this.ctx.fs.stat(abs);
        if (!e || /^env:/i.test(p)) break;
        const now = (this.ctx.now ?? (() => new Date()))();
        const dir = e.type === 'dir' ? abs : abs.slice(0, abs.lastIndexOf('\\'));
        const names = e.type === 'dir' ? this.ctx.fs.list(abs) : [abs.slice(abs.lastIndexOf('\\') + 1)];
        return names.map((n) => {
          const ent = this.ctx.fs.stat(`${dir.replace(/\\$/, '')}\\${n}`);
          return fileItem(dir, n, ent?.type === 'dir' ? 'dir' : 'file', ent?.type === 'file' ? fileBytes(ent).length : 0, now);
        });
      }
      case 'get-content': case 'gc': case 'cat': case 'type': {
        const p = param('path', 'literalpath') ?? positional[0] ?? '';
        const e = this.ctx.fs.stat(this.ctx.fs.resolve(String(this.expr(p)), this.cwd));
        if (e?.type !== 'file') break;
        return e.content ? e.content.replace(/\r?\n$/, '').split(/\r?\n/) : [];
      }
      case 'test-path': {
        const p = param('path', 'literalpath') ?? positional[0] ?? '';
        return [!!this.ctx.fs.stat(this.ctx.fs.resolve(String(this.expr(p)), this.cwd))];
      }
      case 'write-output': case 'echo': case 'write':
        return args.filter((a) => !/^-noenumerate$/i.test(a)).flatMap((a) => enumerate(this.expr(a)));
      case 'out-null': return [];
    }
    // A text command: its output lines are strings in the pipeline.
    const lines: Value[] = [];
    const gen = this.command(text, st);
    const native = this.nativeProgram(text);
    let r = gen.next();
    while (!r.done) {
      if (r.value.kind === 'stdout' && !HOST_WRITES.has(r.value) && !WARNINGS.has(r.value)) lines.push(...textLines(r.value.text));
      else {
        if (native !== undefined && r.value.kind === 'stderr') NATIVE_ERRORS.set(r.value, native);
        yield r.value;
      }
      r = gen.next();
    }
    return r.value ? lines : lines.length ? lines : undefined;
  }

  /**
   * Out-File [-FilePath] <path> [[-Encoding] <name>] [-Append] [-NoClobber]
   * [-NoNewline] [-InputObject <x>]: writes its input as the host would show
   * it, in the version's default encoding unless told another. Its errors
   * are terminating ones raised while it opens the file (PathUtils.MasterStreamOpen)
   * or binds its parameters; undefined after one.
   */
  private *outFile(text: string, args: string[], input: Value[], st: Stmt): Generator<Step, Value[] | undefined, void> {
    let file: string | undefined; let encodingArg: string | undefined; let inputObject: Value | undefined;
    let append = false; let noClobber = false; let noNewline = false;
    const positional: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] ?? '';
      const [, param, inline] = /^-([A-Za-z]+)(?::(.+))?$/.exec(a) ?? [];
      if (param === undefined) { positional.push(a); continue; }
      const value = () => inline ?? args[++i] ?? '';
      const on = () => inline === undefined || truthy(this.expr(inline));
      switch (param.toLowerCase()) {
        case 'filepath': case 'path': case 'literalpath': case 'pspath': file = value(); break;
        case 'encoding': encodingArg = value(); break;
        case 'inputobject': inputObject = this.expr(value()); break;
        case 'width': value(); break;
        case 'append': append = on(); break;
        case 'noclobber': noClobber = on(); break;
        case 'nonewline': noNewline = on(); break;
      }
    }
    file ??= positional[0]; encodingArg ??= positional[1];
    const at = st.col + Math.max(0, st.text.indexOf(text));
    const fqid = (id: string) => `${id},Microsoft.PowerShell.Commands.OutFileCommand`;
    if (file === undefined) {
      yield* this.errorRecord(st, '', 'Cannot process command because of one or more missing mandatory parameters: FilePath.', 'InvalidArgument',
        'ParameterBindingException', fqid('MissingMandatoryParameter'), 'Out-File', at, text.length);
      return undefined;
    }
    let encoding = outFileDefault(this.version);
    if (encodingArg !== undefined) {
      const encName = this.argValue(encodingArg);
      const chosen = outFileEncoding(encName, this.version);
      if (chosen === undefined) {
        const message = this.version === 5
          ? `Cannot validate argument on parameter 'Encoding'. The argument "${encName}" does not belong to the set "${OUT_FILE_ENCODINGS_51}" specified by the ValidateSet attribute. Supply an argument that is in the set and then try the command again.`
          : `Cannot process argument transformation on parameter 'Encoding'. '${encName}' is not a supported encoding name. For information on defining a custom encoding, see the documentation for the Encoding.RegisterProvider method. (Parameter 'name')`;
        const argAt = st.col + Math.max(0, st.text.indexOf(encodingArg, at - st.col));
        yield* this.errorRecord(st, '', message, 'InvalidData', 'ParameterBindingValidationException', fqid('ParameterArgumentValidationError'), 'Out-File', argAt, encodingArg.length);
        return undefined;
      }
      encoding = chosen;
    }
    const abs = this.ctx.fs.resolve(this.argValue(file), this.cwd);
    if (noClobber && !append && this.ctx.fs.stat(abs)) {
      yield* this.errorRecord(st, abs, `File ${this.argValue(file)} already exists and NoClobber was specified.`, 'ResourceExists', 'IOException', fqid('NoClobber'),
        'Out-File', at, text.length);
      return undefined;
    }
    const failed = openOutFile(this.ctx.fs, abs, append, encoding);
    if (failed) {
      yield* this.errorRecord(st, '', failed.message, 'OpenError', failed.exception, fqid('FileOpenFailure'), 'Out-File', at, text.length);
      return undefined;
    }
    const items = inputObject !== undefined ? [inputObject] : input;
    const body = noNewline ? items.map(display).join('') : formatForHost(items);
    if (body) writeOutFile(this.ctx.fs, abs, body, encoding);
    return [];
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
          for (const s of stmts) { const g = this.statement(s); for (let r = g.next(); !r.done; r = g.next()) { if (r.value.kind === 'sleep' || r.value.kind === 'wait') slept = true; yield r.value; } }
          if (!slept && n >= 100) yield { kind: 'sleep', ms: 10 };
        }
        this.ok = true; return;
      }
      case 'for': {
        const head = balanced(t, i);
        // A missing part of `for (init; cond; step)` is empty: a missing condition is always true.
        const [init = '', cond = '', step = ''] = head.inner.split(';');
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
        const [, variable, list] = m ?? [];
        if (variable === undefined || list === undefined) return;
        for (const item of list.split(',').map((x) => this.expr(x.trim()))) {
          this.vars.set(variable.toLowerCase(), item);
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
        const loopWhile = m?.[1]?.toLowerCase() === 'while';
        do { yield* this.block(this.sub(body.inner, st, i + 1)); } while (m && truthy(this.expr(cond.inner)) === loopWhile);
        return;
      }
    }
  }

  /**
   * Invoke-WebRequest / Invoke-RestMethod through the cluster network. 5.1
   * without -UseBasicParsing parses the page with Internet Explorer's
   * engine, which Windows container images do not have: the response comes
   * and the cmdlet fails. A status of 400 or more is a WebException whose
   * message is the page (5.1); 7 says "Response status code does not
   * indicate success". Connect failures are .NET's (5.1: WebException's
   * "Unable to connect to the remote server" after Windows' connect
   * timing; 7: HttpRequestException's socket error and the endpoint).
   */
  private *webRequest(cmdlet: 'Invoke-WebRequest' | 'Invoke-RestMethod', uri: string, basic: boolean, text: string, st: Stmt): Generator<Step, Value[] | undefined, void> {
    const t = parseHttpUrl(uri);
    const fqid = (id: string) => `${id},Microsoft.PowerShell.Commands.${cmdlet.replace('-', '')}Command`;
    if (!t) {
      yield* this.errorRecord(st, '', `Invalid URI: The hostname could not be parsed.`, 'NotSpecified', 'UriFormatException', fqid('System.UriFormatException'), cmdlet, st.col, text.length);
      return undefined;
    }
    const build = /^10\.0\.(\d+)\.(\d+)/.exec(this.ctx.kernelVersion ?? '') ?? [];
    const agent = this.version === 5
      ? `Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.${build[1] ?? '17763'}.${build[2] ?? '1'}`
      : `Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.${build[1] ?? '17763'}; en-US) PowerShell/7.4.6`;
    const req = { method: 'GET', target: t.target, headers: [['User-Agent', agent], ['Host', t.hostHeader], ...(this.version === 5 ? [['Connection', 'Keep-Alive']] : [])] as [string, string][], body: new Uint8Array() };
    const outcome = yield* awaitPending(fetchHttp(this.ctx, t, req));
    if (outcome.kind !== 'response') {
      if (outcome.kind === 'refused') yield { kind: 'sleep', ms: WINDOWS_REFUSED_MS };
      if (outcome.kind === 'timeout') yield { kind: 'sleep', ms: WINDOWS_CONNECT_TIMEOUT_MS };
      if (this.version === 7) {
        const why = outcome.kind === 'unresolved' ? 'No such host is known.'
          : outcome.kind === 'reset' ? 'An error occurred while sending the request.'
          : outcome.kind === 'refused' ? 'No connection could be made because the target machine actively refused it.'
            : outcome.kind === 'tls' ? 'The SSL connection could not be established, see inner exception.'
              : 'A connection attempt failed because the connected party did not properly respond after a period of time, or established connection failed because connected host has failed to respond.';
        yield { kind: 'stderr', text: `${cmdlet}: ${why} (${t.host}:${t.port})\r\n` };
        return undefined;
      }
      const why = outcome.kind === 'unresolved' ? `The remote name could not be resolved: '${t.host}'`
        : outcome.kind === 'tls' ? 'The underlying connection was closed: An unexpected error occurred on a send.'
          : outcome.kind === 'reset' ? 'The underlying connection was closed: An unexpected error occurred on a receive.' : 'Unable to connect to the remote server';
      yield* this.errorRecord(st, 'System.Net.HttpWebRequest', why, 'InvalidOperation', 'WebException', fqid('WebCmdletWebResponseException'), cmdlet, st.col, text.length, 'HttpWebRequest');
      return undefined;
    }
    const res = outcome.response;
    const page = Buffer.from(res.body).toString('utf8');
    if (res.status >= 400) {
      const why = this.version === 7 ? `Response status code does not indicate success: ${res.status} (${res.reason}).` : page || `The remote server returned an error: (${res.status}) ${res.reason}.`;
      if (this.version === 7) { yield { kind: 'stderr', text: `${cmdlet}: ${page || why}\r\n` }; return undefined; }
      yield* this.errorRecord(st, 'System.Net.HttpWebRequest', why, 'InvalidOperation', 'WebException', fqid('WebCmdletWebResponseException'), cmdlet, st.col, text.length, 'HttpWebRequest');
      return undefined;
    }
    if (this.version === 5 && !basic && cmdlet === 'Invoke-WebRequest') {
      yield* this.errorRecord(st, '', 'The response content cannot be parsed because the Internet Explorer engine is not available, or Internet Explorer\'s first-launch configuration is not complete. Specify the UseBasicParsing parameter and try again.',
        'NotImplemented', 'NotSupportedException', fqid('WebCmdletIEDomNotSupportedException'), cmdlet, st.col, text.length);
      return undefined;
    }
    return cmdlet === 'Invoke-RestMethod' ? [page] : [webResponseObject(res, this.version)];
  }

  /** Test-NetConnection -Port through the cluster network: TcpTestSucceeded, or the warning and False after Windows' connect timing. */
  private *tcpTest(host: string, port: number, ip: string): Generator<Step, Value[] | undefined, void> {
    const addr = resolveHost(host, this.ctx);
    if (addr === undefined) {
      yield tag(WARNINGS, { kind: 'stdout', text: `WARNING: Name resolution of ${host} failed\r\n` });
      return [{ kind: 'object', typeName: 'TestNetConnectionResult', props: { ComputerName: host, RemoteAddress: null, InterfaceAlias: null, SourceAddress: null, PingSucceeded: false }, view: tncView }];
    }
    const conn = this.ctx.net!.connect(addr, port);
    if (conn.kind !== 'connected') {
      yield { kind: 'sleep', ms: conn.kind === 'refused' ? WINDOWS_REFUSED_MS : WINDOWS_CONNECT_TIMEOUT_MS };
      yield tag(WARNINGS, { kind: 'stdout', text: `WARNING: TCP connect to (${addr} : ${port}) failed\r\n` });
    }
    return [{ kind: 'object', typeName: 'TestNetConnectionResult', props: { ComputerName: host, RemoteAddress: addr, RemotePort: port, InterfaceAlias: ADAPTER_NAME, SourceAddress: ip, TcpTestSucceeded: conn.kind === 'connected' }, view: tncView }];
  }

  *output(text: string): Generator<Step, void, void> { yield { kind: 'stdout', text: text + '\r\n' }; }

  /**
   * A non-terminating error record on stderr. 5.1's NormalView starts with
   * the name the command was invoked by (`invocation`, the cmdlet's own
   * name unless it was called by another one, as redirection calls `out-file`).
   */
  *errorRecord(st: Stmt, target: string, message: string, category: string, exception: string, fqid: string, cmdlet: string, at = st.col, len = target.length,
    targetType = target ? 'String' : '', invocation = cmdlet || target): Generator<Step, void, void> {
    if (st.redirections && at - st.col + len >= st.text.length) len += st.redirections;
    if (this.version === 7) {
      yield { kind: 'stderr', text: `${cmdlet || target}: ${message}\r\n` };
      return;
    }
    yield {
      kind: 'stderr',
      text: `${invocation} : ${message}\r\nAt line:${st.lineNo} char:${at}\r\n+ ${st.line}\r\n+ ${' '.repeat(at - 1)}${'~'.repeat(Math.max(1, len))}\r\n` +
        `    + CategoryInfo          : ${category}: (${ellipsize(target)}:${targetType}) [${cmdlet}], ${exception}\r\n` +
        `    + FullyQualifiedErrorId : ${fqid}\r\n \r\n`,
    };
  }

  private *command(text: string, st: Stmt): Generator<Step, boolean, void> {
    const tokens = argTokens(text);
    // `Write-Host('x')`: the name ends where the parenthesized argument starts.
    const [, callee, callArgs] = /^([A-Za-z][\w.-]*)(\(.*)$/s.exec(tokens[0] ?? '') ?? [];
    if (callee !== undefined && callArgs !== undefined) tokens.splice(0, 1, callee, callArgs);
    // A statement holds at least one token; none is a command without a name.
    const [rawName = '', ...rawArgs] = tokens;
    const name = rawName.replace(/^["']|["']$/g, '');
    const base = name.toLowerCase().replace(/^.*\\/, '');
    // In Windows PowerShell `curl` is Invoke-WebRequest; `curl.exe` is the program.
    const lower = base === 'curl.exe' && this.version === 5 ? 'curl.exe' : base.replace(/\.exe$/, '') === 'curl' && this.version === 7 ? 'curl.exe' : base.replace(/\.exe$/, '');
    const named = (names: string[]): string | undefined => {
      const i = rawArgs.findIndex((a) => names.some((n) => a.toLowerCase() === `-${n}` || a.toLowerCase().startsWith(`-${n}:`)));
      const a = rawArgs[i];
      if (a === undefined) return undefined;
      const colon = a.indexOf(':');
      if (colon !== -1 && colon < a.length - 1 && a.startsWith('-')) return String(this.expr(a.slice(colon + 1)) ?? '');
      return String(this.expr(rawArgs[i + 1] ?? '') ?? '');
    };
    const positional = (skip: string[]): string[] => {
      const out: string[] = [];
      for (let i = 0, a = rawArgs[0]; a !== undefined; a = rawArgs[++i]) {
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
        yield tag(HOST_WRITES, { kind: 'stdout', text: text2 + (noNl ? '' : '\r\n') });
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
      case 'exit': throw new PsExit(rawArgs[0] !== undefined ? Number(this.expr(rawArgs[0])) | 0 : this.ok ? 0 : 1);
      case 'hostname': yield* this.output(this.ctx.hostname); return true;
      case 'whoami': yield* this.output(whoami(this.env)); return true;
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
        const [, envName] = /^env:\\?(.+)$/i.exec(p) ?? [];
        if (envName !== undefined) {
          const hit = this.envList().filter(([k]) => k.toUpperCase() === envName.toUpperCase());
          if (!hit.length) {
            yield* this.errorRecord(st, envName, `Cannot find path '${envName}' because it does not exist.`, 'ObjectNotFound', 'ItemNotFoundException',
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
          const len = ent?.type === 'file' ? String(fileBytes(ent).length) : '';
          return `${ent?.type === 'dir' ? 'd-----' : '-a----'}${lastWriteTime(now).padStart(28)}${len.padStart(15)} ${n}`;
        });
        yield { kind: 'stdout', text: `\r\n\r\n    Directory: ${dir}\r\n\r\n\r\nMode                 LastWriteTime         Length Name\r\n----                 -------------         ------ ----\r\n${rows.join('\r\n')}\r\n\r\n\r\n` };
        return true;
      }
      case 'test-path': {
        const p = named(['path', 'literalpath']) ?? positional([])[0] ?? '';
        yield* this.output(this.ctx.fs.stat(this.ctx.fs.resolve(p, this.cwd)) ? 'True' : 'False');
        return true;
      }
      case 'new-item': case 'set-content': case 'add-content': {
        const p = named(['path']) ?? positional(['-force'])[0] ?? '';
        const v = named(['value']) ?? '';
        const abs = this.ctx.fs.resolve(p, this.cwd);
        const dirType = /directory/i.test(named(['itemtype']) ?? '');
        const r = dirType ? this.ctx.fs.mkdir(abs) : this.ctx.fs.write(abs, v ? v + '\r\n' : '', lower === 'add-content');
        if (r === 'ok' || r === 'exists') return true;
        // The provider's exception, as each cmdlet wraps it.
        const [cmdlet, command, writerError] = lower === 'new-item' ? ['New-Item', 'NewItemCommand', 'NewItem']
          : lower === 'add-content' ? ['Add-Content', 'AddContentCommand', 'GetContentWriter'] : ['Set-Content', 'SetContentCommand', 'GetContentWriter'];
        if (r === 'no-dir') {
          yield* this.errorRecord(st, abs, `Could not find a part of the path '${abs}'.`, lower === 'new-item' ? 'WriteError' : 'ObjectNotFound', 'DirectoryNotFoundException',
            `${lower === 'new-item' ? 'NewItemIOError' : 'GetContentWriterDirectoryNotFoundError'},Microsoft.PowerShell.Commands.${command}`, cmdlet, st.col, text.length);
          return false;
        }
        yield* this.errorRecord(st, abs, `Access to the path '${abs}' is denied.`, 'PermissionDenied', 'UnauthorizedAccessException',
          `${writerError}UnauthorizedAccessError,Microsoft.PowerShell.Commands.${command}`, cmdlet, st.col, text.length);
        return false;
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
      case 'ping': {
        const code = yield* ping(rawArgs.map((a) => this.argValue(a)), this.ctx, (t) => this.output(t.replace(/\r\n$/, '')));
        this.vars.set('lastexitcode', code);
        return code === 0;
      }
      case 'ipconfig': yield { kind: 'stdout', text: ipconfig(rawArgs.map((a) => this.argValue(a)), this.ctx) }; this.vars.set('lastexitcode', 0); return true;
      case 'nslookup': {
        const code = yield* windowsNslookup(rawArgs.map((a) => this.argValue(a)), this.ctx, function* (t) { yield { kind: 'stdout', text: t }; }, function* (t) { yield { kind: 'stderr', text: t }; });
        this.vars.set('lastexitcode', code);
        return code === 0;
      }
      case 'curl.exe': {
        const code = yield* curl(rawArgs.map((a) => this.argValue(a)), this.ctx, function* (t) { yield { kind: 'stdout', text: t }; }, function* (t) { yield { kind: 'stderr', text: t }; });
        this.vars.set('lastexitcode', code);
        return code === 0;
      }
      case 'timeout': case 'hostname.exe': case 'tasklist': case 'netstat': {
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
      const op = (/\s-(eq|ne|lt|le|gt|ge|like|match)\s/i.exec(s)?.[1] ?? '').toLowerCase();
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
    const plus = splitOp(s, /\s?\+\s?(?!\+|=)/);
    if (plus && plus[0].trim() && !/[-+*/=]$/.test(plus[0].trim())) {
      const l = this.expr(plus[0]); const r = this.expr(plus[1]);
      if (typeof l === 'number') return l + Number(r);
      if (Array.isArray(l)) return [...l, ...enumerate(r)];
      return `${display(l)}${display(r)}`;
    }
    const fmt = splitOp(s, /\s-f\s/i);
    if (fmt) return formatOperator(display(this.expr(fmt[0])), enumerate(this.expr(fmt[1])));
    const items = splitTopLevel(s, ',');
    if (items.length > 1) return items.map((i) => this.expr(i));
    if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
    const post = this.postfix(s);
    if (post) return post.value;
    if (s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
    if (s.startsWith('"') && s.endsWith('"')) return this.interpolate(s.slice(1, -1));
    if (s.startsWith('$(') && s.endsWith(')')) return this.capture(s.slice(2, -1));
    if (s.startsWith('(') && s.endsWith(')')) return this.expr(s.slice(1, -1));
    const [, isEnv, varName] = /^\$(env:)?([A-Za-z_]\w*)$/i.exec(s) ?? [];
    if (varName !== undefined) return isEnv ? this.env.get(varName.toUpperCase()) ?? null : this.vars.get(varName.toLowerCase()) ?? null;
    if (/^\[environment\]::machinename$/i.test(s)) return this.ctx.hostname.toUpperCase();
    if (/^\[environment\]::getenvironmentvariable\(/i.test(s)) { const a = /\(\s*(.+?)\s*\)$/.exec(s); return this.env.get(String(this.expr(a?.[1] ?? '')).toUpperCase()) ?? null; }
    return s;
  }

  /** Output of a `$(...)` subexpression in a string: the items joined by spaces. */
  private capture(src: string): string {
    return this.subValues(src).map(display).join(' ');
  }

  /**
   * A primary expression and its member accesses, method calls and indexes:
   * `$listener.Prefixes.Add('http://*:80/')`, `(Get-ChildItem).Count`,
   * `$ip[1].IPAddress`, `[System.Text.Encoding]::UTF8.GetBytes($s)`, `@{}`.
   * Undefined when `s` is not one (the caller falls back to a bare word).
   */
  private postfix(s: string): { value: Value } | undefined {
    let v: Value; let i: number;
    const host = { hostname: this.ctx.hostname, now: this.ctx.now ?? (() => new Date()) };
    if (s.startsWith('@{')) { const b = balanced(s, 1); v = this.hashLiteral(b.inner); i = b.end; }
    else if (s.startsWith('@(')) { const b = balanced(s, 1); v = this.subValues(b.inner); i = b.end; }
    else if (s.startsWith('$(')) { const b = balanced(s, 1); v = collapse(this.subValues(b.inner)); i = b.end; }
    else if (s[0] === '(') { const b = balanced(s, 0); v = collapse(this.subValues(b.inner)); i = b.end; }
    else if (s[0] === '[') {
      const b = balanced(s, 0);
      const [staticText, staticName] = /^::([A-Za-z_]\w*)/.exec(s.slice(b.end)) ?? [];
      if (staticText === undefined || staticName === undefined) return undefined;
      i = b.end + staticText.length;
      let args: Value[] | undefined;
      if (s[i] === '(') { const a = balanced(s, i); args = this.argList(a.inner); i = a.end; }
      const r = staticMember(b.inner.trim(), staticName, args, host);
      if (r === undefined) {
        throw new PsRuntimeError(`Unable to find type [${b.inner.trim()}].`, 'TypeNotFound', 'InvalidOperation', 'RuntimeException');
      }
      v = r;
    } else if (s[0] === "'" || s[0] === '"') {
      const end = stringEnd(s);
      if (end === undefined) return undefined;
      const body = s.slice(1, end - 1);
      v = s[0] === "'" ? body.replace(/''/g, "'") : this.interpolate(body);
      i = end;
    } else {
      const [varText, isEnv, varName] = /^\$(env:)?([A-Za-z_]\w*|_)/i.exec(s) ?? [];
      if (varText === undefined || varName === undefined) return undefined;
      if (varName.toLowerCase() === 'pid' && !isEnv) v = this.pid;
      else v = isEnv ? this.env.get(varName.toUpperCase()) ?? null : this.vars.get(varName.toLowerCase()) ?? null;
      i = varText.length;
    }
    while (i < s.length) {
      if (s[i] === '.' && /[A-Za-z_]/.test(s[i + 1] ?? '')) {
        // The test above saw a name start after the dot.
        const [memberText = '.', memberName = ''] = /^\.([A-Za-z_]\w*)/.exec(s.slice(i)) ?? [];
        i += memberText.length;
        if (s[i] === '(') {
          const a = balanced(s, i);
          v = callMethod(v, memberName, this.argList(a.inner));
          i = a.end;
        } else v = member(v, memberName);
      } else if (s[i] === '[') {
        const b = balanced(s, i);
        const idx = this.expr(b.inner);
        const arr = enumerate(v);
        v = typeof idx === 'number' ? arr[idx < 0 ? arr.length + idx : idx] ?? null : member(v, display(idx));
        i = b.end;
      } else return undefined;
    }
    return { value: v };
  }

  /** A method's argument list: comma-separated expressions. */
  private argList(src: string): Value[] {
    return src.trim() ? splitTopLevel(src, ',').map((a) => this.expr(a)) : [];
  }

  /** `@{ a = 1; b = 'x' }`. */
  private hashLiteral(src: string): Value {
    const h = hashtable();
    for (const st of splitStatements(src)) {
      const [, , key, value] = /^(['"]?)([^=]+?)\1\s*=\s*(.*)$/s.exec(st.text) ?? [];
      if (key !== undefined && value !== undefined) h.entries.set(`s:${key.trim().toLowerCase()}`, { key: key.trim(), value: this.expr(value) });
    }
    return h;
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

/** Whether a pipeline's first element is an expression rather than a command. */
function isExpression(head: string): boolean {
  return /^[$"'(\d[@-]/.test(head) && !/^-[A-Za-z]/.test(head);
}

/** The lower-cased command name of a command text (`Write-Host('x')` → write-host). */
function commandName(text: string): string {
  return (/^[^\s(]+/.exec(text.trim())?.[0] ?? '').replace(/^["']|["']$/g, '').toLowerCase();
}

/** A command's text output as pipeline strings, one per line. */
function textLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** -like matching: `*` and `?` wildcards, case-insensitive. */
function likeMatch(s: string, pattern: string): boolean {
  return new RegExp('^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 'i').test(s);
}

/** ErrorCategoryInfo.Ellipsize of Windows PowerShell 5.1: over 40 characters, the first and last 15 around `...`. */
function ellipsize(s: string): string {
  return s.length <= 40 ? s : `${s.slice(0, 15)}...${s.slice(-15)}`;
}

/** Test-NetConnection's default view: a list of the properties it set. */
const tncView = (group: PsObject[]) => group.map((o) => list(o, Object.keys(o.props))).join('');

const format = (v: Value): string => display(v);

/** Get-ChildItem Env: as Format-Table lays out DictionaryEntry: Name in a 30-wide column. */
export function envTable(entries: [string, string][]): string {
  const w = Math.max(30, ...entries.map(([k]) => k.length + 1));
  const rows = entries.map(([k, v]) => `${k.padEnd(w)} ${v}`.trimEnd());
  return `\r\n${'Name'.padEnd(w)} Value\r\n${'----'.padEnd(w)} -----\r\n${rows.join('\r\n')}\r\n\r\n`;
}

/**
 * The script of `powershell|pwsh [-NoProfile] [-NonInteractive]
 * [-ExecutionPolicy X] -Command ...` (the rest joined by spaces). Without
 * -Command, positional arguments are the command (5.1's default). Undefined
 * for a bare `powershell` (an interactive shell with no stdin: it exits).
 */
export function psScript(args: string[]): string | undefined {
  let i = 0;
  for (let arg = args[0]; arg !== undefined; arg = args[++i]) {
    const a = arg.toLowerCase();
    if (['-command', '-c', '/c', '-com', '-comm'].includes(a)) { i++; break; }
    if (['-executionpolicy', '-ep', '-ex', '-exec', '-windowstyle', '-outputformat', '-inputformat', '-workingdirectory', '-wd'].includes(a)) { i++; continue; }
    if (a.startsWith('-')) continue;
    break;
  }
  if (i >= args.length) return undefined;
  return args.slice(i).join(' ');
}

/** Splits at a separator outside quotes and brackets. */
function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = []; let depth = 0; let q: string | null = null; let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) { if (c === '`') { i++; continue; } if (c === q) q = null; continue; }
    if (c === '"' || c === "'") { q = c; continue; }
    if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
    else if (depth === 0 && c === sep) { out.push(s.slice(start, i).trim()); start = i + 1; }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** The index just after the string literal that starts `s`, or undefined when it does not close. */
function stringEnd(s: string): number | undefined {
  const q = s[0];
  for (let i = 1; i < s.length; i++) {
    if (q === '"' && s[i] === '`') { i++; continue; }
    if (s[i] === q) { if (s[i + 1] === q) { i++; continue; } return i + 1; }
  }
  return undefined;
}

/** The -f operator: `{0}`, `{1,5}`, `{0:N2}` (alignment honoured, format strings beyond it ignored), `{{`/`}}`. */
export function formatOperator(fmt: string, args: Value[]): string {
  return fmt.replace(/\{\{|\}\}|\{(\d+)(?:,(-?\d+))?(?::[^}]*)?\}/g, (m, n?: string, align?: string) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const text = display(args[Number(n)] ?? null);
    if (!align) return text;
    const w = Number(align);
    return w < 0 ? text.padEnd(-w) : text.padStart(w);
  });
}

/**
 * cmd.exe as Windows container command lines use it: `cmd /c "..."`,
 * `cmd.exe /S /C ...`, with `&`, `&&`, `||` and `%VAR%` expanded once per
 * line before it runs, as cmd does (an undefined `%X%` stays literal).
 * Output lines end in CRLF, as cmd writes them.
 * Unknown command: `'foo' is not recognized as an internal or external
 * command,\r\noperable program or batch file.` and ERRORLEVEL 9009.
 */
import { bsdtar, windowsHasTar } from './bsdtar.js';
import { parseSleep } from './posix.js';
import { PowerShell, psScript } from './powershell.js';
import { takeRedirections } from './cmd-redirect.js';
import { fileBytes } from './fs.js';
import type { ShellContext, Step } from './types.js';
import { containerProcesses } from './ps-objects.js';
import { curl, ipconfig, netstat, ping, whoami } from './windows-net.js';
import { windowsNslookup } from './windows-nslookup.js';

type Gen = Generator<Step, number, void>;
/** `exit`: unwinds the script to its caller with the code (an Error so that only Errors are thrown). */
class CmdExit extends Error { constructor(readonly code: number) { super(`exit ${code}`); } }

export const CMD_NOT_RECOGNIZED = (name: string) =>
  `'${name}' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n`;

type Seg = { op: '' | '&' | '&&' | '||'; text: string };
/** Where a standard handle of a command points: the console's stream, nul, or a file. */
type Handle = { kind: 'console'; stream: 'stdout' | 'stderr' } | { kind: 'nul' } | { kind: 'file'; abs: string };

/** Splits a line on unquoted &, &&, || (a `^` escapes the next character; the `&` of a `>&n` redirection is not a separator). */
function splitLine(line: string): Seg[] {
  const segs: Seg[] = [];
  let cur = ''; let op: Seg['op'] = ''; let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') q = !q;
    if (!q && c === '^' && i + 1 < line.length) { cur += line[++i]; continue; }
    if (!q && ((c === '&' && line[i - 1] !== '>') || (c === '|' && line[i + 1] === '|'))) {
      segs.push({ op, text: cur });
      if (line[i + 1] === c) { op = (c + c) as Seg['op']; i++; } else op = '&';
      cur = ''; continue;
    }
    cur += c;
  }
  segs.push({ op, text: cur });
  return segs;
}

export class CmdShell {
  readonly env = new Map<string, string>(); // keys upper-cased; names keeps the case as set
  private readonly names = new Map<string, string>();
  errorlevel = 0;
  cwd: string;

  constructor(readonly ctx: ShellContext) {
    for (const [k, v] of Object.entries(ctx.env)) this.setVar(k, v);
    if (!this.env.has('COMPUTERNAME')) this.setVar('COMPUTERNAME', ctx.hostname.toUpperCase());
    this.cwd = ctx.cwd ?? 'C:\\';
  }

  setVar(k: string, v: string): void {
    if (v === '') { this.env.delete(k.toUpperCase()); this.names.delete(k.toUpperCase()); return; }
    this.env.set(k.toUpperCase(), v); if (!this.names.has(k.toUpperCase())) this.names.set(k.toUpperCase(), k);
  }
  vars(): [string, string][] {
    return [...this.env].map(([k, v]) => [this.names.get(k) ?? k, v] as [string, string])
      .sort(([a], [b]) => (a.toUpperCase() < b.toUpperCase() ? -1 : 1));
  }

  /** `%VAR%` expansion of a whole line (cmd's phase 1); `%ERRORLEVEL%` and `%CD%` are dynamic. */
  expand(line: string): string {
    return line.replace(/%([^%\s=]+)%/g, (m, name: string) => {
      const up = name.toUpperCase();
      if (this.env.has(up)) return this.env.get(up)!;
      if (up === 'ERRORLEVEL') return String(this.errorlevel);
      if (up === 'CD') return this.cwd;
      if (up === 'DATE') return windowsDate(this.now());
      if (up === 'TIME') return windowsTime(this.now());
      return m;
    });
  }

  now(): Date { return (this.ctx.now ?? (() => new Date()))(); }

  /** Runs one line; throws CmdExit on `exit`. */
  *line(src: string): Gen {
    for (const seg of splitLine(this.expand(src))) {
      if ((seg.op === '&&' && this.errorlevel !== 0) || (seg.op === '||' && this.errorlevel === 0)) continue;
      this.errorlevel = yield* this.command(seg.text);
    }
    return this.errorlevel;
  }

  *program(src: string): Generator<Step, void, void> {
    let code: number;
    try { code = yield* this.line(src); } catch (e) { if (!(e instanceof CmdExit)) throw e; code = e.code; }
    yield { kind: 'exit', code };
  }

  *command(text: string): Gen {
    const { text: bare, redirections } = takeRedirections(text);
    // Where handles 1 and 2 point while the command runs, set up left to right as cmd does.
    const handles: Record<1 | 2, Handle> = { 1: { kind: 'console', stream: 'stdout' }, 2: { kind: 'console', stream: 'stderr' } };
    const send = function* (this: CmdShell, h: Handle, s: string): Generator<Step, void, void> {
      if (!s) return;
      if (h.kind === 'console') yield { kind: h.stream, text: s };
      else if (h.kind === 'file') this.ctx.fs.write(h.abs, s, true);
    }.bind(this);
    for (const r of redirections) {
      const fd = r.fd;
      if (fd !== 1 && fd !== 2) continue;
      if (r.op === '>&') {
        const from = Number(r.target);
        if (from === 1 || from === 2) handles[fd] = handles[from];
        continue;
      }
      if (/^nul$/i.test(r.target)) { handles[fd] = { kind: 'nul' }; continue; }
      // cmd.exe opens (creates or truncates) each target before it runs the command; when that
      // fails it reports the Win32 error on its error handle and the command does not run.
      const abs = this.ctx.fs.resolve(r.target, this.cwd);
      const opened = this.ctx.fs.write(abs, '', r.op === '>>');
      if (opened !== 'ok') {
        yield* send(handles[2], opened === 'no-dir' ? 'The system cannot find the path specified.\r\n' : 'Access is denied.\r\n');
        return 1;
      }
      handles[fd] = { kind: 'file', abs };
    }
    const m = /^\s*(@?)(\S*)/.exec(bare)!;
    const raw = m[2] ?? '';
    const name = raw.replace(/^"|"$/g, '');
    const after = bare.slice(m[0].length);
    const args = after.trim().split(/\s+/).filter(Boolean);
    const lower = name.toLowerCase().replace(/\.exe$/, '').replace(/^.*\\/, '');
    const out = (s: string) => send(handles[1], s);
    const err = (s: string) => send(handles[2], s);
    /** A child program's output, through this command's handles. */
    const through = function* (g: Generator<Step, number, void>): Gen {
      for (let r = g.next(); ; r = g.next()) {
        if (r.done) return r.value;
        if (r.value.kind === 'stdout') yield* out(r.value.text);
        else if (r.value.kind === 'stderr') yield* err(r.value.text);
        else yield r.value;
      }
    };
    if (!name) return this.errorlevel;
    if (/^echo[.:]/i.test(name)) { yield* out(after.replace(/^\s/, '') + name.slice(5) + '\r\n'); return 0; }
    switch (lower) {
      case 'echo': {
        const rest = after.replace(/^\s/, '');
        if (!rest.trim()) { yield* out('ECHO is on.\r\n'); return 0; }
        if (/^(on|off)\s*$/i.test(rest)) return 0;
        yield* out(rest + '\r\n');
        return 0;
      }
      case 'rem': case 'cls': case 'title': case 'setlocal': case 'endlocal': case 'chcp': return 0;
      case 'set': {
        const rest = after.trim().replace(/^"(.*)"$/, '$1');
        if (!rest) { yield* out(this.vars().map(([k, v]) => `${k}=${v}\r\n`).join('')); return 0; }
        const eq = rest.indexOf('=');
        if (eq === -1) {
          const hits = this.vars().filter(([k]) => k.toUpperCase().startsWith(rest.toUpperCase()));
          if (!hits.length) { yield* err(`Environment variable ${rest} not defined\r\n`); return 1; }
          yield* out(hits.map(([k, v]) => `${k}=${v}\r\n`).join(''));
          return 0;
        }
        this.setVar(rest.slice(0, eq), rest.slice(eq + 1));
        return 0;
      }
      case 'hostname': yield* out(this.ctx.hostname + '\r\n'); return 0;
      case 'whoami': yield* out(`${whoami(this.env)}\r\n`); return 0;
      case 'ver': yield* out(`\r\nMicrosoft Windows [Version ${this.ctx.kernelVersion ?? '10.0.17763.6659'}]\r\n`); return 0;
      case 'cd': case 'chdir': {
        if (!args.length) { yield* out(this.cwd + '\r\n'); return 0; }
        const abs = this.ctx.fs.resolve(args.filter((a) => !/^\/d$/i.test(a)).join(' ').replace(/"/g, ''), this.cwd);
        if (this.ctx.fs.stat(abs)?.type !== 'dir') { yield* err('The system cannot find the path specified.\r\n'); return 1; }
        this.cwd = abs; return 0;
      }
      case 'type': {
        let code = 0;
        for (const a of args) {
          const abs = this.ctx.fs.resolve(a.replace(/"/g, ''), this.cwd);
          const e = this.ctx.fs.stat(abs);
          if (!e) { yield* err('The system cannot find the file specified.\r\n'); code = 1; continue; }
          if (e.type === 'dir') { yield* err('Access is denied.\r\n'); code = 1; continue; }
          if (args.length > 1) yield* err(`\r\n${a}\r\n\r\n\r\n`);
          yield* out(e.content);
        }
        return code;
      }
      case 'dir': {
        const bare = args.some((a) => /^\/b$/i.test(a));
        const target = this.ctx.fs.resolve((args.find((a) => !a.startsWith('/')) ?? '.').replace(/"/g, ''), this.cwd);
        const e = this.ctx.fs.stat(target);
        if (!e) { if (!bare) yield* out(dirHeader()); yield* err('File Not Found\r\n'); return 1; }
        const names = e.type === 'dir' ? this.ctx.fs.list(target) : [target.slice(target.lastIndexOf('\\') + 1)];
        const dir = e.type === 'dir' ? target : target.slice(0, target.lastIndexOf('\\')) || target.slice(0, 3);
        if (bare) { yield* out(names.map((n) => n + '\r\n').join('')); return 0; }
        const stamp = `${windowsDate(this.now()).slice(4)}  ${windowsTime12(this.now())}`;
        let files = 0; let dirs = 0; let bytes = 0;
        let body = '';
        const row = (n: string, entry: ReturnType<typeof this.ctx.fs.stat>) => {
          if (entry?.type === 'dir') { dirs++; return `${stamp}    <DIR>          ${n}\r\n`; }
          const len = entry?.type === 'file' ? fileBytes(entry).length : 0;
          files++; bytes += len;
          return `${stamp}    ${len.toLocaleString('en-US').padStart(14)} ${n}\r\n`;
        };
        if (e.type === 'dir' && target.length > 3) { body += row('.', e); body += row('..', e); }
        for (const n of names) body += row(n, this.ctx.fs.stat(`${dir.replace(/\\$/, '')}\\${n}`));
        yield* out(`${dirHeader()}\r\n Directory of ${dir}\r\n\r\n${body}` +
          `${String(files).padStart(16)} File(s) ${bytes.toLocaleString('en-US').padStart(14)} bytes\r\n` +
          `${String(dirs).padStart(16)} Dir(s)  ${(21_474_836_480).toLocaleString('en-US')} bytes free\r\n`);
        return 0;
      }
      case 'ping': return yield* ping(args, this.ctx, out);
      case 'ipconfig': yield* out(ipconfig(args, this.ctx)); return 0;
      case 'nslookup': return yield* windowsNslookup(args, this.ctx, out, err);
      // curl.exe's C runtime takes the quotes off its arguments (a URL quoted for its `&`), as tar.exe's does.
      case 'curl': return yield* curl(args.map((a) => a.replace(/"/g, '')), this.ctx, out, err);
      case 'netstat': yield* out(netstat(args, this.ctx)); return 0;
      case 'tasklist': yield* out(tasklist()); return 0;
      case 'tar': {
        if (!windowsHasTar(this.ctx.kernelVersion)) break;
        const ctx = this.ctx;
        return yield* bsdtar({
          argv0: name, args: args.map((a) => a.replace(/"/g, '')), ctx, cwd: this.cwd,
          stdin: () => ctx.stdinBytes ?? Buffer.from(ctx.stdin ?? '', 'utf8'),
          out, err,
        });
      }
      case 'timeout': {
        const ti = args.findIndex((a) => /^\/t$/i.test(a));
        const n = ti !== -1 ? Number(args[ti + 1]) : Number(args[0]);
        if (!Number.isInteger(n) || n < -1 || n > 99999) {
          yield* err('ERROR: Invalid value for timeout (/T) specified. Valid range is -1 to 99999.\r\n'); return 1;
        }
        if (n === -1) { yield { kind: 'forever' }; return 0; }
        yield { kind: 'sleep', ms: n * 1000 };
        return 0;
      }
      case 'exit': {
        const b = args[0] && /^\/b$/i.test(args[0]);
        const v = Number((b ? args[1] : args[0]) ?? this.errorlevel);
        throw new CmdExit(Number.isInteger(v) ? v : 0);
      }
      case 'cmd': {
        const sub = cmdScript(args);
        if (sub === undefined) { yield { kind: 'forever' }; return 0; }
        const child = new CmdShell({ ...this.ctx, env: Object.fromEntries(this.vars()), cwd: this.cwd });
        try { return yield* through(child.line(sub)); } catch (e) { if (e instanceof CmdExit) return e.code; throw e; }
      }
      case 'powershell': case 'pwsh': {
        const child = new PowerShell({ ...this.ctx, env: Object.fromEntries(this.vars()), cwd: this.cwd }, lower === 'pwsh' ? 7 : 5);
        const src = psScript(args);
        if (src === undefined) return 0;
        return yield* through(child.run(src));
      }
    }
    if (this.ctx.programs?.includes(lower)) { yield { kind: 'forever' }; return 0; }
    yield* err(CMD_NOT_RECOGNIZED(name));
    return 9009;
  }
}

/** tasklist.exe's table: the container's processes, the session-0 ones as Services, the container's as Console. */
function tasklist(): string {
  const rows = containerProcesses('cmd', 5212).sort((a, b) => a.id - b.id).map((p) => {
    const image = p.name === 'Idle' ? 'System Idle Process' : p.name === 'System' ? 'System' : `${p.name}.exe`;
    return `${image.padEnd(25).slice(0, 25)} ${String(p.id).padStart(8)} ${(p.si === 0 ? 'Services' : 'Console').padEnd(16)} ${String(p.si).padStart(11)} ${`${p.ws.toLocaleString('en-US')} K`.padStart(12)}`;
  });
  rows.push(`${'tasklist.exe'.padEnd(25)} ${'5340'.padStart(8)} ${'Console'.padEnd(16)} ${'1'.padStart(11)} ${'7,424 K'.padStart(12)}`);
  return `\r\nImage Name                     PID Session Name        Session#    Mem Usage\r\n` +
    `========================= ======== ================ =========== ============\r\n${rows.join('\r\n')}\r\n`;
}

function dirHeader(): string { return ' Volume in drive C has no label.\r\n Volume Serial Number is 0C4E-5A33\r\n'; }

const DAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const p2 = (n: number) => String(n).padStart(2, '0');
/** %DATE% in the en-US locale of the Windows images: `Mon 11/23/2026`. */
export function windowsDate(d: Date): string { return `${DAY[d.getUTCDay()]} ${p2(d.getUTCMonth() + 1)}/${p2(d.getUTCDate())}/${d.getUTCFullYear()}`; }
/** %TIME%: `13:16:57.12` with a leading space before 10 o'clock. */
export function windowsTime(d: Date): string {
  return `${String(d.getUTCHours()).padStart(2, ' ')}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${p2(Math.floor(d.getUTCMilliseconds() / 10))}`;
}
function windowsTime12(d: Date): string {
  const h = d.getUTCHours() % 12 || 12;
  return `${p2(h)}:${p2(d.getUTCMinutes())} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`;
}

/**
 * The command line of `cmd [/S] /C|/K ...`: the rest joined by spaces; with
 * one pair of outer quotes removed as cmd does. Undefined without /C or /K
 * (an interactive cmd, which in a container without stdin runs on).
 */
export function cmdScript(args: string[]): string | undefined {
  const i = args.findIndex((a) => /^\/[ck]$/i.test(a));
  if (i === -1) return undefined;
  let line = args.slice(i + 1).join(' ');
  if (/^".*"$/s.test(line)) line = line.slice(1, -1);
  return line;
}

export { parseSleep };

/**
 * The emulated shells of containers, one entry point for the runtime and
 * for `kubectl exec`.
 *
 *   startError(argv, ctx)  → the runtime's error when the executable cannot
 *                            exist in an image of that OS (sh on Windows,
 *                            cmd on Linux), else undefined.
 *   interpret(argv, ctx)   → a Program: an iterator of Steps (stdout/stderr
 *                            text, sleep ms, forever, exit code) plus
 *                            terminate() for SIGTERM. Pure: nothing runs
 *                            until the iterator is pulled.
 *   ProgramRunner          → plays a Program with real timers, calling
 *                            stdout/stderr/exit callbacks (runner.ts).
 *   openSession(shell,ctx) → an interactive shell for `kubectl exec -it`:
 *                            prompt(), and line(src) giving the Steps of one
 *                            input line; an `exit` Step ends the session.
 *
 * What an argv means (the "container behaviour model", see README):
 * - `sh|ash|dash|bash [-e] -c SCRIPT`: the script, in the image's /bin/sh
 *   flavour (ctx.posixShell) or bash.
 * - `cmd [/S] /C LINE`, `powershell|pwsh [...] -Command SCRIPT`: Windows.
 * - An emulated program alone (`sleep 3600`, `echo hi`, `ping -t localhost`,
 *   `timeout /t 30`): that program. `tar` is GNU or busybox tar on Linux
 *   (tar-command.ts) and bsdtar, tar.exe, on Windows (bsdtar.ts).
 * - Anything else, and an empty argv (the image's own entrypoint): the
 *   image's application, which runs until stopped and exits 0 on SIGTERM.
 */
import { isNonewprivsImage, nnpOutput } from './image-nonewprivs.js';
import { bsdtar, windowsHasTar } from './bsdtar.js';
import { CmdShell, cmdScript } from './cmd.js';
import { linuxImageHas } from './linux-image-tools.js';
export { posixShellOf } from './linux-image-tools.js';
import { parseShellArgs, PosixShell, type PosixFlavour } from './posix.js';
import { PowerShell, psScript } from './powershell.js';
import type { Program, ShellContext, Step } from './types.js';

export type { Program, ShellContext, Step, ShellOS } from './types.js';
export { ContainerFS } from './fs.js';
export { ProgramRunner, LineSplitter, type RunHandlers } from './runner.js';

const LINUX_SHELLS = new Set(['sh', 'ash', 'dash', 'bash']);
const WINDOWS_SHELLS = new Set(['cmd', 'powershell', 'pwsh']);
/** Programs every Linux image of the model has (busybox applets / coreutils). */
const LINUX_PROGRAMS = new Set(['sleep', 'sysctl', 'echo', 'printf', 'cat', 'ls', 'env', 'printenv', 'hostname', 'date', 'true', 'false',
  'tail', 'head', 'pwd', 'touch', 'rm', 'mv', 'mkdir', 'test', 'grep', 'wc', 'id', 'whoami', 'uname', 'kill', 'tar', 'curl', 'wget',
  'ping', 'nslookup', 'nc', 'getent', 'dig', 'host', 'awk', 'hexdump']);
const WINDOWS_PROGRAMS = new Set(['ping', 'timeout', 'hostname', 'whoami', 'ipconfig', 'nslookup', 'curl', 'tasklist', 'netstat']);

/** The program name of argv[0]: basename, `.exe` dropped, lower-cased on Windows. */
export function programName(argv0: string, os: ShellContext['os']): string {
  const base = argv0.replace(os === 'windows' ? /^.*[\\/]/ : /^.*\//, '');
  return os === 'windows' ? base.toLowerCase().replace(/\.exe$/, '') : base;
}

/**
 * containerd's start failure for an executable the image cannot have (exit
 * code 128, reason StartError): a Linux shell on Windows, cmd or PowerShell
 * on Linux, tar on a Windows build older than tar.exe.
 */
export function startError(argv: readonly string[], ctx: Pick<ShellContext, 'os' | 'kernelVersion'>): string | undefined {
  const [command] = argv;
  if (command === undefined) return undefined;
  const name = programName(command, ctx.os);
  if (ctx.os === 'linux' && WINDOWS_SHELLS.has(name.toLowerCase().replace(/\.exe$/, ''))) {
    return `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "${argv[0]}": executable file not found in $PATH: unknown`;
  }
  if (ctx.os === 'windows' && (LINUX_SHELLS.has(name) || (name === 'tar' && !windowsHasTar(ctx.kernelVersion)))) {
    return `failed to create containerd task: failed to create shim task: hcs::System::CreateProcess: The system cannot find the file specified.: unknown`;
  }
  return undefined;
}

function fromGenerator(gen: Iterator<Step, void>, terminate?: () => Iterator<Step, void> | undefined): Program {
  return { next: () => gen.next(), terminate };
}

/** The image's own application: runs until stopped; exits 0 on SIGTERM. */
function application(): Program {
  return fromGenerator((function* (): Generator<Step, void> { yield { kind: 'forever' }; })(),
    () => [{ kind: 'exit', code: 0 } as Step][Symbol.iterator]());
}

/** Whether a Linux image lacks a program the model knows (`ping` in a Debian image): exec of it does not start. */
export function linuxImageLacks(name: string, ctx: ShellContext): boolean {
  return ctx.os === 'linux' && LINUX_PROGRAMS.has(name) && !linuxImageHas(name, ctx);
}

export function interpret(argv: readonly string[], ctx: ShellContext): Program {
  const [command] = argv;
  if (command === undefined) {
    // The image's own entrypoint, where the model knows it as a program that finishes.
    if (ctx.os === 'linux' && isNonewprivsImage(ctx.image)) {
      return fromGenerator([{ kind: 'stdout', text: nnpOutput(ctx.identity ?? { uid: 0, gid: 0, groups: [0] }) } as Step, { kind: 'exit', code: 0 } as Step][Symbol.iterator]());
    }
    return application();
  }
  const name = programName(command, ctx.os);
  const args = argv.slice(1);
  if (ctx.os === 'linux') {
    if (LINUX_SHELLS.has(name)) {
      const flavour: PosixFlavour = name === 'bash' ? 'bash' : name === 'dash' ? 'dash' : name === 'ash' ? 'ash' : ctx.posixShell ?? 'ash';
      const parsed = parseShellArgs(args);
      const sh = new PosixShell(ctx, flavour, parsed.arg0 ?? argv[0]);
      sh.positional = parsed.positional;
      sh.errexit = parsed.errexit;
      let src = parsed.script;
      if (src === undefined && parsed.file !== undefined) {
        src = ctx.fs.read(ctx.fs.resolve(parsed.file));
        if (src === undefined) {
          const msg = flavour === 'bash' ? `${argv[0]}: ${parsed.file}: No such file or directory` : flavour === 'dash' ? `${argv[0]}: 0: cannot open ${parsed.file}: No such file` : `${argv[0]}: can't open '${parsed.file}': No such file or directory`;
          return fromGenerator([{ kind: 'stderr', text: msg + '\n' } as Step, { kind: 'exit', code: flavour === 'bash' ? 127 : 2 } as Step][Symbol.iterator]());
        }
      }
      // No script and no stdin: the shell reads end-of-file and exits 0.
      return fromGenerator(sh.program(src ?? ctx.stdin ?? ''), () => (sh.traps.has('TERM') ? sh.trap('TERM') : undefined));
    }
    if (LINUX_PROGRAMS.has(name) && linuxImageHas(name, ctx)) {
      const sh = new PosixShell(ctx, ctx.posixShell ?? 'ash', argv[0]);
      return fromGenerator((function* () {
        let code: number;
        try { code = yield* sh.command([name, ...args]); } catch (e) { code = sh.exitCode(e); }
        yield { kind: 'exit', code } as Step;
      })());
    }
    return application();
  }
  if (name === 'cmd') {
    const line = cmdScript(args);
    if (line === undefined) return fromGenerator([{ kind: 'exit', code: 0 } as Step][Symbol.iterator]());
    return fromGenerator(new CmdShell(ctx).program(line));
  }
  if (name === 'powershell' || name === 'pwsh') {
    const src = psScript(args);
    if (src === undefined) return fromGenerator([{ kind: 'exit', code: 0 } as Step][Symbol.iterator]());
    return fromGenerator(new PowerShell(ctx, name === 'pwsh' ? 7 : 5).program(src));
  }
  if (name === 'tar') {
    // tar.exe gets its argv as given, not re-parsed by cmd.
    return fromGenerator((function* (): Generator<Step, void, void> {
      const code = yield* bsdtar({
        argv0: command, args, ctx, cwd: ctx.cwd ?? 'C:\\',
        stdin: () => ctx.stdinBytes ?? Buffer.from(ctx.stdin ?? '', 'utf8'),
        out: function* (text) { if (text) yield { kind: 'stdout', text } as Step; },
        outBytes: function* (bytes) { if (bytes.length) yield { kind: 'stdout', text: Buffer.from(bytes).toString('utf8'), bytes } as Step; },
        err: function* (text) { if (text) yield { kind: 'stderr', text } as Step; },
      });
      yield { kind: 'exit', code };
    })());
  }
  if (WINDOWS_PROGRAMS.has(name)) {
    const quote = (a: string) => (/[\s&|]/.test(a) ? `"${a}"` : a);
    return fromGenerator(new CmdShell(ctx).program([name, ...args].map(quote).join(' ')));
  }
  return application();
}

/** Runs a Program to completion synchronously, ignoring sleeps; for tests and probes with short scripts. */
export function collect(program: Program, maxSteps = 100_000): { stdout: string; stderr: string; code: number | 'forever'; slept: number } {
  let stdout = ''; let stderr = ''; let slept = 0;
  for (let n = 0; n < maxSteps; n++) {
    const r = program.next();
    if (r.done) break;
    const s = r.value;
    if (s.kind === 'stdout') stdout += s.text;
    else if (s.kind === 'stderr') stderr += s.text;
    else if (s.kind === 'sleep') slept += s.ms;
    else if (s.kind === 'forever') return { stdout, stderr, code: 'forever', slept };
    // Run synchronously, a wait for something not yet there never ends.
    else if (s.kind === 'wait') { if (!s.on.settled) return { stdout, stderr, code: 'forever', slept }; }
    else return { stdout, stderr, code: s.code, slept };
  }
  return { stdout, stderr, code: 'forever', slept };
}

export type SessionShell = 'sh' | 'ash' | 'dash' | 'bash' | 'cmd' | 'powershell' | 'pwsh';

export interface ShellSession {
  /** What the shell prints before reading a line. */
  prompt(): string;
  /** The steps of one input line; an `exit` step means the shell ended with that code. */
  line(src: string): Iterator<Step, void>;
}

/** An interactive shell for `kubectl exec -it POD -- sh` (or cmd, powershell). */
export function openSession(shell: SessionShell, ctx: ShellContext): ShellSession {
  if (shell === 'cmd') {
    const c = new CmdShell(ctx);
    return {
      prompt: () => `${c.cwd.length === 3 ? c.cwd : c.cwd}>`,
      line: (src) => (function* () {
        try { yield* c.line(src); } catch (e) { yield { kind: 'exit', code: (e as { code: number }).code } as Step; }
      })(),
    };
  }
  if (shell === 'powershell' || shell === 'pwsh') {
    const p = new PowerShell(ctx, shell === 'pwsh' ? 7 : 5);
    return {
      prompt: () => `PS ${p.cwd}> `,
      line: (src) => (function* () {
        const before = { done: false };
        const g = p.run(src);
        let r = g.next();
        while (!r.done) { yield r.value; r = g.next(); }
        // run() returns the exit code; only an explicit `exit` ends the session.
        if (/^\s*exit\b/i.test(src.split(';').pop() ?? '') || /(^|;)\s*exit\b/i.test(src)) yield { kind: 'exit', code: r.value } as Step;
        void before;
      })(),
    };
  }
  const flavour: PosixFlavour = shell === 'bash' ? 'bash' : shell === 'dash' ? 'dash' : shell === 'ash' ? 'ash' : ctx.posixShell ?? 'ash';
  const sh = new PosixShell(ctx, flavour, shell);
  return {
    prompt: () => (flavour === 'bash' ? `root@${ctx.hostname}:${sh.cwd}# ` : flavour === 'dash' ? '# ' : `${sh.cwd} # `),
    line: (src) => (function* () {
      try { yield* sh.script(src); } catch (e) { yield { kind: 'exit', code: sh.exitCode(e) } as Step; }
    })(),
  };
}

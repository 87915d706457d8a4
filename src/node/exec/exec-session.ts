import type { RemoteCommandConnection } from '../../apimachinery/remotecommand.js';
import { exitCodeStatus, internalErrorStatus, successStatus } from '../../apimachinery/remotecommand.js';
import { playSteps, type PlayResult, type Step, type StepOutput } from './steps.js';

/** An interactive shell reading one line at a time (`kubectl exec -i POD -- sh`). */
export interface InteractiveShell {
  /** What the shell prints before reading a line (shown under a TTY only, like a real non-interactive sh). */
  prompt(): string;
  /** The steps of one input line; an `exit` step ends the shell with that code. */
  line(src: string): Iterator<Step, void>;
}

/** The runtime could not start the command at all (no such executable): not an exit code. */
export class ExecStartError extends Error {}

/** The container side of exec: the kubelet's shell model in the container's context. */
export interface ExecShell {
  /** What `argv` does, given the bytes the client sent on stdin (undefined without -i); throws ExecStartError. */
  program(argv: string[], stdin: Buffer | undefined): Iterator<Step, void>;
  /** An interactive shell when argv is a shell with no script (sh, bash, cmd, powershell), else undefined. */
  session(argv: string[]): InteractiveShell | undefined;
  /** The exec's processes are gone (it ended, or the client left): what they held is released. */
  end?(): void;
}

/**
 * Runs one `kubectl exec` command to completion and reports its end on the
 * error stream, as the kubelet's ServeExec does: success, or the runtime's
 * exit code as a NonZeroExitCode Status. When the client goes away first,
 * the command is stopped and nothing is reported.
 */
export async function runExec(conn: RemoteCommandConnection, argv: string[], shell: ExecShell): Promise<void> {
  const abort = new AbortController();
  conn.onClose(() => abort.abort());
  const out = outputOf(conn);
  let result: PlayResult;
  try {
    result = await playExec(conn, argv, shell, out, abort.signal);
  } catch (e) {
    if (!(e instanceof ExecStartError)) throw e;
    // The kubelet's exec handler: an error that is not an exit code is an internal error.
    conn.finish(internalErrorStatus(`error executing command in container: ${e.message}`));
    return;
  } finally {
    shell.end?.();
  }
  if ('stopped' in result) return;
  const code = 'code' in result ? result.code : 0;
  conn.finish(code === 0 ? successStatus() : exitCodeStatus(argv, code));
}

/** The exec's command, interactive or not, played until it ends or the client leaves. */
async function playExec(conn: RemoteCommandConnection, argv: string[], shell: ExecShell, out: StepOutput, signal: AbortSignal): Promise<PlayResult> {
  const interactive = conn.options.stdin ? shell.session(argv) : undefined;
  if (interactive) return runInteractive(conn, interactive, out, signal);
  if (conn.options.stdin) {
    const input = await readAllStdin(conn, signal);
    return input === undefined ? { stopped: true } : playSteps(shell.program(argv, input), out, signal);
  }
  return playSteps(shell.program(argv, undefined), out, signal);
}

/** Output to the client; a TTY turns "\n" into "\r\n" as the terminal's onlcr does. */
export function outputOf(conn: RemoteCommandConnection): StepOutput {
  const tty = conn.options.tty;
  const fix = (t: string) => (tty ? t.replace(/\r?\n/g, '\r\n') : t);
  return {
    stdout: (t) => conn.write('stdout', typeof t === 'string' ? fix(t) : Buffer.from(t.buffer, t.byteOffset, t.byteLength)),
    // Under a TTY stderr shares the terminal with stdout.
    stderr: (t) => conn.write(tty ? 'stdout' : 'stderr', fix(t)),
  };
}

function readAllStdin(conn: RemoteCommandConnection, signal: AbortSignal): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
    conn.onStdin((d) => {
      if (d) chunks.push(d);
      else resolve(Buffer.concat(chunks));
    });
  });
}

/**
 * Line-at-a-time shell: lines run in order, each to completion before the
 * next; end of stdin ends the shell with status 0. Under a TTY the terminal
 * is emulated too: keystrokes are echoed, Enter is "\r", backspace erases,
 * Ctrl-C drops the line and Ctrl-D on an empty line is end of input.
 */
async function runInteractive(conn: RemoteCommandConnection, shell: InteractiveShell, out: StepOutput,
  signal: AbortSignal): Promise<PlayResult> {
  const tty = conn.options.tty;
  const lines: (string | null)[] = [];
  let wake: (() => void) | undefined;
  let partial = '';
  const push = (l: string | null) => { lines.push(l); wake?.(); };
  conn.onStdin((d) => {
    if (d === null) {
      if (partial) push(partial);
      partial = '';
      push(null);
      return;
    }
    for (const ch of d.toString('utf8')) {
      if (!tty) {
        if (ch === '\n') { push(partial); partial = ''; } else partial += ch;
        continue;
      }
      if (ch === '\r' || ch === '\n') { out.stdout('\n'); push(partial); partial = ''; }
      else if (ch === '\x7f' || ch === '\b') { if (partial) { partial = [...partial].slice(0, -1).join(''); conn.write('stdout', '\b \b'); } }
      else if (ch === '\x03') { partial = ''; out.stdout('^C\n'); push(''); }
      else if (ch === '\x04') { if (!partial) push(null); }
      else { partial += ch; conn.write('stdout', ch); }
    }
  });
  signal.addEventListener('abort', () => wake?.(), { once: true });
  if (tty) out.stdout(shell.prompt());
  for (;;) {
    while (lines.length === 0) {
      if (signal.aborted) return { stopped: true };
      await new Promise<void>((res) => { wake = res; });
      wake = undefined;
    }
    const line = lines.shift()!;
    if (line === null) return { code: 0 };
    const r = await playSteps(shell.line(line), out, signal);
    if (!('ended' in r)) return r;
    if (tty) out.stdout(shell.prompt());
  }
}

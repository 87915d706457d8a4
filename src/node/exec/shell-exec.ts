import { randomBytes } from 'node:crypto';
import { collect, ContainerFS, interpret, linuxImageLacks, openSession, programName, startError, type SessionShell, type ShellContext } from '../shell/index.js';
import { ExecStartError, type ExecShell } from './exec-session.js';
import type { Listening } from '../shell/net-types.js';

const SESSION_SHELLS: Record<'linux' | 'windows', readonly SessionShell[]> = {
  linux: ['sh', 'ash', 'dash', 'bash'],
  windows: ['cmd', 'powershell', 'pwsh'],
};

/** Flags that leave a shell reading commands from stdin (`bash -il`, `powershell -NoLogo`). */
const INTERACTIVE_FLAGS = /^(-i|-l|-il|-li|--login|-NoLogo|-NoProfile|-nologo|-noprofile|\/Q|\/K)$/;

/**
 * `kubectl exec` commands run by the kubelet's shell model: a command line
 * is interpreted as a program in the container's context; a bare shell with
 * stdin open becomes an interactive session reading line by line.
 */
/** Programs of the model that legitimately run until stopped. */
const LONG_RUNNING = /^(sh|bash|ash|dash|cmd|powershell|pwsh|sleep|tail|ping|timeout|cat)$/i;

/**
 * containerd's error when exec names an executable the image does not have.
 * The shell model runs any unknown name as "the image's application"; for a
 * container's command that is right, for exec it is not: an exec of a name
 * that is neither a shell nor a program of the model fails to start.
 */
function execStartFailure(argv: string[], ctx: ShellContext): string | undefined {
  const [command] = argv;
  if (command === undefined) return undefined;
  const execID = randomBytes(32).toString('hex');
  const startErr = startError(argv, ctx);
  const name = programName(command, ctx.os);
  const unknown = startErr !== undefined || linuxImageLacks(name, ctx) || (!LONG_RUNNING.test(name) && (() => {
    // Probed in a scratch filesystem: the probe must not change the container's files.
    const r = collect(interpret(argv, { os: ctx.os, env: {}, hostname: ctx.hostname, fs: new ContainerFS(ctx.os), ...(ctx.posixShell ? { posixShell: ctx.posixShell } : {}), ...(ctx.image ? { image: ctx.image } : {}) }), 3);
    return r.code === 'forever' && r.stdout === '' && r.stderr === '' && r.slept === 0;
  })());
  if (!unknown) return undefined;
  return ctx.os === 'windows'
    ? `failed to exec in container: failed to start exec "${execID}": hcs::System::CreateProcess: The system cannot find the file specified.: unknown`
    : `failed to exec in container: failed to start exec "${execID}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${command}": executable file not found in $PATH: unknown`;
}

export function execShellFor(container: ShellContext): ExecShell {
  // What the exec's own processes listen on goes away with the exec, not with the container.
  const listening = new Set<Listening>();
  const net = container.net;
  const ctx: ShellContext = net ? {
    ...container,
    net: {
      ...net,
      listen: (port, accept, closed) => {
        const l = net.listen(port, accept, closed);
        if (l) listening.add(l);
        return l;
      },
    },
  } : container;
  return {
    end() { for (const l of listening) l.close(); listening.clear(); },
    program(argv, stdin) {
      const failure = execStartFailure(argv, ctx);
      if (failure) throw new ExecStartError(failure);
      return interpret(argv, stdin === undefined ? ctx : { ...ctx, stdin: stdin.toString('utf8'), stdinBytes: stdin });
    },
    session(argv) {
      const [command] = argv;
      if (command === undefined) return undefined;
      const name = programName(command, ctx.os) as SessionShell;
      if (!SESSION_SHELLS[ctx.os].includes(name)) return undefined;
      if (!argv.slice(1).every((a) => INTERACTIVE_FLAGS.test(a))) return undefined;
      return openSession(name, ctx);
    },
  };
}

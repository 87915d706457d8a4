import { interpret, openSession, programName, type SessionShell, type ShellContext } from '../shell/index.js';
import type { ExecShell } from './exec-session.js';

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
export function execShellFor(ctx: ShellContext): ExecShell {
  return {
    program: (argv, stdin) => interpret(argv, stdin === undefined ? ctx : { ...ctx, stdin }),
    session(argv) {
      if (!argv.length) return undefined;
      const name = programName(argv[0], ctx.os) as SessionShell;
      if (!SESSION_SHELLS[ctx.os].includes(name)) return undefined;
      if (!argv.slice(1).every((a) => INTERACTIVE_FLAGS.test(a))) return undefined;
      return openSession(name, ctx);
    },
  };
}

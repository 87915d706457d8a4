/**
 * The program model of the emulated shells. Interpreting a command line in
 * a container's context yields Steps; a runner (runner.ts) plays them with
 * timers. Nothing here touches real processes, files or clocks except
 * through the context, so every shell is a pure, testable function of
 * (argv, context).
 */
import type { ContainerFS } from './fs.js';
import type { PodNetAccess } from './net-types.js';
import type { Pending } from './pending.js';
import type { PodNetwork } from './windows-net.js';

export type ShellOS = 'linux' | 'windows';

/** One observable effect of a running program. */
export type Step =
  /** A chunk written to stdout or stderr, newline included when the program wrote one. */
  | { kind: 'stdout'; text: string;
    /** The chunk's exact bytes when they are not text (an archive's); `text` is their UTF-8 reading. Passed on unchanged by exec. */
    bytes?: Uint8Array }
  | { kind: 'stderr'; text: string }
  /** The program waits this long (sleep, Start-Sleep, timeout /t, ping -n). */
  | { kind: 'sleep'; ms: number }
  /** The program blocks until killed (tail -f /dev/null, sleep infinity, ping -t, an image's server). */
  | { kind: 'forever' }
  /** The program waits until `on` is settled (a connection's response, an incoming request). */
  | { kind: 'wait'; on: Pending<unknown> }
  /** The program ends with this exit code. Always the last step of a finite program. */
  | { kind: 'exit'; code: number };

/** The credentials of a container's process (a Linux process's uid, gid and getgroups(2), sorted). */
export interface ProcessIdentity {
  uid: number;
  gid: number;
  groups: readonly number[];
  /** PR_SET_NO_NEW_PRIVS (allowPrivilegeEscalation: false): a setuid program keeps the caller's uid. */
  noNewPrivs?: boolean;
  /** CAP_NET_ADMIN in the effective set (a root process of a privileged container, or NET_ADMIN added). */
  netAdmin?: boolean;
}

export interface ShellContext {
  os: ShellOS;
  /** The container's environment (kubelet-computed env plus image defaults such as PATH). */
  env: Record<string, string>;
  hostname: string;
  /** The container's filesystem: mounted volumes (read-only) and a writable overlay. */
  fs: ContainerFS;
  /** The clock `date`/`Get-Date` read. */
  now?: () => Date;
  /** Working directory; `/` on Linux, `C:\` on Windows when unset. */
  cwd?: string;
  /** Data on the program's stdin (kubectl exec -i; empty otherwise). */
  stdin?: string;
  /** The same stdin as the client's bytes, for programs that read binary data (`tar xf -`). */
  stdinBytes?: Uint8Array;
  /** Names of the image's own long-running programs (`nginx`): inside a shell they run until killed. */
  programs?: readonly string[];
  /** `uname -r` on Linux; `10.0.<build>.<ubr>` on Windows (`ver`). */
  kernelVersion?: string;
  /** Which /bin/sh the image has (busybox/alpine: ash; Debian-based: dash). Default ash. */
  posixShell?: 'ash' | 'dash';
  /** The container's image reference (`busybox:1.28`): some tools differ by image and release. */
  image?: string;
  /** The pod's address, subnet and DNS settings, as ipconfig and the network tools show them. */
  network?: PodNetwork;
  /** The cluster network as this container reaches it; without it only the container itself answers. */
  net?: PodNetAccess;
  /** Who the process runs as; root when unset. */
  identity?: ProcessIdentity;
}

/** A program that can be driven step by step and told about SIGTERM. */
export interface Program extends Iterator<Step, void> {
  /**
   * SIGTERM (Linux) / CTRL_SHUTDOWN_EVENT (Windows). Returns the steps the
   * program runs in response (a trap), or undefined when it ignores the
   * signal (a shell or sleep as PID 1 without a trap installs no handler).
   */
  terminate?(): Iterator<Step, void> | undefined;
}

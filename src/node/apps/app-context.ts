/**
 * What an image's own server program (nginx, httpd, IIS, agnhost) is given
 * when the container starts: the pod's network to bind its ports on, the
 * clock its log lines and Date headers read, and what it prints about its
 * host. An application is a function of this context to the program the
 * kubelet runs as the container's main process.
 */
import type { ContainerFS } from '../shell/fs.js';
import type { PodNetAccess } from '../shell/net-types.js';
import type { Program } from '../shell/types.js';

export interface AppContext {
  /** The pod's network; without it nothing can connect and the server only waits. */
  net?: PodNetAccess;
  now: () => Date;
  /** The pod's hostname (what `hostname` prints in the container). */
  hostname: string;
  /** `uname -r` of the node. */
  kernelVersion?: string;
  /** The node's CPUs as a process in the container sees them (nginx's `worker_processes auto`). */
  cpus: number;
  env: Record<string, string>;
  /** Counts CPU time (ns) the server spent answering a request, toward the container's usage. */
  served?: (cpuNs: number) => void;
  /** Runs `fn` after `ms` of the node's clock, unless the container has ended by then (a request's work). */
  after?: (ms: number, fn: () => void) => void;
  /** The container's filesystem (what `agnhost mounttest` stats and writes); absent: the program sees no volumes. */
  fs?: ContainerFS;
  /** The uid and gid the container's process runs as (runAsUser, runAsGroup; root by default). */
  user?: { uid: number; gid: number };
}

export type Application = (ctx: AppContext) => Program;

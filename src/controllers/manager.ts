/**
 * kube-controller-manager in the server process: the controllers of the
 * registry that `--controllers` enables, started only while this server
 * holds the `kube-system/kube-controller-manager` Lease (leaderElectAndRun
 * with upstream's 15 s lease, 10 s renew deadline and 2 s retry period,
 * identity `<hostname>_<uuid>`), so that a second winkube server against
 * the same storage does not act twice. Upstream's process exits when it
 * loses the lease ("leaderelection lost"); here the API server shares the
 * process, so the controllers stop instead and the server campaigns again.
 * On a clean shutdown the lease is released so a restarted server need not
 * wait out the lease duration.
 *
 * The lease is written as system:kube-controller-manager (the manager's own
 * client); each controller acts as its own service account (registry.ts).
 */
import { setMaxListeners } from 'node:events';
import type { Client } from '../client/types.js';
import type { EventRecorder } from '../events/recorder.js';
import type { PemPair } from '../pki/certificates.js';
import { componentElector, type LeaderElector } from './leader-election.js';
import { controllerRegistry, LOCAL_PROVISIONER, type RegistryConfig } from './registry.js';
import type { ControllerContext } from './runtime/controller-context.js';
import { DEFAULT_CONTROLLERS, parseControllers, type ControllerSelection } from './runtime/controller-flags.js';

export interface ControllerManagerOptions {
  /** The manager's own client (system:kube-controller-manager): the leader election Lease. */
  client: Client;
  /**
   * A fresh context for one term of leadership: the manager's client, new
   * shared informers (stopped with the term), the event recorder.
   */
  newContext: () => ControllerContext;
  events: EventRecorder;
  log: (m: string) => void;
  /** The cluster CA (kube-root-ca.crt ConfigMaps, the CSR signer). */
  ca: PemPair;
  /**
   * The workload, service and node controllers too (and the load balancer
   * pool for LoadBalancer Services); without, only the namespace, garbage
   * collector and resource quota controllers (`winkube up --api-only`).
   */
  workloads?: RegistryConfig['workloads'];
  /** `--controllers`; `*` (every controller on by default) when absent. */
  controllers?: ControllerSelection;
}

/** `--controllers` as winkube takes it: kube-controller-manager's names and winkube's own. */
export function parseControllersFlag(values: readonly string[]): ControllerSelection {
  return parseControllers(values, [LOCAL_PROVISIONER]);
}

export interface RunningControllers {
  /** The names of the controllers started. */
  readonly started: readonly string[];
  stop(): void;
}

/**
 * Starts the enabled controllers, one after another, on one context (one
 * informer per resource for all of them); stop() stops them and the informers.
 */
export async function startControllers(o: ControllerManagerOptions): Promise<RunningControllers> {
  const ctx = o.newContext();
  const abort = new AbortController();
  // Every controller listens for the abort: more than the default 10 listeners is no leak here.
  setMaxListeners(0, abort.signal);
  const selection = o.controllers ?? parseControllersFlag(DEFAULT_CONTROLLERS);
  const started: string[] = [];
  const stop = () => { abort.abort(); ctx.informers.stop(); };
  try {
    for (const c of controllerRegistry({ ca: o.ca, workloads: o.workloads })) {
      if (!selection.enabled(c.name)) continue;
      await c.run(ctx, abort.signal);
      started.push(c.name);
    }
  } catch (e) {
    stop();
    throw e;
  }
  return { started, stop };
}

export interface RunningControllerManager {
  readonly elector: LeaderElector;
  /** Stops campaigning, releases the lease and stops the controllers. */
  stop(): Promise<void>;
}

/**
 * Campaigns for the kube-controller-manager Lease and runs the controllers
 * while leading. Resolves after the first attempt (with the controllers
 * started when it won), so a lone server is ready with its controllers.
 */
export async function runControllerManager(o: ControllerManagerOptions, elect: typeof componentElector = componentElector): Promise<RunningControllerManager> {
  let running: RunningControllers | undefined;
  // Leadership changes one at a time: a start still syncing its informers is never overlapped by a stop.
  let transitions: Promise<void> = Promise.resolve();
  const serially = (f: () => Promise<void>) => (transitions = transitions.then(f, f));
  const elector = elect(o.client, 'kube-controller-manager', {
    onStartedLeading: () => serially(async () => { running = await startControllers(o); }),
    onStoppedLeading: () => serially(async () => { running?.stop(); running = undefined; }),
  }, o.events, o.log);
  await elector.start();
  return {
    elector,
    async stop() {
      await elector.stop(true);
      await transitions;
      running?.stop();
    },
  };
}

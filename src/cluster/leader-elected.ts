/**
 * The components one cluster runs once however many winkube servers share its storage: each
 * campaigns for a Lease in kube-system (kube-scheduler's own, and `winkube-node-farm` for the
 * emulated nodes and their add-ons) and runs only while it leads. Timings are upstream's
 * `--leader-elect-*` defaults (15 s, 10 s, 2 s); WINKUBE_LEADER_ELECT_LEASE_DURATION,
 * WINKUBE_LEADER_ELECT_RENEW_DEADLINE and WINKUBE_LEADER_ELECT_RETRY_PERIOD (Go durations) shorten
 * them, for tests.
 */
import type { Client } from '../client/types.js';
import type { EventRecorder } from '../events/recorder.js';
import { parseDuration } from '../apimachinery/duration.js';
import { DEFAULT_LEASE_TIMINGS, LeaderElector, leaderIdentity, type LeaderCallbacks } from '../controllers/leader-election.js';

/** The Lease of the process running the emulated nodes (their kubelets, metrics-server, the Service exposer). */
export const NODE_FARM_LEASE = 'winkube-node-farm';

export type LeaseTimings = typeof DEFAULT_LEASE_TIMINGS;

export function leaseTimingsFromEnv(env: NodeJS.ProcessEnv = process.env): LeaseTimings {
  const read = (name: string, fallback: number) => (env[name] ? parseDuration(env[name]) ?? fallback : fallback);
  return {
    leaseDurationMs: read('WINKUBE_LEADER_ELECT_LEASE_DURATION', DEFAULT_LEASE_TIMINGS.leaseDurationMs),
    renewDeadlineMs: read('WINKUBE_LEADER_ELECT_RENEW_DEADLINE', DEFAULT_LEASE_TIMINGS.renewDeadlineMs),
    retryPeriodMs: read('WINKUBE_LEADER_ELECT_RETRY_PERIOD', DEFAULT_LEASE_TIMINGS.retryPeriodMs),
  };
}

/**
 * An elector of `kube-system/<name>` with a fresh `<hostname>_<uuid>` identity; its LeaderElection
 * events come from `component` (kube-scheduler records them as its first profile's schedulerName).
 */
export function electorFor(client: Client, name: string, timings: LeaseTimings, callbacks: LeaderCallbacks,
  events?: EventRecorder, log?: (m: string) => void, component = name): LeaderElector {
  return new LeaderElector(client, { namespace: 'kube-system', name, identity: leaderIdentity(), component, ...timings }, callbacks, events, log);
}

export interface LeaderElected {
  readonly elector: LeaderElector;
  stop(): Promise<void>;
}

/**
 * Runs `run` while leading `kube-system/<name>`, stopping what it returned when the lease is lost
 * (upstream's component exits there; the API server shares this process, so it campaigns again).
 * Terms never overlap: a start still running is finished before the stop. Resolves after the first
 * attempt, with `run` done when it won, so a lone server is ready with its components. With
 * `once`, what cannot start twice in one process: a lost term ends the campaign, leaving the
 * lease to the other servers.
 */
export async function runLeaderElected(client: Client, name: string, timings: LeaseTimings, run: () => Promise<() => Promise<void>>,
  events: EventRecorder | undefined, log: (m: string) => void, once = false, component = name): Promise<LeaderElected> {
  let stopTerm: (() => Promise<void>) | undefined;
  let transitions: Promise<void> = Promise.resolve();
  let stopping = false;
  const serially = (f: () => Promise<void>) => (transitions = transitions.then(f, f));
  const endTerm = async () => { const s = stopTerm; stopTerm = undefined; await s?.(); };
  const elector = electorFor(client, name, timings, {
    onStartedLeading: () => serially(async () => { stopTerm = await run(); }),
    onStoppedLeading: () => serially(async () => {
      await endTerm();
      if (once && !stopping) {
        log(`leaderelection lost: kube-system/${name} is left to the other servers until this one restarts`);
        await elector.stop(false);
      }
    }),
  }, events, log, component);
  await elector.start();
  return {
    elector,
    async stop() {
      stopping = true;
      await elector.stop(true);
      await transitions;
      await endTerm();
    },
  };
}

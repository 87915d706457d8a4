/**
 * What a sync of one pod should do, as plain data (after kuberuntime_manager.go
 * computePodActions and doBackOff, and kubelet_pods.go's restart rules):
 * the pod worker builds a PodView of its containers, asks these functions,
 * and carries out the answer. Nothing here has side effects or reads a
 * clock: `now` and the back-off are passed in.
 */
import type { ContainerState } from './container-state.js';
import { goDuration } from './format.js';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

export interface ContainerView {
  name: string;
  init: boolean;
  /** An init container with restartPolicy Always. */
  sidecar: boolean;
  /** One of spec.ephemeralContainers (kubectl debug): started once, never restarted. */
  ephemeral: boolean;
  state: ContainerState;
  /** An instance exists (created at least once in this sandbox). */
  created: boolean;
  /** Something is under way for it (pull, back-off wait, start). */
  busy: boolean;
  /** Its process has not exited yet. */
  alive: boolean;
}

export interface PodView {
  /** The pod as the kubelet's messages name it (format.ts formatPod). */
  display: string;
  uid: string;
  restartPolicy: RestartPolicy;
  sandboxReady: boolean;
  /** Init containers first, then the regular containers, then the ephemeral ones, each in spec order. */
  containers: ContainerView[];
}

/** The back-off entries the decision reads (backoff.ts Backoff). */
export interface BackoffView {
  get(key: string): number;
  inBackOffSince(key: string, since: number, now: number): boolean;
}

/** A terminated container to run again: at once, or after waiting in CrashLoopBackOff. */
export interface Restart {
  name: string;
  /** The back-off key (pod UID / container name). */
  key: string;
  /** The exit that is backed off from (finishedAt, ms). */
  finishedAtMs: number;
  backOff?: { periodMs: number; delayMs: number; reason: 'CrashLoopBackOff'; message: string; event: string };
}

export interface PodActions {
  /** The sandbox (volumes, network) is not ready: set it up before anything else. */
  createSandbox: boolean;
  /** Ephemeral containers to create and start now, before any other (SyncPod step 5). */
  ephemeralContainersToStart: string[];
  /** Init and regular containers to create and start now, in order. */
  containersToStart: string[];
  containersToRestart: Restart[];
  /** A regular init container failed and restartPolicy is Never: the pod is Failed. */
  killPod: boolean;
  /** Every regular container had its turn: see whether the pod is complete (computePodCompletion). */
  checkCompletion: boolean;
}

export const restartPolicyOf = (p: unknown): RestartPolicy => (p === 'Never' || p === 'OnFailure' ? p : 'Always');

/** A container of spec.containers: neither init nor ephemeral. */
export const isRegular = (c: Pick<ContainerView, 'init' | 'ephemeral'>): boolean => !c.init && !c.ephemeral;

/** doBackOff: restart now, or wait out the back-off counted from the container's last exit. */
export function doBackOff(pod: PodView, c: ContainerView, now: number, backoff: BackoffView): Restart {
  const key = `${pod.uid}/${c.name}`;
  const finishedAtMs = c.state.kind === 'terminated' ? c.state.finishedAtMs : 0;
  const r: Restart = { name: c.name, key, finishedAtMs };
  if (!backoff.inBackOffSince(key, finishedAtMs, now)) return r;
  const periodMs = backoff.get(key);
  r.backOff = {
    periodMs,
    delayMs: Math.max(0, finishedAtMs + periodMs - now),
    reason: 'CrashLoopBackOff',
    message: `back-off ${goDuration(periodMs)} restarting failed container=${c.name} pod=${pod.display}`,
    event: `Back-off restarting failed container ${c.name} in pod ${pod.display}`,
  };
  return r;
}

/**
 * computePodActions: the sandbox first; ephemeral containers that have no
 * instance yet, even while initialization is in progress, but not in the
 * sync that (re)creates the sandbox; init containers in order (a sidecar
 * must be running and started before the next one, a regular init
 * container must exit 0, and one that failed restarts, or fails the pod
 * under restartPolicy Never); then every regular container not yet created.
 */
export function computePodActions(pod: PodView, now: number, backoff: BackoffView): PodActions {
  const actions: PodActions = { createSandbox: !pod.sandboxReady, ephemeralContainersToStart: [], containersToStart: [], containersToRestart: [], killPod: false, checkCompletion: false };
  // An ephemeral container with an instance, running or exited, is never started again.
  if (pod.sandboxReady) actions.ephemeralContainersToStart = pod.containers.filter((c) => c.ephemeral && !c.created && !c.busy).map((c) => c.name);
  for (const c of pod.containers.filter((x) => x.init)) {
    if (c.sidecar) {
      if (!c.created && !c.busy) { actions.containersToStart.push(c.name); return actions; }
      if (c.state.kind !== 'running' || !c.state.started) return actions;
      continue;
    }
    if (c.state.kind === 'terminated' && c.state.exitCode === 0) continue;
    if (c.state.kind === 'terminated' && !c.busy) {
      if (pod.restartPolicy === 'Never') actions.killPod = true;
      else actions.containersToRestart.push(doBackOff(pod, c, now, backoff));
      return actions;
    }
    if (!c.created && !c.busy) actions.containersToStart.push(c.name);
    return actions;
  }
  for (const c of pod.containers.filter(isRegular)) if (!c.created && !c.busy) actions.containersToStart.push(c.name);
  actions.checkCompletion = true;
  return actions;
}

/** What follows a container's exit (kubelet_pods.go ShouldContainerBeRestarted, and the pod's completion). */
export interface ExitActions {
  restart?: Restart;
  /** An init container succeeded: sync on to the next one. */
  sync: boolean;
  killPod: boolean;
  checkCompletion: boolean;
}

/** Regular containers have all finished for good: restartPolicy lets none of them run again. */
export function allRegularDone(pod: PodView): boolean {
  return pod.containers.filter(isRegular).every((c) => c.state.kind === 'terminated' &&
    (pod.restartPolicy === 'Never' || (pod.restartPolicy === 'OnFailure' && c.state.exitCode === 0)));
}

/** After container `name` exited (its state is terminated). */
export function computeExitActions(pod: PodView, name: string, now: number, backoff: BackoffView): ExitActions {
  const c = pod.containers.find((x) => x.name === name)!;
  const none: ExitActions = { sync: false, killPod: false, checkCompletion: false };
  const exitCode = c.state.kind === 'terminated' ? c.state.exitCode : 0;
  // Ephemeral containers are never restarted, whatever the pod's restartPolicy; the pod may have waited for this one to stop.
  if (c.ephemeral) return { ...none, checkCompletion: true };
  if (c.init && !c.sidecar) {
    if (exitCode === 0) return { ...none, sync: true };
    if (pod.restartPolicy === 'Never') return { ...none, killPod: true };
    return { ...none, restart: doBackOff(pod, c, now, backoff) };
  }
  const restart = c.sidecar || pod.restartPolicy === 'Always' || (pod.restartPolicy === 'OnFailure' && exitCode !== 0);
  // A sidecar restarts until every regular container is done; a regular container whenever its policy says so.
  if (restart && (!c.sidecar || !allRegularDone(pod))) return { ...none, restart: doBackOff(pod, c, now, backoff) };
  return { ...none, checkCompletion: true };
}

/**
 * Whether the pod is complete: regular containers done for good, then the
 * sidecars and ephemeral containers still running stopped (computePodActions'
 * KillPod kills every container of the pod), then the pod finishes.
 */
export interface PodCompletion { complete: boolean; containersToKill: string[] }

export function computePodCompletion(pod: PodView): PodCompletion {
  if (!pod.containers.some(isRegular) || !allRegularDone(pod)) return { complete: false, containersToKill: [] };
  const containersToKill = pod.containers.filter((c) => (c.sidecar || c.ephemeral) && c.alive).map((c) => c.name);
  return { complete: containersToKill.length === 0, containersToKill };
}

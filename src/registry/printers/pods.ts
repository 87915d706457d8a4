/** Pods: printPod (pkg/printers/internalversion/printers.go). */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, int, nameOf } from './cells.js';
import { humanDuration, instant } from './duration.js';

export const podColumns = [
  nameColumn,
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  ageColumn,
  column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
  column('Node', 'string', 'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename', 1),
  column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.', 1),
  column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates', 1),
];

/** A sidecar: an init container that keeps running beside the main ones. */
function restartable(c: any): boolean {
  return c?.restartPolicy === 'Always';
}

function conditionTrue(status: any, type: string): boolean {
  const c = (status?.conditions ?? []).find((x: any) => x?.type === type);
  return c?.status === 'True';
}

function isTerminal(phase: string): boolean {
  return phase === 'Failed' || phase === 'Succeeded';
}

interface Counts { ready: number; total: number; restarts: number; lastRestart: number; reason: string }

/** Walks init containers, stopping at the first still initializing; true when one is. */
function walkInitContainers(spec: any, status: any, n: Counts, sidecars: { restarts: number; lastRestart: number }): boolean {
  const inits = new Map<string, any>();
  for (const c of spec?.initContainers ?? []) inits.set(c?.name, c);
  const statuses: any[] = status?.initContainerStatuses ?? [];
  for (let i = 0; i < statuses.length; i++) {
    const c = statuses[i];
    const finished = c?.lastState?.terminated ? instant(c.lastState.terminated.finishedAt) : undefined;
    n.restarts += int(c?.restartCount);
    if (finished !== undefined && n.lastRestart < finished) n.lastRestart = finished;
    const isSidecar = restartable(inits.get(c?.name));
    if (isSidecar) {
      sidecars.restarts += int(c?.restartCount);
      if (finished !== undefined && sidecars.lastRestart < finished) sidecars.lastRestart = finished;
    }
    const term = c?.state?.terminated;
    const waiting = c?.state?.waiting;
    if (term && int(term.exitCode) === 0) continue;
    if (isSidecar && c?.started === true) {
      if (c?.ready) n.ready++;
      continue;
    }
    if (term) {
      if (!term.reason) n.reason = int(term.signal) !== 0 ? `Init:Signal:${int(term.signal)}` : `Init:ExitCode:${int(term.exitCode)}`;
      else n.reason = `Init:${term.reason}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      n.reason = `Init:${waiting.reason}`;
    } else {
      n.reason = `Init:${i}/${(spec?.initContainers ?? []).length}`;
    }
    return true;
  }
  return false;
}

/** Walks app containers from last to first, as upstream does, so the first one's state wins. */
function walkContainers(status: any, n: Counts): void {
  let hasRunning = false;
  const statuses: any[] = status?.containerStatuses ?? [];
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i];
    n.restarts += int(c?.restartCount);
    if (c?.lastState?.terminated) {
      const finished = instant(c.lastState.terminated.finishedAt);
      if (n.lastRestart < finished) n.lastRestart = finished;
    }
    const waiting = c?.state?.waiting;
    const term = c?.state?.terminated;
    if (waiting && waiting.reason) n.reason = waiting.reason;
    else if (term && term.reason) n.reason = term.reason;
    else if (term) n.reason = int(term.signal) !== 0 ? `Signal:${int(term.signal)}` : `ExitCode:${int(term.exitCode)}`;
    else if (c?.ready && c?.state?.running) {
      hasRunning = true;
      n.ready++;
    }
  }
  // A container that exited cleanly beside one still running does not make the pod Completed.
  if (n.reason === 'Completed' && hasRunning) n.reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
}

function readinessGates(pod: any): string {
  const gates: any[] = pod?.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions: any[] = pod?.status?.conditions ?? [];
  let met = 0;
  for (const g of gates) {
    const c = conditions.find((x) => x?.type === g?.conditionType);
    if (c?.status === 'True') met++;
  }
  return `${met}/${gates.length}`;
}

/** The pod's IP after v1→internal conversion: status.podIP wins over podIPs[0]. */
function podIP(status: any): string {
  return status?.podIP || status?.podIPs?.[0]?.ip || '';
}

function cells(pod: any, now: number): unknown[] {
  const spec = pod?.spec ?? {};
  const status = pod?.status ?? {};
  const phase: string = status.phase ?? '';
  const n: Counts = { ready: 0, total: (spec.containers ?? []).length, restarts: 0, lastRestart: -Infinity, reason: status.reason || phase };
  for (const c of spec.initContainers ?? []) if (restartable(c)) n.total++;
  for (const c of status.conditions ?? []) {
    if (c?.type === 'PodScheduled' && c?.reason === 'SchedulingGated') n.reason = 'SchedulingGated';
  }

  const sidecars = { restarts: 0, lastRestart: -Infinity };
  const initializing = walkInitContainers(spec, status, n, sidecars);
  if (!initializing || conditionTrue(status, 'Initialized')) {
    // Once initialized, only sidecar restarts count beside the app containers'.
    n.restarts = sidecars.restarts;
    n.lastRestart = sidecars.lastRestart;
    walkContainers(status, n);
  }

  if (pod?.metadata?.deletionTimestamp && status.reason === 'NodeLost') n.reason = 'Unknown';
  else if (pod?.metadata?.deletionTimestamp && !isTerminal(phase)) n.reason = 'Terminating';

  let restarts = String(n.restarts);
  if (n.restarts !== 0 && n.lastRestart !== -Infinity) restarts = `${n.restarts} (${humanDuration(now - n.lastRestart)} ago)`;

  return [
    nameOf(pod), `${n.ready}/${n.total}`, n.reason, restarts, ageOf(pod, now),
    podIP(status) || '<none>', spec.nodeName || '<none>', status.nominatedNodeName || '<none>', readinessGates(pod),
  ];
}

export const podPrinter: Printer = { columns: podColumns, cells, rowConditions: podRowConditions };

/**
 * The row conditions upstream sets on finished pods' rows (Table rows carry them beside
 * the cells); undefined for pods still running.
 */
export function podRowConditions(pod: any): { type: string; status: string; reason: string; message: string }[] | undefined {
  switch (pod?.status?.phase) {
    case 'Succeeded': return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    case 'Failed': return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    default: return undefined;
  }
}

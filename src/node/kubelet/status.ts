/**
 * Pod phase and kubelet-owned conditions from container statuses
 * (pkg/kubelet/kubelet_pods.go getPhase; pkg/kubelet/status/generate.go).
 * Pure functions over v1 JSON.
 */
type Obj = Record<string, any>;

export const KUBELET_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

const isRestartable = (c: Obj) => c.restartPolicy === 'Always';
const statusOf = (list: Obj[], name: string) => list.find((s) => s.name === name);
/** kubecontainer.HasAnyRegularContainerStarted. */
function anyRegularStarted(spec: Obj, statuses: Obj[]): boolean {
  return (spec.containers ?? []).some((c: Obj) => {
    const s = statusOf(statuses, c.name);
    return s && (s.state?.running || s.state?.terminated);
  });
}

/** getPhase. */
export function podPhase(spec: Obj, initStatuses: Obj[], statuses: Obj[], podIsTerminal: boolean): string {
  let pendingInit = 0; let failedInit = 0;
  for (const c of spec.initContainers ?? []) {
    if (isRestartable(c)) continue;
    const s = statusOf(initStatuses, c.name);
    if (!s) { pendingInit++; continue; }
    if (s.state?.running) pendingInit++;
    else if (s.state?.terminated) { if (s.state.terminated.exitCode !== 0) failedInit++; }
    else if (s.state?.waiting) {
      if (s.lastState?.terminated) { if (s.lastState.terminated.exitCode !== 0) failedInit++; } else pendingInit++;
    } else pendingInit++;
  }
  let unknown = 0; let running = 0; let waiting = 0; let stopped = 0; let succeeded = 0;
  for (const c of spec.initContainers ?? []) {
    if (!isRestartable(c)) continue;
    const s = statusOf(initStatuses, c.name);
    if (!s) { unknown++; continue; }
    if (s.state?.running) { if (!s.started) pendingInit++; running++; }
    else if (s.state?.terminated) { /* ignored */ }
    else if (s.state?.waiting) { if (!s.lastState?.terminated) { pendingInit++; waiting++; } }
    else { pendingInit++; unknown++; }
  }
  for (const c of spec.containers ?? []) {
    const s = statusOf(statuses, c.name);
    if (!s) { unknown++; continue; }
    if (s.state?.running) running++;
    else if (s.state?.terminated) { stopped++; if (s.state.terminated.exitCode === 0) succeeded++; }
    else if (s.state?.waiting) { if (s.lastState?.terminated) stopped++; else waiting++; }
    else unknown++;
  }
  const restartPolicy = spec.restartPolicy ?? 'Always';
  if (failedInit > 0 && restartPolicy === 'Never') return 'Failed';
  if ((pendingInit > 0 && !anyRegularStarted(spec, statuses)) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** Go's %s of a []string: `[a b]`. */
const goList = (xs: string[]) => `[${xs.join(' ')}]`;

export interface Condition { type: string; status: 'True' | 'False'; reason?: string; message?: string }

/** GeneratePodInitializedCondition. */
export function initializedCondition(spec: Obj, initStatuses: Obj[], statuses: Obj[], phase: string): Condition {
  if (!(spec.initContainers ?? []).length) return { type: 'Initialized', status: 'True' };
  const unknown: string[] = []; const incomplete: string[] = [];
  for (const c of spec.initContainers) {
    const s = statusOf(initStatuses, c.name);
    if (!s) { unknown.push(c.name); continue; }
    if (isRestartable(c)) { if (!s.started) incomplete.push(c.name); continue; }
    if (!s.state?.terminated || s.state.terminated.exitCode !== 0) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && !unknown.length) return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  if (anyRegularStarted(spec, statuses)) return { type: 'Initialized', status: 'True' };
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length) msgs.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (msgs.length) return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: msgs.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

/** GenerateContainersReadyCondition. */
export function containersReadyCondition(spec: Obj, initStatuses: Obj[], statuses: Obj[], phase: string): Condition {
  const unknown: string[] = []; const unready: string[] = [];
  for (const c of spec.initContainers ?? []) {
    if (!isRestartable(c)) continue;
    const s = statusOf(initStatuses, c.name);
    if (!s) unknown.push(c.name); else if (!s.ready) unready.push(c.name);
  }
  for (const c of spec.containers ?? []) {
    const s = statusOf(statuses, c.name);
    if (!s) unknown.push(c.name); else if (!s.ready) unready.push(c.name);
  }
  if ((phase === 'Succeeded' && !unknown.length) || phase === 'Failed') {
    return { type: 'ContainersReady', status: 'False', reason: phase === 'Failed' ? 'PodFailed' : 'PodCompleted' };
  }
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length) msgs.push(`containers with unready status: ${goList(unready)}`);
  if (msgs.length) return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: msgs.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

/** GeneratePodReadyCondition: ContainersReady, then the readiness gates. */
export function readyCondition(spec: Obj, existing: Obj[], containersReady: Condition): Condition {
  if (containersReady.status !== 'True') {
    return { type: 'Ready', status: containersReady.status, reason: containersReady.reason, message: containersReady.message };
  }
  const msgs: string[] = [];
  for (const g of spec.readinessGates ?? []) {
    const c = existing.find((x) => x.type === g.conditionType);
    if (!c) msgs.push(`corresponding condition of pod readiness gate "${g.conditionType}" does not exist.`);
    else if (c.status !== 'True') msgs.push(`the status of pod readiness gate "${g.conditionType}" is not "True", but ${c.status}`);
  }
  if (msgs.length) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: msgs.join(', ') };
  return { type: 'Ready', status: 'True' };
}

/**
 * The conditions list as generateAPIPodStatus and the status manager leave
 * it: conditions the kubelet does not own first (as they were), then
 * PodReadyToStartContainers, Initialized, Ready, ContainersReady,
 * PodScheduled; lastTransitionTime kept while a condition's status holds.
 */
export function podConditions(spec: Obj, old: Obj[], sandboxReady: boolean, initStatuses: Obj[], statuses: Obj[], phase: string, now: string): Obj[] {
  const foreign = old.filter((c) => !KUBELET_CONDITIONS.includes(c.type));
  const cr = containersReadyCondition(spec, initStatuses, statuses, phase);
  const mine: Condition[] = [
    { type: 'PodReadyToStartContainers', status: sandboxReady ? 'True' : 'False' },
    initializedCondition(spec, initStatuses, statuses, phase),
    readyCondition(spec, old, cr),
    cr,
    { type: 'PodScheduled', status: 'True' },
  ];
  return [...foreign, ...mine.map((c) => {
    const prev = old.find((o) => o.type === c.type);
    const out: Obj = { type: c.type, status: c.status, lastProbeTime: null,
      lastTransitionTime: prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : now };
    if (c.reason) out.reason = c.reason;
    if (c.message) out.message = c.message;
    return out;
  })];
}

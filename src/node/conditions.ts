/**
 * The node conditions the kubelet's status setters write
 * (pkg/kubelet/nodestatus/setters.go: MemoryPressureCondition,
 * DiskPressureCondition, PIDPressureCondition, ReadyCondition), in that
 * order. The setters are the same on Windows: a Windows kubelet reports the
 * same four conditions with the same reasons and messages.
 */
export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

const HEALTHY: ReadonlyArray<[string, 'True' | 'False', string, string]> = [
  ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
];

/** MemoryPressureCondition while the eviction manager reports the node under memory pressure. */
const MEMORY_PRESSURE: [string, 'True', string, string] =
  ['MemoryPressure', 'True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'];

/** What the kubelet's managers report that the setters turn into conditions. */
export interface NodePressure { memory?: boolean }

/**
 * The conditions of a node at `now`: healthy, but for the pressure its
 * eviction manager reports. A condition whose status is unchanged from
 * `previous` keeps its lastTransitionTime, as the setters do.
 */
export function healthyConditions(now: string, previous: NodeCondition[] = [], pressure: NodePressure = {}): NodeCondition[] {
  const rows = HEALTHY.map((row) => (row[0] === 'MemoryPressure' && pressure.memory ? MEMORY_PRESSURE : row));
  return rows.map(([type, status, reason, message]) => {
    const old = previous.find((c) => c.type === type);
    const lastTransitionTime = old && old.status === status ? old.lastTransitionTime : now;
    return { type, status, lastHeartbeatTime: now, lastTransitionTime, reason, message };
  });
}

/** Whether two condition lists differ in anything but heartbeat times (a change the kubelet posts at once). */
export function conditionsChanged(a: NodeCondition[], b: NodeCondition[]): boolean {
  if (a.length !== b.length) return true;
  return a.some((c, i) => {
    const d = b[i];
    return !d || c.type !== d.type || c.status !== d.status || c.reason !== d.reason || c.message !== d.message;
  });
}

/** The event each condition records when it first appears or changes status (nodestatus setters), by status. */
const EVENT_OF: Record<string, Partial<Record<NodeCondition['status'], string>>> = {
  MemoryPressure: { False: 'NodeHasSufficientMemory', True: 'NodeHasInsufficientMemory' },
  DiskPressure: { False: 'NodeHasNoDiskPressure' },
  PIDPressure: { False: 'NodeHasSufficientPID' },
};

/**
 * The node status events the setters record between two condition lists:
 * the pressure conditions when new or changed; Ready only when an existing
 * Ready condition changes (NodeReady / NodeNotReady), as ReadyCondition does.
 */
export function conditionEvents(previous: NodeCondition[], next: NodeCondition[]): string[] {
  const out: string[] = [];
  for (const c of next) {
    const old = previous.find((p) => p.type === c.type);
    if (c.type === 'Ready') {
      if (old && old.status !== c.status) out.push(c.status === 'True' ? 'NodeReady' : 'NodeNotReady');
    } else {
      const event = EVENT_OF[c.type]?.[c.status];
      if (event && (!old || old.status !== c.status)) out.push(event);
    }
  }
  return out;
}

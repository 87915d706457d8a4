/**
 * The `memory.available` signal as v1.32's eviction manager observes it from
 * the Summary API (pkg/kubelet/eviction: helpers_others.go and
 * helpers_windows.go, makeMemoryAvailableSignalObservation). Linux reads the
 * node's memory stats (capacity − working set, as cadvisor reports them);
 * Windows reads the `windows-global-commit-memory` system container (the
 * commit limit − the commit total), so a Windows node is watched too.
 */
import type { Summary } from '../../kubelet-server/stats-summary.js';

export interface SignalObservation {
  availableBytes: number;
  /** available + what is used: the capacity a percentage threshold is taken of. */
  capacityBytes: number;
  /** When the stats were taken (metav1.Time, to the second). */
  time: string;
}

/** statsapi.SystemContainerWindowsGlobalCommitMemory. */
export const WINDOWS_GLOBAL_COMMIT_MEMORY = 'windows-global-commit-memory';

/** The observation, or undefined when the stats lack what it needs (upstream then has no signal and evicts nothing). */
export function memoryAvailableObservation(os: 'linux' | 'windows', summary: Summary): SignalObservation | undefined {
  if (os === 'windows') {
    const commit = summary.node.systemContainers.find((c) => c.name === WINDOWS_GLOBAL_COMMIT_MEMORY)?.memory;
    if (commit?.availableBytes === undefined) return undefined;
    return { availableBytes: commit.availableBytes, capacityBytes: commit.availableBytes + commit.usageBytes, time: commit.time };
  }
  const memory = summary.node.memory;
  if (memory.availableBytes === undefined) return undefined;
  return { availableBytes: memory.availableBytes, capacityBytes: memory.availableBytes + memory.workingSetBytes, time: memory.time };
}

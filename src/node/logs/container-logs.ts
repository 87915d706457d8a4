/**
 * What the emulated container runtime wrote to each container's stdout and
 * stderr, kept per container instance (pod UID, container name, restart
 * count) as the CRI keeps one log file per instance, so `kubectl logs
 * --previous` reads the instance before the current one. Followers get each
 * new line and learn when the instance has exited.
 */
import type { ContainerLogReader, LogFollower, LogLine, LogStream } from '../../apimachinery/container-log.js';

interface Instance { lines: LogLine[]; bytes: number; ended: boolean; followers: Set<LogFollower> }

/** kubelet's default containerLogMaxSize (10Mi): older lines are rotated away. */
export const MAX_BYTES_PER_INSTANCE = 10 * 1024 * 1024;

export class ContainerLogs implements ContainerLogReader {
  private readonly pods = new Map<string, Map<string, Instance>>();

  constructor(private readonly maxBytes = MAX_BYTES_PER_INSTANCE) {}

  private key(container: string, restartCount: number): string { return `${container}/${restartCount}`; }

  private instance(podUID: string, container: string, restartCount: number, create: boolean): Instance | undefined {
    let pod = this.pods.get(podUID);
    if (!pod) {
      if (!create) return undefined;
      this.pods.set(podUID, pod = new Map());
    }
    const k = this.key(container, restartCount);
    let inst = pod.get(k);
    if (!inst && create) pod.set(k, inst = { lines: [], bytes: 0, ended: false, followers: new Set() });
    return inst;
  }

  /** Appends one line (without its newline) written by the instance. */
  append(podUID: string, container: string, restartCount: number, stream: LogStream, text: string, time = new Date()): void {
    const inst = this.instance(podUID, container, restartCount, true)!;
    const line: LogLine = { time, stream, text };
    inst.lines.push(line);
    inst.bytes += text.length + 1;
    while (inst.bytes > this.maxBytes && inst.lines.length > 1) inst.bytes -= inst.lines.shift()!.text.length + 1;
    for (const f of inst.followers) f(line);
  }

  /** Marks the instance exited: followers are told the stream ended. */
  end(podUID: string, container: string, restartCount: number): void {
    const inst = this.instance(podUID, container, restartCount, true)!;
    inst.ended = true;
    for (const f of inst.followers) f(null);
    inst.followers.clear();
  }

  /** Whether the runtime has any record of this instance. */
  has(podUID: string, container: string, restartCount: number): boolean {
    return this.instance(podUID, container, restartCount, false) !== undefined;
  }

  /** The lines kept for an instance, oldest first. */
  lines(podUID: string, container: string, restartCount: number): readonly LogLine[] {
    return this.instance(podUID, container, restartCount, false)?.lines ?? [];
  }

  /** Calls `f` with each new line, and with null once the instance exits; returns the unsubscribe. */
  follow(podUID: string, container: string, restartCount: number, f: LogFollower): () => void {
    const inst = this.instance(podUID, container, restartCount, true)!;
    if (inst.ended) { queueMicrotask(() => f(null)); return () => {}; }
    inst.followers.add(f);
    return () => inst.followers.delete(f);
  }

  /** Whether anyone follows the instance right now (a `kubectl logs -f` or attach). */
  followed(podUID: string, container: string, restartCount: number): boolean {
    return (this.instance(podUID, container, restartCount, false)?.followers.size ?? 0) > 0;
  }

  /** Forgets a pod's logs (the pod was removed from the node). */
  dropPod(podUID: string): void {
    const pod = this.pods.get(podUID);
    if (!pod) return;
    for (const inst of pod.values()) { for (const f of inst.followers) f(null); inst.followers.clear(); }
    this.pods.delete(podUID);
  }
}

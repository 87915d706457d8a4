/**
 * A container's log as the runtime keeps it (one log per container
 * instance: pod UID, container name, restart count): what the kubelet's
 * log and attach endpoints read, whoever serves them.
 */
export type LogStream = 'stdout' | 'stderr';

export interface LogLine { time: Date; stream: LogStream; text: string }

export type LogFollower = (line: LogLine | null) => void;

/** The reading half of a container log store. */
export interface ContainerLogReader {
  /** Whether the instance has a log. */
  has(podUID: string, container: string, restartCount: number): boolean;
  lines(podUID: string, container: string, restartCount: number): readonly LogLine[];
  /** Calls f with each new line, and with null once the instance has exited; returns the unfollow. */
  follow(podUID: string, container: string, restartCount: number, f: LogFollower): () => void;
}

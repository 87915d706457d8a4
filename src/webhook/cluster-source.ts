/**
 * The cluster the webhook checks objects against, kept fresh: a live
 * cluster (--kubeconfig, or the pod's service account in a cluster) is read
 * again every refresh interval, so nodes that join or leave change what
 * "would not schedule" and the build rules say. A failed refresh keeps the
 * last description (an API server restart must not turn every check off)
 * and is logged.
 */
import type { ClusterDescription } from '../lint/types.js';

export type DescribeCluster = () => Promise<ClusterDescription>;

export class ClusterSource {
  private described?: ClusterDescription;
  private timer?: NodeJS.Timeout;

  constructor(private readonly describe: DescribeCluster, private readonly log: (line: string) => void) {}

  /** The latest description; undefined until the first one was read (the webhook is not ready). */
  current(): ClusterDescription | undefined {
    return this.described;
  }

  async refresh(): Promise<void> {
    try {
      this.described = await this.describe();
    } catch (e) {
      this.log(`reading the cluster failed${this.described ? ', keeping the last description' : ''}: ${(e as Error).message}`);
    }
  }

  /** Reads the cluster now and every intervalMs after (0: once). */
  async start(intervalMs: number): Promise<void> {
    await this.refresh();
    if (intervalMs > 0) {
      this.timer = setInterval(() => { void this.refresh(); }, intervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

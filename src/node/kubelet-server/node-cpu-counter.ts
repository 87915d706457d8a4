/**
 * A node's cumulative CPU time, as the root cgroup's cpuacct counts it: it
 * only grows, whatever pods come and go. Each reading adds the current rate
 * over the time since the last one.
 */
export class NodeCPUCounter {
  private lastMs: number | undefined;
  private total = 0;

  /** @param bootMs the node's boot: the counter starts at zero there. */
  constructor(private readonly bootMs: number, private readonly idleNanoCores: number) {}

  /** Core-nanoseconds at `nowMs` given the rate (nanocores) now. */
  read(nowMs: number, nanoCores: number): number {
    if (this.lastMs === undefined) {
      // Before the first reading only the node's own use is known.
      this.total = this.idleNanoCores * Math.max(0, (nowMs - this.bootMs) / 1000);
    } else if (nowMs > this.lastMs) {
      this.total += nanoCores * ((nowMs - this.lastMs) / 1000);
    }
    this.lastMs = Math.max(this.lastMs ?? nowMs, nowMs);
    return this.total;
  }
}

/**
 * Which revision each of this process's etcd watches has handed out, so that a
 * write resolves once the watches covering its key have had its event: the
 * in-process listers and informers then never lag this process's own writes,
 * as with the SQLite backend (admission reading a lister right after a write
 * sees it). A watch that is reconnecting is waited for at most WAIT_MS.
 */
const WAIT_MS = 2000;

interface Progress { base: string; delivered: number; waiters: { rev: number; done: () => void }[] }

export class DeliveryTracker {
  private readonly watches = new Set<Progress>();

  /** A watch of keys under base whose events up to `from` are behind it. */
  track(base: string, from: number): { advance(rev: number): void; end(): void } {
    const p: Progress = { base, delivered: from, waiters: [] };
    this.watches.add(p);
    const release = (all: boolean) => {
      const due = all ? p.waiters : p.waiters.filter((w) => w.rev <= p.delivered);
      p.waiters = all ? [] : p.waiters.filter((w) => w.rev > p.delivered);
      for (const w of due) w.done();
    };
    return {
      advance: (rev) => { if (rev > p.delivered) p.delivered = rev; release(false); },
      end: () => { this.watches.delete(p); release(true); },
    };
  }

  /** Resolves once every watch covering key has handed out revision rev (or WAIT_MS passed). */
  async reached(key: string, rev: number): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const p of this.watches) {
      if (p.delivered >= rev || !key.startsWith(p.base)) continue;
      waits.push(new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, WAIT_MS);
        p.waiters.push({ rev, done: () => { clearTimeout(timer); resolve(); } });
      }));
    }
    if (waits.length) await Promise.all(waits);
  }
}

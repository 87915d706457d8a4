/**
 * A result that arrives later (a connection's HTTP response, the next
 * request an HttpListener accepts). A program that needs it yields a `wait`
 * step on it; whoever plays the program resumes it once it is settled.
 * Callbacks run at settle time; runners defer their own work to the next
 * turn so that one program's progress never runs inside another's.
 */
export class Pending<T> {
  private result: { value: T } | undefined;
  private readonly callbacks = new Set<() => void>();

  get settled(): boolean { return this.result !== undefined; }

  /** The value; only once settled. */
  get value(): T {
    if (!this.result) throw new Error('Pending.value read before it was settled');
    return this.result.value;
  }

  /** Settles once; later calls are ignored (a response closed twice is sent once). */
  settle(value: T): void {
    if (this.result) return;
    this.result = { value };
    const cbs = [...this.callbacks];
    this.callbacks.clear();
    for (const cb of cbs) cb();
  }

  /** Calls `cb` once settled (at once when it already is); returns its removal. */
  onSettle(cb: () => void): () => void {
    if (this.result) { cb(); return () => {}; }
    this.callbacks.add(cb);
    return () => { this.callbacks.delete(cb); };
  }

  static of<T>(value: T): Pending<T> {
    const p = new Pending<T>();
    p.settle(value);
    return p;
  }
}

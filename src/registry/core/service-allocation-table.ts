/**
 * The allocations of service writes in flight. Upstream's cluster IP and
 * node port allocators are bitmaps whose Allocate is atomic: of two creates
 * asking for the same value one gets it, and a create that fails gives it
 * back (the allocation transaction's Revert). Here what is in use is read
 * from the stored services, which know nothing of a create that has
 * allocated but not yet been written; this table closes that gap.
 *
 * A value an allocation takes is held until its write is stored or fails.
 * Once stored, every list of services started afterwards sees it, but a
 * list that started before may not have: so an allocation also sees the
 * values written since it started, and those are forgotten only when no
 * allocation that started before their write is still running.
 */

interface Holding {
  /** The uid of the Service holding the value: its own holdings never conflict with it. */
  owner: string;
  /** The table's clock when the write holding it was stored; undefined while the write is in flight. */
  storedAt?: number;
}

export class ServiceAllocationTable {
  private clock = 0;
  private readonly holdings = new Map<string, Holding>();
  private readonly running = new Set<ServiceAllocation>();

  /** Starts an allocation for the Service with that uid; call it before reading the stored services. */
  begin(owner: string, dryRun: boolean): ServiceAllocation {
    const a = new ServiceAllocation(this, owner, this.clock, dryRun);
    this.running.add(a);
    return a;
  }

  /** Whether a value is held by another Service, as the allocation that started at `since` must see it. */
  heldAgainst(key: string, owner: string, since: number): boolean {
    const h = this.holdings.get(key);
    return h !== undefined && h.owner !== owner && (h.storedAt === undefined || h.storedAt > since);
  }

  hold(key: string, owner: string): void {
    this.holdings.set(key, { owner });
  }

  /** The allocation's write was stored (its values stay visible as described above) or failed (they are free). */
  finish(a: ServiceAllocation, keys: Iterable<string>, stored: boolean): void {
    if (!this.running.delete(a)) return;
    const at = stored ? ++this.clock : 0;
    for (const key of keys) {
      const h = this.holdings.get(key);
      if (!h || h.owner !== a.owner || h.storedAt !== undefined) continue;
      if (stored) h.storedAt = at; else this.holdings.delete(key);
    }
    this.forgetStored();
  }

  /** Stored holdings every running allocation's list has seen in storage. */
  private forgetStored(): void {
    let oldest = Infinity;
    for (const r of this.running) oldest = Math.min(oldest, r.since);
    for (const [key, h] of this.holdings) if (h.storedAt !== undefined && h.storedAt <= oldest) this.holdings.delete(key);
  }

  /** How many values are held (for tests: nothing may be left behind). */
  get size(): number {
    return this.holdings.size;
  }
}

/** One write's allocations: values it took, released or kept together when the write ends. */
export class ServiceAllocation {
  private readonly taken = new Set<string>();
  private done = false;

  constructor(private readonly table: ServiceAllocationTable, readonly owner: string, readonly since: number,
    private readonly dryRun: boolean) {}

  /** Whether another write holds the value (the stored services are the caller's to check). */
  held(key: string): boolean {
    return !this.taken.has(key) && this.table.heldAgainst(key, this.owner, this.since);
  }

  /** Takes the value (a dry run only remembers it, as upstream's DryRun allocators allocate nothing). */
  take(key: string): void {
    this.taken.add(key);
    if (!this.dryRun) this.table.hold(key, this.owner);
  }

  /** The FinishFunc: true once the write is stored, false when it failed or was not written. */
  finish(stored: boolean): void {
    if (this.done) return;
    this.done = true;
    this.table.finish(this, this.dryRun ? [] : this.taken, stored && !this.dryRun);
  }
}

const tables = new WeakMap<object, ServiceAllocationTable>();

/** The table of one store (the lookup the service hooks are given). */
export function allocationTableOf(store: object): ServiceAllocationTable {
  let t = tables.get(store);
  if (!t) tables.set(store, t = new ServiceAllocationTable());
  return t;
}

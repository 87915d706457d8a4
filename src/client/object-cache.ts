import { controllerOf, type KObject } from '../apimachinery/object.js';
import { keyOf } from './keys.js';

const rvOf = (o: KObject) => Number(o.metadata.resourceVersion ?? 0);

/**
 * The informer's indexer for one resource: objects by key, by namespace and
 * by controller UID. Writes a controller made are put in at once (when
 * newer than what is held) so its next sync does not act on stale state.
 */
export class ObjectCache {
  private readonly byKey = new Map<string, KObject>();
  private readonly byNamespace = new Map<string, Map<string, KObject>>();
  private readonly byController = new Map<string, Set<string>>();
  /** Keys of objects without a controller, by namespace. */
  private readonly orphansByNamespace = new Map<string, Set<string>>();

  get(namespace: string, name: string): KObject | undefined {
    return this.byKey.get(namespace ? `${namespace}/${name}` : name);
  }

  /** The objects of a namespace ('' for cluster-scoped ones), or of every namespace ('*'). */
  list(namespace: string): KObject[] {
    if (namespace === '*') return [...this.byKey.values()];
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  /** Objects whose controllerRef names this UID. */
  controlledBy(uid: string): KObject[] {
    return [...(this.byController.get(uid) ?? [])].map((k) => this.byKey.get(k)!).filter(Boolean);
  }

  /** Objects of a namespace without a controllerRef. */
  orphans(namespace: string): KObject[] {
    return [...(this.orphansByNamespace.get(namespace) ?? [])].map((k) => this.byKey.get(k)!).filter(Boolean);
  }

  /**
   * What a controller with this UID can claim in a namespace: what it owns
   * and the orphans (others' objects it would ignore anyway).
   */
  claimable(namespace: string, uid: string): KObject[] {
    return [...this.controlledBy(uid), ...this.orphans(namespace)];
  }

  get size(): number { return this.byKey.size; }

  /** Stores the object unless a newer version is held; returns the version it replaced. */
  upsert(obj: KObject): { old?: KObject; applied: boolean } {
    const key = keyOf(obj);
    const old = this.byKey.get(key);
    if (old && old.metadata.uid === obj.metadata.uid && rvOf(old) > rvOf(obj)) return { old, applied: false };
    const ns = obj.metadata.namespace ?? '';
    const c = controllerOf(obj)?.uid;
    if (old && controllerOf(old)?.uid === c) {
      // The common update: same key, same controller; only the objects held change.
      this.byKey.set(key, obj);
      this.byNamespace.get(ns)!.set(key, obj);
      return { old, applied: true };
    }
    if (old) this.unindex(key, old);
    this.byKey.set(key, obj);
    if (!this.byNamespace.has(ns)) this.byNamespace.set(ns, new Map());
    this.byNamespace.get(ns)!.set(key, obj);
    if (c) {
      if (!this.byController.has(c)) this.byController.set(c, new Set());
      this.byController.get(c)!.add(key);
    } else {
      if (!this.orphansByNamespace.has(ns)) this.orphansByNamespace.set(ns, new Set());
      this.orphansByNamespace.get(ns)!.add(key);
    }
    return { old, applied: true };
  }

  remove(obj: KObject): KObject | undefined {
    const key = keyOf(obj);
    const old = this.byKey.get(key);
    if (!old || old.metadata.uid !== obj.metadata.uid) return undefined;
    this.unindex(key, old);
    this.byKey.delete(key);
    return old;
  }

  private unindex(key: string, old: KObject): void {
    this.byNamespace.get(old.metadata.namespace ?? '')?.delete(key);
    const c = controllerOf(old)?.uid;
    if (c) {
      const s = this.byController.get(c);
      s?.delete(key);
      if (s && !s.size) this.byController.delete(c);
    } else {
      this.orphansByNamespace.get(old.metadata.namespace ?? '')?.delete(key);
    }
  }
}

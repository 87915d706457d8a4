import type { Storage, StorageEvent } from '../storage/types.js';
import { decode, decodeValue } from './codec.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from './types.js';

/**
 * An in-memory copy of one resource, kept current by a storage watch: what
 * upstream's admission plugins read through informer listers. Writes reach
 * it in the same tick as their commit, so it never lags this process's
 * own writes. Objects are shared: callers must not change them.
 */
export class Lister {
  private readonly byNamespace = new Map<string, Map<string, KObject>>();
  private ready?: Promise<void>;

  constructor(private readonly storage: Storage, private readonly def: ResourceDef, private readonly prefix: string) {}

  private start(): Promise<void> {
    this.ready ??= (async () => {
      const list = await this.storage.list(this.prefix);
      for (const kv of list.items) this.put(decode(this.def, kv));
      await this.storage.watch(this.prefix, list.revision, (events) => { for (const e of events) this.apply(e); });
    })();
    return this.ready;
  }

  private put(obj: KObject): void {
    const ns = obj.metadata.namespace ?? '';
    let m = this.byNamespace.get(ns);
    if (!m) this.byNamespace.set(ns, m = new Map());
    m.set(obj.metadata.name!, obj);
  }

  private apply(e: StorageEvent): void {
    if (e.type === 'PUT') {
      this.put(decodeValue(this.def, e.value!, e.revision));
      return;
    }
    const gone = decodeValue(this.def, e.prevValue!, e.revision);
    this.byNamespace.get(gone.metadata.namespace ?? '')?.delete(gone.metadata.name!);
  }

  async get(namespace: string, name: string): Promise<KObject | undefined> {
    await this.start();
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** Objects of one namespace, or of all for ''. */
  async list(namespace: string): Promise<KObject[]> {
    await this.start();
    if (namespace || !this.def.namespaced) return [...(this.byNamespace.get(namespace)?.values() ?? [])];
    return [...this.byNamespace.values()].flatMap((m) => [...m.values()]);
  }
}

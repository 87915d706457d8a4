/**
 * The informer caches the scheduler reads besides pods and nodes: namespaces
 * (labels for namespaceSelector), claims, volumes, classes, disruption
 * budgets, and the Services and controllers behind helper.DefaultSelector.
 */
import { inform } from '../controllers/informer.js';
import type { Store } from '../registry/store.js';
import { fromLabelSelector, type LabelSelector } from '../selectors/labels.js';
import type { WatchHandle } from '../storage/types.js';
import type { ClusterEvent, Listers } from './framework.js';
import type { PodInfo } from './pod-info.js';

type Obj = any;
const key = (o: Obj) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

class Cache {
  readonly items = new Map<string, Obj>();
  get(ns: string, name: string): Obj | undefined { return this.items.get(`${ns}/${name}`); }
  inNamespace(ns: string): Obj[] { return [...this.items.values()].filter((o) => o.metadata?.namespace === ns); }
}

const WATCHED: [string, string, string, ClusterEvent | undefined][] = [
  ['', 'v1', 'namespaces', 'NamespaceChange'],
  ['', 'v1', 'persistentvolumeclaims', 'PvcChange'],
  ['', 'v1', 'persistentvolumes', 'PvChange'],
  ['storage.k8s.io', 'v1', 'storageclasses', 'StorageClassChange'],
  ['policy', 'v1', 'poddisruptionbudgets', undefined],
  ['', 'v1', 'services', 'ServiceChange'],
  ['', 'v1', 'replicationcontrollers', undefined],
  ['apps', 'v1', 'replicasets', undefined],
  ['apps', 'v1', 'statefulsets', undefined],
];

export class InformerListers implements Listers {
  private readonly caches = new Map<string, Cache>();
  private readonly handles: WatchHandle[] = [];

  constructor(private readonly store: Store | undefined, private readonly onEvent: (e: ClusterEvent) => void) {
    for (const [, , r] of WATCHED) this.caches.set(r, new Cache());
  }

  /** Listers over objects listed once (explain-scheduling, on the client side). */
  static fromLists(lists: Partial<Record<string, any[]>>): InformerListers {
    const l = new InformerListers(undefined, () => {});
    for (const [r, items] of Object.entries(lists)) {
      const cache = l.caches.get(r);
      if (cache) for (const o of items ?? []) cache.items.set(key(o), o);
    }
    return l;
  }

  /** The resources these listers read, as [group, version, resource]. */
  static readonly RESOURCES = WATCHED.map(([g, v, r]) => [g, v, r] as const);

  async start(): Promise<void> {
    if (!this.store) return;
    for (const [g, v, r, event] of WATCHED) {
      const def = this.store.find(g, v, r);
      if (!def) continue;
      const cache = this.caches.get(r)!;
      let started = false;
      this.handles.push(await inform(this.store, def, (type, obj) => {
        if (type === 'DELETED') cache.items.delete(key(obj)); else cache.items.set(key(obj), obj);
        if (started && event) this.onEvent(event);
      }));
      started = true;
    }
  }

  stop(): void { for (const h of this.handles) h.cancel(); }

  namespaceLabels = (ns: string): Record<string, string> | undefined => this.caches.get('namespaces')!.get('', ns)?.metadata?.labels;
  pvc(ns: string, name: string): Obj | undefined { return this.caches.get('persistentvolumeclaims')!.get(ns, name); }
  pv(name: string): Obj | undefined { return this.caches.get('persistentvolumes')!.get('', name); }
  pvs(): Iterable<Obj> { return this.caches.get('persistentvolumes')!.items.values(); }
  storageClass(name: string): Obj | undefined { return this.caches.get('storageclasses')!.get('', name); }
  pdbs(): Obj[] { return [...this.caches.get('poddisruptionbudgets')!.items.values()]; }

  defaultSelector(pod: PodInfo): LabelSelector | undefined {
    const matchLabels: Record<string, string> = {};
    const matchExpressions: any[] = [];
    for (const svc of this.caches.get('services')!.inNamespace(pod.namespace)) {
      const sel = svc.spec?.selector;
      if (!sel || !Object.keys(sel).length) continue;
      if (Object.entries(sel).every(([k, v]) => pod.labels[k] === v)) Object.assign(matchLabels, sel);
    }
    const owner = (pod.pod.metadata?.ownerReferences ?? []).find((o: any) => o?.controller);
    if (owner) {
      const kind = `${owner.apiVersion}/${owner.kind}`;
      if (kind === 'v1/ReplicationController') {
        Object.assign(matchLabels, this.caches.get('replicationcontrollers')!.get(pod.namespace, owner.name)?.spec?.selector ?? {});
      } else if (kind === 'apps/v1/ReplicaSet' || kind === 'apps/v1/StatefulSet') {
        const o = this.caches.get(kind.endsWith('ReplicaSet') ? 'replicasets' : 'statefulsets')!.get(pod.namespace, owner.name);
        const s = o?.spec?.selector;
        for (const [k, v] of Object.entries(s?.matchLabels ?? {})) matchExpressions.push({ key: k, operator: 'In', values: [v] });
        matchExpressions.push(...(s?.matchExpressions ?? []));
      }
    }
    if (!Object.keys(matchLabels).length && !matchExpressions.length) return undefined;
    return fromLabelSelector({ matchLabels, matchExpressions });
  }
}

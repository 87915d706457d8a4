/**
 * The informer caches the scheduler reads besides pods and nodes: namespaces
 * (labels for namespaceSelector), claims, volumes, classes, disruption
 * budgets, and the Services and controllers behind helper.DefaultSelector.
 */
import type { KObject } from '../apimachinery/object.js';
import type { InformerFactory } from '../client/informer-factory.js';
import { ObjectCache } from '../client/object-cache.js';
import {
  namespaces, persistentvolumeclaims, persistentvolumes, poddisruptionbudgets, replicasets, replicationcontrollers, services,
  statefulsets, storageclasses,
} from '../client/resources.js';
import type { ResourceRef } from '../client/types.js';
import { fromLabelSelector, type LabelSelector } from '../selectors/labels.js';
import type { ClusterEvent, Listers } from './framework.js';
import type { PodInfo } from './pod-info.js';

type Obj = any;

/** What the listers read of one resource: an informer's cache, or one filled from a list. */
interface Reader {
  get(namespace: string, name: string): KObject | undefined;
  /** '' for cluster-scoped objects, '*' for every namespace. */
  list(namespace: string): KObject[];
}

/** The resources read, with the cluster event a change of one is for the queue (none: read at the time only). */
const WATCHED: [ResourceRef<unknown>, ClusterEvent | undefined][] = [
  [namespaces, 'NamespaceChange'],
  [persistentvolumeclaims, 'PvcChange'],
  [persistentvolumes, 'PvChange'],
  [storageclasses, 'StorageClassChange'],
  [poddisruptionbudgets, undefined],
  [services, 'ServiceChange'],
  [replicationcontrollers, undefined],
  [replicasets, undefined],
  [statefulsets, undefined],
];

export class InformerListers implements Listers {
  private readonly readers = new Map<string, Reader>();
  private readonly removals: (() => void)[] = [];

  constructor(private readonly informers: InformerFactory | undefined, private readonly onEvent: (e: ClusterEvent) => void) {
    // Until started (and without informers), every resource reads as empty.
    for (const [ref] of WATCHED) this.readers.set(ref.resource, new ObjectCache());
  }

  /** Listers over objects listed once (explain-scheduling, on the client side). */
  static fromLists(lists: Partial<Record<string, KObject[]>>): InformerListers {
    const l = new InformerListers(undefined, () => {});
    for (const [r, items] of Object.entries(lists)) {
      const cache = l.readers.get(r);
      if (cache instanceof ObjectCache) for (const o of items ?? []) cache.upsert(o);
    }
    return l;
  }

  /** The resources these listers read, as [group, version, resource]. */
  static readonly RESOURCES = WATCHED.map(([ref]) => [ref.group, ref.version, ref.resource] as const);

  /** Each resource's shared informer, synced, with the queue told of changes after the first list. */
  async start(): Promise<void> {
    if (!this.informers) return;
    for (const [ref, event] of WATCHED) {
      const informer = this.informers.forResource(ref);
      let synced = false;
      this.removals.push(informer.onEvent(() => { if (synced && event) this.onEvent(event); }));
      await informer.start();
      synced = true;
      this.readers.set(ref.resource, informer.cache);
    }
  }

  stop(): void { for (const remove of this.removals.splice(0)) remove(); }

  private reader(resource: string): Reader {
    return this.readers.get(resource) ?? new ObjectCache();
  }

  namespaceLabels = (ns: string): Record<string, string> | undefined => this.reader('namespaces').get('', ns)?.metadata?.labels;
  pvc(ns: string, name: string): Obj { return this.reader('persistentvolumeclaims').get(ns, name); }
  pv(name: string): Obj { return this.reader('persistentvolumes').get('', name); }
  pvs(): Iterable<Obj> { return this.reader('persistentvolumes').list(''); }
  storageClass(name: string): Obj { return this.reader('storageclasses').get('', name); }
  pdbs(): Obj[] { return this.reader('poddisruptionbudgets').list('*'); }

  defaultSelector(pod: PodInfo): LabelSelector | undefined {
    const matchLabels: Record<string, string> = {};
    const matchExpressions: any[] = [];
    for (const svc of this.reader('services').list(pod.namespace) as Obj[]) {
      const sel = svc.spec?.selector;
      if (!sel || !Object.keys(sel).length) continue;
      if (Object.entries(sel).every(([k, v]) => pod.labels[k] === v)) Object.assign(matchLabels, sel);
    }
    const owner = (pod.pod.metadata?.ownerReferences ?? []).find((o: any) => o?.controller);
    if (owner) {
      const kind = `${owner.apiVersion}/${owner.kind}`;
      if (kind === 'v1/ReplicationController') {
        Object.assign(matchLabels, (this.reader('replicationcontrollers').get(pod.namespace, owner.name) as Obj)?.spec?.selector ?? {});
      } else if (kind === 'apps/v1/ReplicaSet' || kind === 'apps/v1/StatefulSet') {
        const o: Obj = this.reader(kind.endsWith('ReplicaSet') ? 'replicasets' : 'statefulsets').get(pod.namespace, owner.name);
        const s = o?.spec?.selector;
        for (const [k, v] of Object.entries(s?.matchLabels ?? {})) matchExpressions.push({ key: k, operator: 'In', values: [v] });
        matchExpressions.push(...(s?.matchExpressions ?? []));
      }
    }
    if (!Object.keys(matchLabels).length && !matchExpressions.length) return undefined;
    return fromLabelSelector({ matchLabels, matchExpressions });
  }
}

/**
 * The aggregator's view of the APIServices (its informer's lister): what discovery lists and where a
 * group version's requests go. Until an APIService of a group version served here has been seen (the
 * autoregistration writes them at start, and a custom resource's when its CRD is served), discovery
 * lists it with the priorities kube-apiserver registers it with; one deleted while the server runs
 * stays unlisted, as upstream's does until the next start.
 */
import { AUTO_REGISTER_MANAGED_LABEL, apiServiceName, orderKeyOf, type APIService } from '../apimachinery/apiservice.js';
import { builtinAPIServicePriority, CRD_API_SERVICE_PRIORITY } from '../apimachinery/apiservice-priorities.js';
import { customResourceSource } from '../registry/apiextensions/custom-resource-def.js';
import { followStored } from '../registry/auth/follow-stored.js';
import type { Store } from '../registry/store.js';
import type { ResourceDef, Stored } from '../registry/types.js';
import type { ListedVersion } from './discovery.js';

export class APIServiceIndex {
  private readonly byName = new Map<string, Stored<APIService>>();
  /** Registered once at start and deleted since: not listed again until the next start. */
  private readonly removed = new Set<string>();
  private readonly listeners: (() => void)[] = [];

  /** The index of the store's APIServices, filled in the background (empty until listed). */
  static follow(store: Store, log?: (msg: string) => void): APIServiceIndex {
    const index = new APIServiceIndex();
    const def = store.find('apiregistration.k8s.io', 'v1', 'apiservices');
    if (def) {
      followStored<Stored<APIService>>(store, def, (svc) => index.put(svc), (svc) => index.remove(svc))
        .catch((e: unknown) => log?.(`apiservices: ${(e as Error).message}`));
    }
    return index;
  }

  get(name: string): APIService | undefined {
    return this.byName.get(name);
  }

  /** The APIServices served by a Service. */
  remote(): Stored<APIService>[] {
    return [...this.byName.values()].filter((svc) => svc.spec?.service);
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** What discovery lists: every APIService, and the served group versions not registered yet. */
  listed(defs: readonly ResourceDef[]): ListedVersion[] {
    const out: ListedVersion[] = [...this.byName.values()].map((svc) => ({ ...orderKeyOf(svc), remote: !!svc.spec?.service }));
    const seen = new Set(out.map((v) => v.name));
    for (const d of defs) {
      const name = apiServiceName(d.group, d.version);
      if (d.group === 'apiregistration.k8s.io' || seen.has(name) || this.removed.has(name)) continue;
      const priority = builtinAPIServicePriority(name) ?? (customResourceSource(d) ? CRD_API_SERVICE_PRIORITY : undefined);
      if (!priority) continue;
      seen.add(name);
      out.push({ name, group: d.group, version: d.version, groupPriorityMinimum: priority.group, versionPriority: priority.version, remote: false });
    }
    return out;
  }

  private put(svc: Stored<APIService>): void {
    this.byName.set(svc.metadata.name!, svc);
    this.removed.delete(svc.metadata.name!);
    this.changed();
  }

  private remove(svc: Stored<APIService>): void {
    this.byName.delete(svc.metadata.name!);
    if (svc.metadata.labels?.[AUTO_REGISTER_MANAGED_LABEL] === 'onstart') this.removed.add(svc.metadata.name!);
    this.changed();
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

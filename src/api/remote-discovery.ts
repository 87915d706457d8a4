/**
 * The aggregator's discovery manager for service-backed APIServices (kube-aggregator v0.32
 * handler_discovery.go): each one's group version as its service describes it, fetched when the
 * APIService appears or changes and every minute after. The service's aggregated discovery
 * (GET /apis asking for apidiscovery.k8s.io v2 or v2beta1) is used when it answers with it,
 * otherwise its legacy /apis/<group>/<version> list, converted. A failed fetch keeps what was
 * fetched before, or an empty version, marked Stale.
 */
import type { RemoteVersion } from './discovery.js';

/** One GET to an APIService's service, as the aggregator's user (system:kube-aggregator). */
export type ServiceGet = (path: string, accept: string) => Promise<{ status: number; contentType: string; body: string }>;

/** A service-backed group version to keep discovery of. */
export interface RemoteGroupVersion { group: string; version: string; get: ServiceGet }

const ACCEPT_AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

const RESYNC_MS = 60_000;

type Json = Record<string, unknown>;

/** endpoints.ConvertGroupVersionIntoToDiscovery: a legacy APIResourceList's resources in aggregated form. */
export function convertLegacyResources(list: Json[]): Json[] {
  const out: Json[] = [];
  const parents = new Map<string, Json>();
  for (const r of list) {
    const name = String(r.name ?? '');
    if (name.includes('/')) continue;
    const d: Json = {
      resource: name, responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' },
      scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singularName ?? '', verbs: r.verbs ?? null,
    };
    if (Array.isArray(r.shortNames) && r.shortNames.length) d.shortNames = r.shortNames;
    if (Array.isArray(r.categories) && r.categories.length) d.categories = r.categories;
    out.push(d);
    parents.set(name, d);
  }
  for (const r of list) {
    const [parentName = '', sub] = String(r.name ?? '').split(/\/(.*)/s);
    if (sub === undefined) continue;
    let parent = parents.get(parentName);
    if (!parent) {
      parent = { resource: parentName, responseKind: { group: '', version: '', kind: '' }, scope: r.namespaced ? 'Namespaced' : 'Cluster' };
      out.push(parent);
      parents.set(parentName, parent);
    }
    const responseKind = r.kind ? { group: r.group ?? '', version: r.version ?? '', kind: r.kind } : { group: '', version: '', kind: '' };
    ((parent.subresources ??= []) as Json[]).push({ subresource: sub, responseKind, verbs: r.verbs ?? null });
  }
  return out;
}

function isAggregated(contentType: string): boolean {
  const p = contentType.replace(/\s/g, '');
  return p.includes('g=apidiscovery.k8s.io') && p.includes('as=APIGroupDiscoveryList') && (p.includes('v=v2;') || p.endsWith('v=v2') || p.includes('v=v2beta1'));
}

/** fetchFreshDiscoveryForService, for one group version: its resources, or an error. */
export async function fetchVersionDiscovery(gv: RemoteGroupVersion): Promise<Json[] | undefined> {
  const agg = await gv.get('/apis', ACCEPT_AGGREGATED);
  if (agg.status === 503) throw new Error(`service returned non-success response code: ${agg.status}`);
  if (agg.status === 200 && isAggregated(agg.contentType)) {
    const doc = JSON.parse(agg.body) as { items?: { metadata?: { name?: string }; versions?: { version?: string; resources?: Json[] }[] }[] };
    const group = doc.items?.find((g) => (g.metadata?.name ?? '') === gv.group);
    return group?.versions?.find((v) => v.version === gv.version)?.resources ?? undefined;
  }
  const path = gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`;
  const legacy = await gv.get(path, 'application/json');
  if (legacy.status !== 200) throw new Error(`failed to download legacy discovery for ${path}: ${legacy.body}`);
  const list = JSON.parse(legacy.body) as { resources?: Json[] };
  return convertLegacyResources(list.resources ?? []);
}

export class RemoteDiscovery {
  private readonly versions = new Map<string, RemoteVersion>();
  private readonly wanted = new Map<string, RemoteGroupVersion>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly changed: () => void) {
    this.timer = setInterval(() => { for (const key of this.wanted.keys()) void this.sync(key); }, RESYNC_MS);
    this.timer.unref();
  }

  get(gv: string): RemoteVersion | undefined {
    return this.versions.get(gv);
  }

  /** Keeps (or, with undefined, stops keeping) the discovery of group version `gv` ("group/version"). */
  set(gv: string, target: RemoteGroupVersion | undefined): void {
    if (!target) {
      this.wanted.delete(gv);
      if (this.versions.delete(gv)) this.changed();
      return;
    }
    this.wanted.set(gv, target);
    void this.sync(gv);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sync(gv: string): Promise<void> {
    const target = this.wanted.get(gv);
    if (!target) return;
    let next: RemoteVersion;
    try {
      next = { resources: await fetchVersionDiscovery(target) ?? [], freshness: 'Current' };
    } catch {
      next = { resources: this.versions.get(gv)?.resources ?? [], freshness: 'Stale' };
    }
    // The APIService may have gone or changed while the fetch ran.
    if (this.wanted.get(gv) !== target) return;
    this.versions.set(gv, next);
    this.changed();
  }
}

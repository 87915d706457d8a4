import { EMULATED_VERSION } from '../apimachinery/version.js';
import type { ResourceDef } from '../registry/types.js';
import { ALL_VERBS } from '../registry/types.js';
import { apiVersionOf } from '../apimachinery/object.js';
import { APIREGISTRATION_GROUP, sortedByGroupAndVersion, type APIServiceOrderKey } from '../apimachinery/apiservice.js';

/** A group version discovery lists: an APIService's, served here (local) or by its service. */
export interface ListedVersion extends APIServiceOrderKey {
  /** Served by a Service (its resources come from the service's own discovery). */
  remote: boolean;
}

/** What the aggregator last fetched of a service-backed group version's discovery. */
export interface RemoteVersion {
  resources: Record<string, unknown>[];
  /** Stale when the last fetch failed. */
  freshness: 'Current' | 'Stale';
}

interface GroupVersions { name: string; versions: ListedVersion[] }

export function versionInfo(): Record<string, string> {
  return {
    major: EMULATED_VERSION.major, minor: EMULATED_VERSION.minor, gitVersion: EMULATED_VERSION.gitVersion,
    gitCommit: '70d3cc986aa8221cd1dfb1121852688902d3bf53', gitTreeState: 'clean', buildDate: '2024-12-11T17:59:15Z',
    goVersion: 'go1.23.3', compiler: 'gc', platform: 'linux/amd64',
  };
}

/** The aggregator's own group, listed first and never through an APIService (apisHandler's discoveryGroup). */
const APIREGISTRATION: GroupVersions = {
  name: APIREGISTRATION_GROUP,
  versions: [{ name: `v1.${APIREGISTRATION_GROUP}`, group: APIREGISTRATION_GROUP, version: 'v1', groupPriorityMinimum: 0, versionPriority: 0, remote: false }],
};

/**
 * Discovery documents as kube-apiserver's aggregator serves them: /apis and /apis/<group> list the
 * APIServices (apiregistration.k8s.io first, then by group and version priority), the resources of a
 * local group version are the ones served here, those of a service-backed one what its service's
 * discovery said. Built for one state of the resources and APIServices.
 */
export class Discovery {
  readonly groups: GroupVersions[];
  private readonly byGV = new Map<string, ResourceDef[]>();
  private aggregatedCache = new Map<string, string>();

  constructor(defs: ResourceDef[], listed: ListedVersion[], private readonly remote: (gv: string) => RemoteVersion | undefined = () => undefined) {
    for (const d of defs) {
      const gv = apiVersionOf(d);
      if (!this.byGV.has(gv)) this.byGV.set(gv, []);
      this.byGV.get(gv)!.push(d);
    }
    const sorted = sortedByGroupAndVersion(listed).filter((g) => g[0]!.group !== '');
    this.groups = [APIREGISTRATION, ...sorted.map((versions) => ({ name: versions[0]!.group, versions }))];
  }

  /** Whether this server serves the group version itself (its resources, /apis/<group>/<version>). */
  hasGroupVersion(group: string, version: string): boolean {
    return this.byGV.has(group ? `${group}/${version}` : version);
  }

  hasGroup(group: string): boolean {
    return this.groups.some((g) => g.name === group);
  }

  apiVersions(serverAddress: string): unknown {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  }

  private apiGroup(g: GroupVersions): Record<string, unknown> {
    const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version }));
    return { name: g.name, versions, preferredVersion: versions[0] };
  }

  apiGroupList(): unknown {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.groups.map((g) => this.apiGroup(g)) };
  }

  apiGroupDoc(group: string): unknown {
    const g = this.groups.find((x) => x.name === group)!;
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(g) };
  }

  resourceList(group: string, version: string): unknown {
    const gv = group ? `${group}/${version}` : version;
    const resources: Record<string, unknown>[] = [];
    for (const d of this.byGV.get(gv) ?? []) {
      const r: Record<string, unknown> = {
        name: d.resource, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs ?? ALL_VERBS,
      };
      if (d.shortNames?.length) r.shortNames = d.shortNames;
      if (d.categories?.length) r.categories = d.categories;
      if (d.storageVersionHash) r.storageVersionHash = d.storageVersionHash;
      resources.push(r);
      for (const s of d.subresources ?? []) {
        const sr: Record<string, unknown> = { name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced };
        if (s.group !== undefined) sr.group = s.group;
        if (s.version !== undefined) sr.version = s.version;
        sr.kind = s.kind;
        sr.verbs = s.verbs;
        resources.push(sr);
      }
    }
    resources.sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : 1));
    const doc: Record<string, unknown> = { kind: 'APIResourceList' };
    if (group) doc.apiVersion = 'v1';
    doc.groupVersion = gv;
    doc.resources = resources;
    return doc;
  }

  /** A local group version's resources in aggregated discovery's form, sorted by name. */
  private localResources(gv: string): Record<string, unknown>[] {
    return (this.byGV.get(gv) ?? []).slice().sort((a, b) => (a.resource < b.resource ? -1 : 1)).map((d) => {
      const r: Record<string, unknown> = {
        resource: d.resource, responseKind: { group: '', version: '', kind: d.kind },
        scope: d.namespaced ? 'Namespaced' : 'Cluster', singularResource: d.singular,
        verbs: d.verbs ?? ALL_VERBS,
      };
      if (d.shortNames?.length) r.shortNames = d.shortNames;
      if (d.categories?.length) r.categories = d.categories;
      if (d.subresources?.length) {
        r.subresources = d.subresources.map((s) => ({
          subresource: s.name,
          responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind },
          verbs: s.verbs,
        }));
      }
      return r;
    });
  }

  /** apidiscovery.k8s.io v2 / v2beta1 document for /api (core) or /apis (groups), serialized once. */
  aggregated(core: boolean, apiVersion: 'v2' | 'v2beta1'): string {
    const cacheKey = `${core}/${apiVersion}`;
    const hit = this.aggregatedCache.get(cacheKey);
    if (hit) return hit;
    const items = core
      ? [{ metadata: { name: '' }, versions: [{ version: 'v1', resources: this.localResources('v1'), freshness: 'Current' }] }]
      : this.groups.map((g) => ({
        metadata: { name: g.name },
        versions: g.versions.flatMap((v) => {
          if (!v.remote) return [{ version: v.version, resources: this.localResources(`${g.name}/${v.version}`), freshness: 'Current' }];
          // A service-backed version appears once its service's discovery was fetched, or tried.
          const fetched = this.remote(`${g.name}/${v.version}`);
          return fetched ? [{ version: v.version, resources: fetched.resources, freshness: fetched.freshness }] : [];
        }),
      })).filter((g) => g.versions.length);
    const text = JSON.stringify({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${apiVersion}`, metadata: {}, items });
    this.aggregatedCache.set(cacheKey, text);
    return text;
  }
}

/** Which aggregated discovery version the Accept header asks for first, if any. */
export function aggregatedVersionWanted(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const part of (accept ?? '').split(',')) {
    const p = part.replace(/\s/g, '');
    if (!p.includes('g=apidiscovery.k8s.io') || !p.includes('as=APIGroupDiscoveryList')) {
      if (p.startsWith('application/json') || p.startsWith('*/*')) return undefined;
      continue;
    }
    if (p.includes('v=v2beta1')) return 'v2beta1';
    if (p.includes('v=v2')) return 'v2';
  }
  return undefined;
}

import { EMULATED_VERSION } from '../apimachinery/version.js';
import type { ResourceDef } from '../registry/types.js';
import { ALL_VERBS } from '../registry/types.js';
import { apiVersionOf } from '../apimachinery/object.js';


/** Group order as upstream's /apis lists them (it decides short name resolution). */
const GROUP_ORDER = [
  'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling',
  'batch', 'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io',
  'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io', 'coordination.k8s.io', 'node.k8s.io',
  'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io', 'resource.k8s.io', 'metrics.k8s.io',
];


interface GroupVersions { name: string; versions: string[] }

export function versionInfo(): Record<string, string> {
  return {
    major: EMULATED_VERSION.major, minor: EMULATED_VERSION.minor, gitVersion: EMULATED_VERSION.gitVersion,
    gitCommit: '70d3cc986aa8221cd1dfb1121852688902d3bf53', gitTreeState: 'clean', buildDate: '2024-12-11T17:59:15Z',
    goVersion: 'go1.23.3', compiler: 'gc', platform: 'linux/amd64',
  };
}

/** Discovery documents, computed once from the resource definitions. */
export class Discovery {
  readonly groups: GroupVersions[] = [];
  private readonly byGV = new Map<string, ResourceDef[]>();
  private aggregatedCache = new Map<string, string>();

  constructor(defs: ResourceDef[]) {
    for (const d of defs) {
      const gv = apiVersionOf(d);
      if (!this.byGV.has(gv)) this.byGV.set(gv, []);
      this.byGV.get(gv)!.push(d);
      if (!d.group) continue;
      let g = this.groups.find((x) => x.name === d.group);
      if (!g) this.groups.push(g = { name: d.group, versions: [] });
      if (!g.versions.includes(d.version)) g.versions.push(d.version);
    }
    const rank = (n: string) => { const i = GROUP_ORDER.indexOf(n); return i < 0 ? GROUP_ORDER.length : i; };
    // Groups of CustomResourceDefinitions share one (low) priority and follow in name order.
    const unranked = (a: string, b: string) => (rank(a) < GROUP_ORDER.length ? 0 : a < b ? -1 : a > b ? 1 : 0);
    this.groups.sort((a, b) => rank(a.name) - rank(b.name) || unranked(a.name, b.name));
  }

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
    const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
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

  /** apidiscovery.k8s.io v2 / v2beta1 document for /api (core) or /apis (groups), serialized once. */
  aggregated(core: boolean, apiVersion: 'v2' | 'v2beta1'): string {
    const cacheKey = `${core}/${apiVersion}`;
    const hit = this.aggregatedCache.get(cacheKey);
    if (hit) return hit;
    const groups = core ? [{ name: '', versions: ['v1'] }] : this.groups;
    const items = groups.map((g) => ({
      metadata: { name: g.name },
      versions: g.versions.map((v) => ({
        version: v,
        resources: (this.byGV.get(g.name ? `${g.name}/${v}` : v) ?? [])
          .slice().sort((a, b) => (a.resource < b.resource ? -1 : 1))
          .map((d) => {
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
          }),
        freshness: 'Current',
      })),
    }));
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

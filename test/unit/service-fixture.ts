/** A real Store over in-memory SQLite, with helpers to make nodes and pods the way the kubelet would report them. */
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';

export interface Fixture {
  store: Store;
  storage: SqliteStorage;
  def(group: string, resource: string): ResourceDef;
  ctx(namespace?: string): WriteContext;
  node(name: string, opts?: { labels?: Record<string, string>; ready?: 'True' | 'False' | 'Unknown'; taints?: any[] }): Promise<KObject>;
  pod(namespace: string, name: string, opts: {
    labels?: Record<string, string>; node?: string; ip?: string; ready?: boolean; ports?: any[]; hostname?: string; subdomain?: string;
    tolerations?: any[]; ownerReferences?: any[]; phase?: string;
  }): Promise<KObject>;
  setPodStatus(namespace: string, name: string, mutate: (status: any) => void): Promise<KObject>;
  close(): Promise<void>;
}

export async function fixture(namespaces: string[] = ['default', 'ns']): Promise<Fixture> {
  const storage = new SqliteStorage(':memory:');
  const defs = allResources();
  const store = new Store(storage, defs);
  const def = (group: string, resource: string) => defs.find((d) => d.group === group && d.resource === resource)!;
  const ctx = (namespace = ''): WriteContext => ({ namespace, now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {} });
  for (const ns of [...namespaces, 'kube-system', 'kube-node-lease']) {
    await store.create(def('', 'namespaces'), '', { metadata: { name: ns } }, ctx());
    await store.create(def('', 'serviceaccounts'), ns, { metadata: { name: 'default' } }, ctx(ns));
  }
  const setPodStatus = (namespace: string, name: string, mutate: (status: any) => void) =>
    store.update(def('', 'pods'), namespace, name, (p: any) => { p.status ??= {}; mutate(p.status); return p; }, ctx(namespace), 'status');
  return {
    store, storage, def, ctx, setPodStatus,
    async node(name, opts = {}) {
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const created = await store.create(def('', 'nodes'), '', {
        metadata: { name, labels: { 'kubernetes.io/hostname': name, ...opts.labels } },
        spec: opts.taints ? { taints: opts.taints } : {},
      }, ctx());
      if (!opts.ready) return created;
      return store.update(def('', 'nodes'), '', name, (n: any) => {
        n.status = { ...n.status, conditions: [{ type: 'Ready', status: opts.ready, reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] };
        return n;
      }, ctx(), 'status');
    },
    async pod(namespace, name, opts) {
      await store.create(def('', 'pods'), namespace, {
        metadata: { name, labels: opts.labels, ...(opts.ownerReferences ? { ownerReferences: opts.ownerReferences } : {}) },
        spec: {
          nodeName: opts.node, hostname: opts.hostname, subdomain: opts.subdomain, tolerations: opts.tolerations,
          containers: [{ name: 'c', image: 'nginx', ports: opts.ports }],
        },
      }, ctx(namespace));
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      return setPodStatus(namespace, name, (s) => {
        s.phase = opts.phase ?? 'Running';
        if (opts.ip) { s.podIP = opts.ip; s.podIPs = [{ ip: opts.ip }]; }
        s.conditions = [{ type: 'Ready', status: opts.ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: now }];
      });
    },
    close: () => storage.close(),
  };
}

/** Polls until `fn` returns a value other than undefined (or throws after the deadline). */
export async function eventually<T>(fn: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) { last = e; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

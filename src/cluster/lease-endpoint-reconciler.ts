/**
 * kube-apiserver's lease endpoint reconciler (`--endpoint-reconciler-type=lease`, the default):
 * every server refreshes its key `/registry/masterleases/<ip>` each endpoint interval (10 s) and
 * writes the `kubernetes` Endpoints (and their EndpointSlice) as the list of keys still alive, so a
 * server gone drops out once its key outlives the TTL (15 s). Upstream's keys carry an etcd lease
 * with that TTL; winkube's storage interface has none, so a key counts as expired once this server
 * has seen it unchanged for the TTL on its own clock (as leader election judges a Lease), and is
 * then deleted on the revision it was seen at.
 */
import type { EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import { parseDuration } from '../apimachinery/duration.js';
import { inProcessWriteContext, type WriteContext } from '../apimachinery/write-context.js';
import type { KObject } from '../apimachinery/object.js';
import { endpoints } from '../registry/core/endpoints.js';
import { endpointslices } from '../registry/groups/discovery/endpointslices.js';
import type { Store } from '../registry/store.js';
import type { ResourceDef } from '../registry/types.js';
import { KeyExistsError, NotFoundError, RevisionMismatchError, type Storage } from '../storage/types.js';
import { endpointSliceFromEndpoints, LeaseAges, reconcileMasterEndpoints } from './master-endpoints.js';

/** DefaultEndpointReconcilerTTL and the controller's EndpointInterval. */
export const ENDPOINT_RECONCILER_TTL_MS = 15_000;
export const ENDPOINT_INTERVAL_MS = 10_000;

/** WINKUBE_ENDPOINT_RECONCILER_TTL and WINKUBE_ENDPOINT_INTERVAL (Go durations) shorten both, for tests. */
export function endpointReconcilerTimingsFromEnv(env: NodeJS.ProcessEnv = process.env): { ttlMs: number; intervalMs: number } {
  const read = (name: string, fallback: number) => (env[name] ? parseDuration(env[name]) ?? fallback : fallback);
  return { ttlMs: read('WINKUBE_ENDPOINT_RECONCILER_TTL', ENDPOINT_RECONCILER_TTL_MS), intervalMs: read('WINKUBE_ENDPOINT_INTERVAL', ENDPOINT_INTERVAL_MS) };
}

/** Under the `core` group, the store key maps to etcd's `<prefix>/masterleases/<ip>`. */
const BASE_KEY = '/core/masterleases/';

/** storageLeases: the master IPs' keys. */
export class MasterLeases {
  private readonly ages: LeaseAges;

  constructor(private readonly storage: Storage, ttlMs: number, private readonly now: () => number = Date.now) {
    this.ages = new LeaseAges(ttlMs);
  }

  /** UpdateLease: the key rewritten (its generation bumped) so that its age starts again. */
  async updateLease(ip: string): Promise<void> {
    const key = BASE_KEY + ip;
    for (;;) {
      const current = await this.storage.get(key);
      const prev = current ? JSON.parse(current.value) as Endpoints : undefined;
      const next: Endpoints = {
        kind: 'Endpoints', apiVersion: 'v1',
        metadata: { ...prev?.metadata, generation: (prev?.metadata?.generation ?? 0) + 1 },
        subsets: [{ addresses: [{ ip }] }],
      };
      try {
        if (current) await this.storage.update(key, JSON.stringify(next), current.modRevision);
        else await this.storage.create(key, JSON.stringify(next));
        return;
      } catch (e) {
        // GuaranteedUpdate: read again and retry on a concurrent write.
        if (!(e instanceof RevisionMismatchError || e instanceof KeyExistsError || e instanceof NotFoundError)) throw e;
      }
    }
  }

  /** ListLeases: the IPs of the live keys; expired ones are deleted as etcd's TTL would. */
  async listLeases(): Promise<string[]> {
    const { items } = await this.storage.list(BASE_KEY);
    const ips: string[] = [];
    for (const kv of items) {
      if (this.ages.alive(kv.key, kv.modRevision, this.now())) {
        const ip = (JSON.parse(kv.value) as Endpoints).subsets?.[0]?.addresses?.[0]?.ip;
        if (ip) ips.push(ip);
        continue;
      }
      this.ages.forget(kv.key);
      await this.storage.delete(kv.key, kv.modRevision).catch((e: unknown) => {
        if (!(e instanceof RevisionMismatchError || e instanceof NotFoundError)) throw e;
      });
    }
    return ips;
  }

  /** RemoveLease. */
  async removeLease(ip: string): Promise<void> {
    await this.storage.delete(BASE_KEY + ip).catch((e: unknown) => { if (!(e instanceof NotFoundError)) throw e; });
  }
}

export interface LeaseEndpointReconcilerOptions {
  store: Store;
  storage: Storage;
  /** This server's address in the Endpoints (its bind address; 127.0.0.1 for a wildcard bind). */
  ip: string;
  port: number;
  ttlMs?: number;
  intervalMs?: number;
  log: (m: string) => void;
  now?: () => number;
}

/** The endpoint reconciler writes straight to storage: its (possibly loopback) address is not validated. */
const unvalidated = (def: ResourceDef): ResourceDef => ({ ...def, validate: undefined, validateUpdate: undefined });

export class LeaseEndpointReconciler {
  private readonly leases: MasterLeases;
  private readonly ports: EndpointPort[];
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly o: LeaseEndpointReconcilerOptions) {
    this.leases = new MasterLeases(o.storage, o.ttlMs ?? ENDPOINT_RECONCILER_TTL_MS, o.now);
    this.ports = [{ name: 'https', port: o.port, protocol: 'TCP' }];
  }

  /** Reconciles once (so a started server is listed), then every interval. */
  async start(): Promise<void> {
    await this.reconcileEndpoints();
    const tick = () => {
      if (this.stopped) return;
      this.running = this.reconcileEndpoints().catch((e: unknown) => this.o.log(`Unable to reconcile the kubernetes service endpoints: ${(e as Error).message}`))
        .finally(() => {
          if (!this.stopped) { this.timer = setTimeout(tick, this.o.intervalMs ?? ENDPOINT_INTERVAL_MS); this.timer.unref(); }
        });
    };
    this.timer = setTimeout(tick, this.o.intervalMs ?? ENDPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * ReconcileEndpoints: our key refreshed first, whatever happens after. The controller's periodic
   * call leaves the ports alone (reconcile=false): they are written only when the Endpoints are made
   * or rebuilt, so servers on different ports do not rewrite each other.
   */
  async reconcileEndpoints(): Promise<void> {
    await this.leases.updateLease(this.o.ip);
    await this.doReconcile(false);
  }

  /** StopReconciling and RemoveEndpoints, at shutdown: the other servers stop listing this one at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    // A shutdown goes on whatever storage says (it may be the one down).
    await this.removeEndpoints().catch((e: unknown) => this.o.log(`Unable to remove endpoints from kubernetes service: ${(e as Error).message}`));
  }

  /** RemoveEndpoints: this server's key deleted and the Endpoints written without it. */
  private async removeEndpoints(): Promise<void> {
    await this.leases.removeLease(this.o.ip);
    // The last server leaves the Endpoints as they are: upstream refuses to empty them too, but logs that
    // refusal as an error at every lone server's shutdown, which `winkube up --quiet` must not print.
    if ((await this.leases.listLeases()).length === 0) return;
    await this.doReconcile(true);
  }

  private async doReconcile(reconcilePorts: boolean): Promise<void> {
    const { store } = this.o;
    const current = await store.get('', 'endpoints', 'default', 'kubernetes') as Endpoints | undefined;
    const next = reconcileMasterEndpoints(current, 'kubernetes', await this.leases.listLeases(), this.ports, reconcilePorts);
    const ctx = { ...inProcessWriteContext('kube-apiserver'), namespace: 'default' };
    if (next) {
      this.o.log(`Resetting endpoints for master service "kubernetes" to [${(next.subsets?.[0]?.addresses ?? []).map((a) => a.ip).join(' ')}]`);
      await this.write(unvalidated(endpoints), next as KObject, ctx);
    }
    await this.write(unvalidated(endpointslices), endpointSliceFromEndpoints(next ?? current!) as unknown as KObject, ctx, true);
  }

  /** Creates the object, or replaces its content: always (the Endpoints), or when it lists other addresses or ports (the slice). */
  private async write(def: ResourceDef, obj: KObject, ctx: WriteContext, onlyWhenDifferent = false): Promise<void> {
    const { store } = this.o;
    const name = obj.metadata.name!;
    const { apiVersion: _a, kind: _k, metadata: _m, ...body } = obj;
    const existing = await store.get(def.group, def.resource, 'default', name);
    if (!existing) {
      try { await store.create(def, 'default', obj, ctx); return; } catch (e) { if (!isAlreadyExists(e)) throw e; }
    }
    if (onlyWhenDifferent && existing && sliceSignature(existing as unknown as EndpointSlice) === sliceSignature(obj as unknown as EndpointSlice)) return;
    await store.update(def, 'default', name, (cur) => ({ ...cur, ...body, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...obj.metadata.labels } } }), ctx)
      .catch((e: unknown) => { if (!isNotFound(e)) throw e; });
  }
}

/** What the slice says: its addresses and ports. */
function sliceSignature(s: EndpointSlice): string {
  return JSON.stringify([(s.endpoints ?? []).map((e) => e.addresses), (s.ports ?? []).map((p) => [p.name, p.port, p.protocol])]);
}

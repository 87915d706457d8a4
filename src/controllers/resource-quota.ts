/**
 * The resource quota controller of kube-controller-manager
 * (pkg/controller/resourcequota, v1.32), in-process: each ResourceQuota's
 * status gets `hard` (a copy of spec.hard) and `used` (what the namespace's
 * objects use of each limited resource, through the same evaluators
 * admission uses). A quota is recomputed when it changes, when any object
 * of its namespace changes, and every five minutes (upstream's
 * --resource-quota-sync-period), which catches pods whose deletion grace
 * period ran out.
 */
import { StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { evaluatorsForQuota, quotaHard, usageStats } from '../admission/quota-evaluators.js';
import { addLists, cmp, mask, parseList, toJSON, type ResourceList } from '../meta/resource-lists.js';
import { plain } from '../client/plain.js';
import { resourcequotas } from '../client/resources.js';
import type { Client, ResourceRef } from '../client/types.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';

const MANAGER = 'resourcequota-controller';

const RESYNC_MS = 5 * 60 * 1000;

function sameList(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => {
    const x = a[k], y = b[k];
    return x !== undefined && y !== undefined && cmp(x, y) === 0;
  });
}

/**
 * What the quota evaluators read (admission's Lookup) through the client:
 * the served resources (discovery, read once) by group and resource, their
 * objects listed from the server.
 */
export class QuotaLookup {
  private readonly served = new Map<string, ResourceRef>();

  constructor(private readonly client: Client, resources: readonly ResourceRef[]) {
    for (const r of resources) if (!this.served.has(`${r.group}/${r.resource}`)) this.served.set(`${r.group}/${r.resource}`, r);
  }

  static async discover(client: Client): Promise<QuotaLookup> {
    return new QuotaLookup(client, await client.resources());
  }

  /** A namespaced resource the server serves. */
  namespaced(group: string, resource: string): ResourceRef | undefined {
    const r = this.served.get(`${group}/${resource}`);
    return r?.namespaced ? r : undefined;
  }

  async get(group: string, resource: string, namespace: string, name: string): Promise<KObject | undefined> {
    const r = this.served.get(`${group}/${resource}`);
    return r ? this.client.resource(r).find(namespace, name) : undefined;
  }

  async listAll(group: string, resource: string, namespace: string): Promise<KObject[]> {
    const r = this.served.get(`${group}/${resource}`);
    return r ? (await this.client.resource(r).list(namespace)).items : [];
  }
}

/** quota.CalculateUsage plus the controller's merge: the new status of one quota. */
export async function quotaStatus(lookup: QuotaLookup, rq: KObject, now: Date): Promise<{ hard: ResourceList; used: ResourceList }> {
  const namespace = rq.metadata.namespace ?? '';
  const hard = quotaHard(rq);
  const hardNames = Object.keys(hard);
  const known = (group: string, resource: string) => lookup.namespaced(group, resource) !== undefined;
  const evaluators = evaluatorsForQuota(hardNames, known);
  const potential = new Set(evaluators.flatMap((e) => e.matchingResources(hardNames)));
  const matched = hardNames.filter((n) => potential.has(n));
  let newUsage: ResourceList = {};
  for (const ev of evaluators) {
    const resources = ev.matchingResources(matched);
    if (!resources.length) continue;
    newUsage = addLists(newUsage, await usageStats(lookup, ev, namespace, rq, resources, now));
  }
  newUsage = mask(newUsage, matched);
  // Past observations of resources no evaluator measures are kept, then everything is limited to spec.hard.
  const used = { ...parseList((rq.status as any)?.used), ...newUsage };
  return { hard, used: mask(used, hardNames) };
}

export class ResourceQuotaController {
  private readonly queue: RateLimitingQueue;
  /** Quota names by namespace. */
  private readonly quotas = new Map<string, Set<string>>();
  private timer?: NodeJS.Timeout;
  private lookup?: QuotaLookup;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    const served = await this.ctx.client.resources();
    this.lookup = new QuotaLookup(this.ctx.client, served);
    await this.ctx.informers.inform(resourcequotas, (type, obj) => {
      const ns = obj.metadata.namespace ?? '';
      const name = obj.metadata.name ?? '';
      if (type === 'DELETED') this.quotas.get(ns)?.delete(name);
      else {
        if (!this.quotas.has(ns)) this.quotas.set(ns, new Set());
        this.quotas.get(ns)!.add(name);
      }
      // Quotas count quotas: every quota of the namespace may change.
      this.namespaceChanged(ns);
    });
    // Replenishment: a change to any namespaced object (discovery: each resource once) may change its namespace's usage.
    for (const ref of served) {
      if (!ref.namespaced || (ref.verbs && !ref.verbs.includes('watch'))) continue;
      if (ref.group === resourcequotas.group && ref.resource === resourcequotas.resource) continue;
      await this.ctx.informers.inform(ref, (_type, obj) => this.namespaceChanged(obj.metadata.namespace ?? ''));
    }
    this.timer = setInterval(() => { for (const ns of this.quotas.keys()) this.namespaceChanged(ns); }, RESYNC_MS);
    this.timer.unref();
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(5, (key) => this.sync(key), (key, e) => this.ctx.log(`resource quota ${key}: ${(e as Error).message}`));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.queue.shutDown();
  }

  private namespaceChanged(namespace: string): void {
    for (const name of this.quotas.get(namespace) ?? []) this.queue.add(`${namespace}/${name}`);
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    // The informer's copy (upstream's lister), only read.
    const rq = this.ctx.informers.forResource(resourcequotas).cache.get(namespace, name);
    if (!rq || rq.metadata.deletionTimestamp || !this.lookup) return;
    const { hard, used } = await quotaStatus(this.lookup, rq, new Date());
    const status = (rq.status ?? {}) as any;
    if (sameList(parseList(status.hard), hard) && sameList(parseList(status.used), used)) return;
    try {
      await this.ctx.client.resource(plain(resourcequotas)).updateStatus(namespace, name, (cur) => {
        // Both maps are omitempty.
        const next: Record<string, unknown> = {};
        if (Object.keys(hard).length) next.hard = toJSON(hard);
        if (Object.keys(used).length) next.used = toJSON(used);
        cur.status = next;
        return cur;
      }, { fieldManager: MANAGER });
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 404) return;
      throw e;
    }
  }
}

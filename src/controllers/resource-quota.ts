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
import type { Store } from '../registry/store.js';
import type { KObject } from '../apimachinery/object.js';
import { evaluatorsForQuota, quotaHard, usageStats } from '../admission/quota-evaluators.js';
import { addLists, cmp, mask, parseList, toJSON, type ResourceList } from '../meta/resource-lists.js';
import { controllerContext } from './context.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';

const RESYNC_MS = 5 * 60 * 1000;

function sameList(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && cmp(a[k], b[k]) === 0);
}

/** quota.CalculateUsage plus the controller's merge: the new status of one quota. */
export async function quotaStatus(store: Store, rq: KObject, now: Date): Promise<{ hard: ResourceList; used: ResourceList }> {
  const namespace = rq.metadata.namespace ?? '';
  const hard = quotaHard(rq);
  const hardNames = Object.keys(hard);
  const known = (group: string, resource: string) => store.defs.some((d) => d.group === group && d.resource === resource && d.namespaced);
  const evaluators = evaluatorsForQuota(hardNames, known);
  const potential = new Set(evaluators.flatMap((e) => e.matchingResources(hardNames)));
  const matched = hardNames.filter((n) => potential.has(n));
  let newUsage: ResourceList = {};
  for (const ev of evaluators) {
    const resources = ev.matchingResources(matched);
    if (!resources.length) continue;
    newUsage = addLists(newUsage, await usageStats(store, ev, namespace, rq, resources, now));
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

  private readonly store: Store;

  constructor(private readonly ctx: ControllerContext) {
    this.store = ctx.store;
    const log = ctx.log;
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    const rqDef = this.store.find('', 'v1', 'resourcequotas')!;
    await this.ctx.informers.inform(rqDef, (type, obj) => {
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
    const seen = new Set<string>([rqDef.storagePrefix]);
    for (const def of this.store.defs) {
      if (!def.namespaced || seen.has(def.storagePrefix) || (def.verbs && !def.verbs.includes('watch'))) continue;
      seen.add(def.storagePrefix);
      await this.ctx.informers.inform(def, (_type, obj) => this.namespaceChanged(obj.metadata.namespace ?? ''));
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
    const def = this.store.find('', 'v1', 'resourcequotas')!;
    const rq = await this.store.get('', 'resourcequotas', namespace, name);
    if (!rq || rq.metadata.deletionTimestamp) return;
    const { hard, used } = await quotaStatus(this.store, rq, new Date());
    const status = (rq.status ?? {}) as any;
    if (sameList(parseList(status.hard), hard) && sameList(parseList(status.used), used)) return;
    try {
      await this.store.update(def, namespace, name, (cur) => {
        // Both maps are omitempty.
        const next: Record<string, unknown> = {};
        if (Object.keys(hard).length) next.hard = toJSON(hard);
        if (Object.keys(used).length) next.used = toJSON(used);
        cur.status = next;
        return cur;
      }, controllerContext('resourcequota-controller'), 'status');
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 404) return;
      throw e;
    }
  }
}

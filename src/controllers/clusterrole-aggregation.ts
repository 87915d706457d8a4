/**
 * The ClusterRole aggregation controller (pkg/controller/clusterroleaggregation,
 * v1.32): a ClusterRole with an `aggregationRule` gets as its `rules` the
 * rules of every other ClusterRole its selectors match, selector by
 * selector, roles in name order, each distinct rule once. Any ClusterRole
 * change queues every aggregated role (upstream's enqueue: the set is small
 * and the dependencies unknown). It writes the rules with an update, as
 * upstream's updateClusterRoles does (its fallback when server-side apply
 * is unavailable), under the field manager upstream's apply names.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { KObject } from '../apimachinery/object.js';
import { isNotFound } from '../apimachinery/errors.js';
import { clusterroles } from '../client/resources.js';
import type { SharedInformer } from '../client/shared-informer.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import type { ResourceClient } from '../client/types.js';
import { plain } from '../client/plain.js';
import { byteOrder, fromLabelSelector } from '../selectors/labels.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';

const COMPONENT = 'clusterrole-aggregation-controller';

type ClusterRoleObj = KObject & {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: Parameters<typeof fromLabelSelector>[0][] } | null;
};

const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** equality.Semantic.DeepEqual of two PolicyRules: a nil and an empty list are equal. */
function ruleEqual(a: PolicyRule, b: PolicyRule): boolean {
  return RULE_FIELDS.every((f) => {
    const x = a[f] ?? [];
    const y = b[f] ?? [];
    return x.length === y.length && x.every((v, i) => v === y[i]);
  });
}

function rulesEqual(a: PolicyRule[], b: PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleEqual(r, b[i]!));
}

/**
 * The rules an aggregated ClusterRole should hold, from the ClusterRoles
 * known; undefined when a selector cannot be converted (upstream returns
 * the conversion error and retries).
 */
export function aggregatedRules(role: ClusterRoleObj, all: ClusterRoleObj[]): PolicyRule[] | undefined {
  const rules: PolicyRule[] = [];
  const byName = [...all].sort((a, b) => byteOrder(a.metadata.name ?? '', b.metadata.name ?? ''));
  for (const sel of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = fromLabelSelector(sel ?? {});
    if (!selector) return undefined;
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !selector.matches(other.metadata.labels)) continue;
      for (const rule of other.rules ?? []) if (!rules.some((r) => ruleEqual(r, rule))) rules.push(rule);
    }
  }
  return rules;
}

export class ClusterRoleAggregationController {
  private readonly roles: ResourceClient<KObject>;
  private readonly queue: RateLimitingQueue;
  private informer?: SharedInformer;

  constructor(private readonly ctx: ControllerContext) {
    this.roles = ctx.client.resource(plain(clusterroles));
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.informer = await this.ctx.informers.inform(clusterroles, () => this.enqueue());
    this.enqueue();
    this.queue.run(5, (k) => this.sync(k), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** enqueue: every ClusterRole with an aggregationRule. */
  private enqueue(): void {
    for (const r of this.cached()) if (r.aggregationRule) this.queue.add(r.metadata.name!);
  }

  private cached(): ClusterRoleObj[] {
    return (this.informer?.cache.list('') ?? []) as ClusterRoleObj[];
  }

  /** syncClusterRole */
  async sync(name: string): Promise<void> {
    const role = this.informer?.cache.get('', name) as ClusterRoleObj | undefined;
    if (!role?.aggregationRule) return;
    const rules = aggregatedRules(role, this.cached());
    if (!rules) throw new Error(`${name}: an aggregation selector cannot be converted`);
    if (rulesEqual(rules, role.rules ?? [])) return;
    try {
      await this.roles.update('', name, (current) => ({ ...current, rules: rules.length ? rules : null }), { fieldManager: COMPONENT });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

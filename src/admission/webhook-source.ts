/**
 * The webhooks of all Mutating- or ValidatingWebhookConfigurations, ready to call: configurations
 * in name order (upstream's configuration managers sort them), each webhook with its selectors
 * parsed, match conditions compiled and a keep-alive agent. The configurations are read through
 * the admission lookup, which serves them from the store's in-memory lister (kept current by a
 * storage watch, in the same tick as each write), so a write lists nothing from storage. What is
 * built from a configuration is kept while the lister holds the same object: an update or delete
 * replaces that object, and the next request builds afresh (closing the old agents).
 */
import type https from 'node:https';
import type { MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { KObject } from '../apimachinery/object.js';
import { compileMatchCondition, type MatchProgram } from '../cel/match-conditions.js';
import { labelSelectorAsSelector, type Selector } from '../validation/common.js';
import { listAll, type Lookup } from './lookup.js';
import { newWebhookAgent } from './webhook-client.js';

export type WebhookType = 'mutating' | 'validating';

export interface CompiledMatchCondition { name: string; expression: string; program?: MatchProgram; error?: string }

export interface WebhookAccessor {
  /** Identifies the webhook for reinvocation: configuration name and index. */
  uid: string;
  configurationName: string;
  hook: MutatingWebhook & ValidatingWebhook;
  /** undefined when the selector does not parse (the request then fails with an internal error). */
  namespaceSelector?: Selector;
  objectSelector?: Selector;
  matchConditions: CompiledMatchCondition[];
  agent: https.Agent;
}

const RESOURCE: Record<WebhookType, string> = {
  mutating: 'mutatingwebhookconfigurations', validating: 'validatingwebhookconfigurations',
};

interface Built { source: KObject; hooks: WebhookAccessor[] }

/** Per lookup (one per server) and kind: configuration name → what was built from it. */
const cache = new WeakMap<Lookup, Map<WebhookType, Map<string, Built>>>();

function build(cfg: KObject): WebhookAccessor[] {
  const name = cfg.metadata.name ?? '';
  const hooks = ((cfg as { webhooks?: (MutatingWebhook & ValidatingWebhook)[] }).webhooks ?? []);
  return hooks.map((hook, i) => ({
    uid: `${name}/${i}`,
    configurationName: name,
    hook,
    namespaceSelector: labelSelectorAsSelector(hook.namespaceSelector ?? {}),
    objectSelector: labelSelectorAsSelector(hook.objectSelector ?? {}),
    matchConditions: (hook.matchConditions ?? []).map((mc) => {
      const c = compileMatchCondition(mc.expression);
      const base = { name: mc.name, expression: mc.expression };
      return 'program' in c ? { ...base, program: c.program } : { ...base, error: c.error };
    }),
    agent: newWebhookAgent(hook.clientConfig),
  }));
}

function release(b: Built): void {
  for (const h of b.hooks) h.agent.destroy();
}

/** The webhooks of one type, in the order they are called. */
export async function webhooksOf(lookup: Lookup, type: WebhookType): Promise<WebhookAccessor[]> {
  const configs = await listAll(lookup, 'admissionregistration.k8s.io', RESOURCE[type], '');
  let byType = cache.get(lookup);
  if (!byType) cache.set(lookup, byType = new Map());
  let built = byType.get(type);
  if (!built) byType.set(type, built = new Map());
  if (!configs.length && !built.size) return [];
  const sorted = [...configs].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const out: WebhookAccessor[] = [];
  const seen = new Set<string>();
  for (const cfg of sorted) {
    const name = cfg.metadata.name ?? '';
    seen.add(name);
    let b = built.get(name);
    if (b?.source !== cfg) {
      if (b) release(b);
      built.set(name, b = { source: cfg, hooks: build(cfg) });
    }
    out.push(...b.hooks);
  }
  for (const [name, b] of built) if (!seen.has(name)) { release(b); built.delete(name); }
  return out;
}

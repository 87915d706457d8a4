/**
 * Which admission rule matches a request, for webhooks and policies alike (apiserver
 * pkg/admission/plugin/webhook/predicates/rules Matcher, with generic.Webhook.ShouldCallHook's and
 * policy/matching's matchesResourceRules rule part): scope, operation, group, version,
 * resource/subresource; with matchPolicy Equivalent, a rule naming another served version of the
 * same resource matches too, and the webhook or policy gets the object in that version.
 */
import type { RuleWithOperations } from 'kubernetes-types/admissionregistration/v1.js';

/** RuleWithOperations as served (kubernetes-types leaves out the inlined Rule's resources and scope). */
export type WebhookRule = RuleWithOperations & { resources?: string[]; scope?: string };

export interface GVR { group: string; version: string; resource: string }
export interface GVK { group: string; version: string; kind: string }

/** What rule matching reads of a request. */
export interface RuleRequest {
  operation: string;
  resource: GVR;
  subresource: string;
  /** '' for cluster-scoped objects; for a Namespace, its own name. */
  namespace: string;
}

const exactOrWildcard = (items: readonly string[] | undefined, requested: string) =>
  (items ?? []).some((i) => i === '*' || i === requested);

function scopeMatches(rule: WebhookRule, r: RuleRequest): boolean {
  const scope = rule.scope ?? '*';
  if (scope === '*') return true;
  const isNamespace = r.resource.group === '' && r.resource.version === 'v1' && r.resource.resource === 'namespaces';
  if (scope === 'Namespaced') return !isNamespace && r.namespace !== '';
  if (scope === 'Cluster') return isNamespace || r.namespace === '';
  return false;
}

function resourceMatches(rule: WebhookRule, r: RuleRequest): boolean {
  return (rule.resources ?? []).some((resSub) => {
    const slash = resSub.indexOf('/');
    const res = slash < 0 ? resSub : resSub.slice(0, slash);
    const sub = slash < 0 ? '' : resSub.slice(slash + 1);
    return (res === '*' || res === r.resource.resource) && (sub === '*' || sub === r.subresource);
  });
}

/** rules.Matcher.Matches */
export function ruleMatches(rule: WebhookRule, r: RuleRequest): boolean {
  return scopeMatches(rule, r) &&
    (rule.operations ?? []).some((op) => op === '*' || op === r.operation) &&
    exactOrWildcard(rule.apiGroups, r.resource.group) &&
    exactOrWildcard(rule.apiVersions, r.resource.version) &&
    resourceMatches(rule, r);
}

/** The resource and kind a webhook is called with. */
export interface Invocation { resource: GVR; kind: GVK; subresource: string }

/**
 * The rule part of ShouldCallHook and matchesResourceRules: the request's own resource by any rule,
 * else (Equivalent) the first rule, in order, that matches one of the equivalent resources, in the
 * server's order. `accepts` is what a rule adds to its match (a policy rule's resourceNames).
 */
export function matchingInvocation<R extends WebhookRule>(rules: readonly R[] | undefined, matchPolicy: string | undefined,
  r: RuleRequest, kind: GVK, equivalents: readonly { resource: GVR; kind: GVK }[], accepts: (rule: R) => boolean = () => true): Invocation | undefined {
  for (const rule of rules ?? []) {
    if (ruleMatches(rule, r) && accepts(rule)) return { resource: r.resource, kind, subresource: r.subresource };
  }
  if (matchPolicy !== 'Equivalent') return undefined;
  const same = (a: GVR, b: GVR) => a.group === b.group && a.version === b.version && a.resource === b.resource;
  for (const rule of rules ?? []) {
    for (const eq of equivalents) {
      if (same(eq.resource, r.resource)) continue;
      if (ruleMatches(rule, { ...r, resource: eq.resource }) && accepts(rule)) return { resource: eq.resource, kind: eq.kind, subresource: r.subresource };
    }
  }
  return undefined;
}

/**
 * Whether a webhook is called for a request, and as which resource (apiserver
 * pkg/admission/plugin/webhook/generic/webhook.go ShouldCallHook): namespaceSelector
 * (predicates/namespace: the namespace's labels; a Namespace's own on its create and update),
 * objectSelector (predicates/object: the new or the old object's labels), the rules, then the
 * match conditions (matchconditions/matcher.go: any false skips the webhook; errors follow the
 * failurePolicy, failing closed as Forbidden).
 */
import { errors } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { evalMatchCondition } from '../cel/match-conditions.js';
import { jsonToCel } from '../cel/values.js';
import { aggregateMessage } from './types.js';
import type { WebhookAccessor } from './webhook-source.js';
import { matchingInvocation, type GVK, type GVR, type Invocation } from './rule-matching.js';
import { matchNamespaceSelector, matchObjectSelector, type SelectorRequest } from './selector-matching.js';

/** The request as matching sees it. */
export interface MatchRequest extends SelectorRequest {
  kind: GVK;
  name: string;
  /** Other served versions of the resource, for matchPolicy Equivalent. */
  equivalents: { resource: GVR; kind: GVK }[];
  /** The `request` variable of match conditions, for the version the webhook is called with. */
  celRequest(inv: Invocation): Record<string, unknown>;
  /** The objects in the version the webhook is called with. */
  versioned(inv: Invocation): { object: KObject | null; oldObject: KObject | null };
}

/** The invocation when the webhook is to be called, undefined when not; throws the request's error. */
export async function shouldCallHook(h: WebhookAccessor, r: MatchRequest): Promise<Invocation | undefined> {
  const ns = await matchNamespaceSelector(h.namespaceSelector, r);
  if (!ns.matches && !ns.error) return undefined;
  const obj = matchObjectSelector(h.objectSelector, r);
  if (!obj.matches && !obj.error) return undefined;
  const inv = matchingInvocation(h.hook.rules, h.hook.matchPolicy,
    { operation: r.operation, resource: r.resource, subresource: r.subresource, namespace: r.namespace }, r.kind, r.equivalents);
  if (!inv) return undefined;
  if (ns.error) throw ns.error;
  if (obj.error) throw obj.error;
  if (!h.matchConditions.length) return inv;
  const fail = (h.hook.failurePolicy ?? 'Fail') === 'Fail';
  const v = r.versioned(inv);
  const vars = {
    object: jsonToCel(v.object), oldObject: jsonToCel(v.oldObject), request: jsonToCel(r.celRequest(inv)), namespaceObject: null,
  };
  const errs: string[] = [];
  for (const mc of h.matchConditions) {
    if (!mc.program) { errs.push(`compilation error: ${mc.error ?? ''}`); continue; }
    const res = evalMatchCondition(mc.program, vars);
    if (res === false) return undefined;
    if (res !== true) errs.push(`expression '${mc.expression}' resulted in error: ${res.error}`);
  }
  if (!errs.length) return inv;
  if (!fail) return undefined;
  throw errors.forbidden({ group: r.resource.group, resource: r.resource.resource }, r.name, aggregateMessage(errs));
}

/**
 * Whether a webhook is called for a request, and as which resource (apiserver
 * pkg/admission/plugin/webhook/generic/webhook.go ShouldCallHook): namespaceSelector
 * (predicates/namespace: the namespace's labels; a Namespace's own on its create and update),
 * objectSelector (predicates/object: the new or the old object's labels), the rules, then the
 * match conditions (matchconditions/matcher.go: any false skips the webhook; errors follow the
 * failurePolicy, failing closed as Forbidden).
 */
import { errors, type StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { evalMatchCondition } from '../cel/match-conditions.js';
import { jsonToCel } from '../cel/values.js';
import type { Lookup } from './lookup.js';
import { aggregateMessage } from './types.js';
import type { WebhookAccessor } from './webhook-source.js';
import { matchingInvocation, type GVK, type GVR, type Invocation } from './webhook-rules.js';

/** The request as matching sees it. */
export interface MatchRequest {
  operation: string;
  resource: GVR;
  kind: GVK;
  subresource: string;
  namespace: string;
  name: string;
  object: KObject | null;
  oldObject: KObject | null;
  lookup: Lookup;
  /** Other served versions of the resource, for matchPolicy Equivalent. */
  equivalents: { resource: GVR; kind: GVK }[];
  /** The `request` variable of match conditions, for the version the webhook is called with. */
  celRequest(inv: Invocation): Record<string, unknown>;
  /** The objects in the version the webhook is called with. */
  versioned(inv: Invocation): { object: KObject | null; oldObject: KObject | null };
  /** Namespace labels, looked up once per request. */
  namespaceLabels?: Record<string, string>;
}

async function namespaceLabels(r: MatchRequest): Promise<Record<string, string>> {
  if (r.resource.resource === 'namespaces' && r.resource.group === '' && !r.subresource &&
    (r.operation === 'CREATE' || r.operation === 'UPDATE')) {
    return r.object?.metadata.labels ?? {};
  }
  if (r.namespaceLabels) return r.namespaceLabels;
  const ns = await r.lookup.get('', 'namespaces', '', r.namespace);
  if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, r.namespace);
  return r.namespaceLabels = ns.metadata.labels ?? {};
}

/** The invocation when the webhook is to be called, undefined when not; throws the request's error. */
export async function shouldCallHook(h: WebhookAccessor, r: MatchRequest): Promise<Invocation | undefined> {
  let nsError: StatusError | undefined;
  if (r.namespace || r.resource.resource === 'namespaces') {
    if (!h.namespaceSelector) nsError = errors.internal('invalid namespace selector');
    else if (!h.namespaceSelector.empty) {
      try {
        if (!h.namespaceSelector.matches(await namespaceLabels(r))) return undefined;
      } catch (e) {
        nsError = e as StatusError;
      }
    }
  }
  let objError: StatusError | undefined;
  if (!h.objectSelector) objError = errors.internal('invalid object selector');
  else if (!h.objectSelector.empty) {
    const sel = h.objectSelector;
    const hit = (o: KObject | null) => !!o && sel.matches(o.metadata?.labels ?? {});
    if (!hit(r.object) && !hit(r.oldObject)) return undefined;
  }
  const inv = matchingInvocation(h.hook.rules, h.hook.matchPolicy,
    { operation: r.operation, resource: r.resource, subresource: r.subresource, namespace: r.namespace }, r.kind, r.equivalents);
  if (!inv) return undefined;
  if (nsError) throw nsError;
  if (objError) throw objError;
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

/**
 * A write as the webhook plugins see it (admission.Attributes plus VersionedAttributes): the
 * request's resource and kind, the objects in the version each webhook is called with, the
 * `request` variable of match conditions, and the review sent.
 */
import type { KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { EquivalentResource, Lookup } from './lookup.js';
import type { MatchRequest } from './webhook-match.js';
import { operationOptions, type ReviewInput } from './webhook-review.js';
import type { GVK, GVR, Invocation } from './rule-matching.js';

/** What the webhook dispatchers need of a write (CREATE, UPDATE or DELETE). */
export interface WebhookAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  def: Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>;
  subresource: string;
  namespace: string;
  name: string;
  /** The object written (changed in place by mutating webhooks); null for DELETE. */
  object: KObject | null;
  oldObject?: KObject;
  ctx: WriteContext;
  lookup: Lookup;
  auditAnnotations?: Record<string, string>;
  /** The name was generated from generateName before admission: webhooks see the object without it. */
  nameGenerated?: boolean;
  /** For DELETE: the DeleteOptions fields the request gave (gracePeriodSeconds, preconditions, propagationPolicy). */
  deleteOptions?: Record<string, unknown>;
}

export interface WebhookRequest extends MatchRequest {
  attrs: WebhookAttributes;
  review(inv: Invocation): ReviewInput;
  /** Converts an object of the invocation's version back to the requested one. */
  toRequested(inv: Invocation, obj: KObject): KObject;
}

const gvr = (g: string, v: string, r: string): GVR => ({ group: g, version: v, resource: r });
const gvk = (g: string, v: string, k: string): GVK => ({ group: g, version: v, kind: k });
const sameGVR = (a: GVR, b: GVR) => a.group === b.group && a.version === b.version && a.resource === b.resource;

export function webhookRequest(a: WebhookAttributes): WebhookRequest {
  const resource = gvr(a.def.group, a.def.version, a.def.resource);
  // A subresource's kind is its own (pods/eviction: policy/v1 Eviction, pods/binding: v1 Binding).
  const sub = a.subresource ? (a.def as Partial<ResourceInfo>).subresources?.find((s) => s.name === a.subresource) : undefined;
  const kind = sub ? gvk(sub.group ?? a.def.group, sub.version ?? a.def.version, sub.kind) : gvk(a.def.group, a.def.version, a.def.kind);
  const eqs: EquivalentResource[] = a.lookup.equivalentResources?.(a.def.group, a.def.version, a.def.resource) ?? [];
  // For a Namespace, attributes carry its own name as the namespace (rules' scope and selectors read it).
  const namespace = a.def.group === '' && a.def.resource === 'namespaces' ? a.name : a.namespace;
  const equivalentOf = (inv: Invocation) => (sameGVR(inv.resource, resource) ? undefined : eqs.find((e) => sameGVR(e.resource, inv.resource)));
  const generated = a.nameGenerated ? a.object?.metadata.name : undefined;
  const withoutGeneratedName = (o: KObject): KObject => {
    if (generated === undefined || o.metadata.name !== generated) return o;
    const { name: _generated, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  const name = generated !== undefined ? '' : a.name;
  const versioned = (inv: Invocation) => {
    const eq = equivalentOf(inv);
    const conv = (o: KObject | null | undefined) => (o ? (eq ? eq.fromRequested(o) : o) : null);
    const object = conv(a.object);
    return { object: object && withoutGeneratedName(object), oldObject: conv(a.oldObject) };
  };
  const base = (inv: Invocation) => ({
    operation: a.operation, kind: gvk(inv.kind.group, inv.kind.version, inv.kind.kind),
    resource: gvr(inv.resource.group, inv.resource.version, inv.resource.resource), subresource: a.subresource,
    requestKind: kind, requestResource: resource, name, namespace,
    ctx: a.ctx, options: operationOptions(a.operation, a.ctx, a.deleteOptions),
  });
  return {
    attrs: a, operation: a.operation, resource, kind, subresource: a.subresource, namespace, name,
    object: a.object, oldObject: a.oldObject ?? null, lookup: a.lookup,
    equivalents: eqs.map((e) => ({ resource: e.resource, kind: e.kind })),
    versioned,
    review: (inv) => ({ ...base(inv), ...versioned(inv) }),
    celRequest: (inv) => {
      const b = base(inv);
      const user = a.ctx.user;
      return {
        kind: b.kind, resource: b.resource, subResource: b.subresource, requestKind: b.requestKind, requestResource: b.requestResource,
        requestSubResource: b.subresource, name: b.name, namespace: b.namespace, operation: b.operation,
        userInfo: { username: user?.name ?? '', uid: user?.uid ?? '', groups: user?.groups ?? [], extra: user?.extra ?? {} },
        dryRun: a.ctx.dryRun, options: b.options,
      };
    },
    toRequested: (inv, obj) => {
      const back = equivalentOf(inv)?.toRequested(obj) ?? obj;
      // A patch that left the name unset leaves the generated one (a webhook may set its own).
      if (generated !== undefined && !back.metadata.name) back.metadata = { name: generated, ...back.metadata };
      return back;
    },
  };
}

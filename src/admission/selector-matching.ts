/**
 * The namespaceSelector and objectSelector of webhooks and admission policies alike (apiserver
 * pkg/admission/plugin/webhook/predicates/namespace Matcher.MatchNamespaceSelector and
 * GetNamespaceLabels, predicates/object Matcher.MatchObjectSelector, v1.32). A selector that does
 * not parse is an internal error; callers report it only once the rules match, as upstream does.
 */
import { errors, StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { Selector } from '../validation/common.js';
import type { Lookup } from './lookup.js';
import type { GVR } from './rule-matching.js';

/** What the selectors read of a request. */
export interface SelectorRequest {
  operation: string;
  resource: GVR;
  subresource: string;
  /** '' for cluster-scoped objects; for a Namespace, its own name. */
  namespace: string;
  object: KObject | null;
  oldObject: KObject | null;
  lookup: Lookup;
  /** Namespace labels, once looked up, for the next selector of the same request. */
  namespaceLabels?: Record<string, string>;
}

export interface SelectorMatch { matches: boolean; error?: StatusError }

/** GetNamespaceLabels: a Namespace's own labels on its create and update (not yet stored), else the stored namespace's. */
async function namespaceLabels(r: SelectorRequest): Promise<Record<string, string>> {
  if (r.resource.resource === 'namespaces' && r.resource.group === '' && !r.subresource &&
    (r.operation === 'CREATE' || r.operation === 'UPDATE')) {
    return r.object?.metadata.labels ?? {};
  }
  if (r.namespaceLabels) return r.namespaceLabels;
  const ns = await r.lookup.get('', 'namespaces', '', r.namespace);
  if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, r.namespace);
  return r.namespaceLabels = ns.metadata.labels ?? {};
}

/** MatchNamespaceSelector: cluster-scoped requests other than namespaces' always match. */
export async function matchNamespaceSelector(selector: Selector | undefined, r: SelectorRequest): Promise<SelectorMatch> {
  if (!r.namespace && r.resource.resource !== 'namespaces') return { matches: true };
  if (!selector) return { matches: false, error: errors.internal('invalid namespace selector') };
  if (selector.empty) return { matches: true };
  try {
    return { matches: selector.matches(await namespaceLabels(r)) };
  } catch (e) {
    if (e instanceof StatusError) return { matches: false, error: e };
    throw e;
  }
}

/** MatchObjectSelector: the new or the old object's labels. */
export function matchObjectSelector(selector: Selector | undefined, r: SelectorRequest): SelectorMatch {
  if (!selector) return { matches: false, error: errors.internal('invalid object selector') };
  if (selector.empty) return { matches: true };
  // An object without metadata (a CONNECT's options) matches no selector (meta.Accessor fails).
  const hit = (o: KObject | null) => !!o?.metadata && selector.matches(o.metadata.labels ?? {});
  return { matches: hit(r.object) || hit(r.oldObject) };
}

import type { KObject } from '../apimachinery/object.js';
import type { Lookup } from '../admission/lookup.js';
import type { ServiceAccountClaims } from '../pki/service-account-tokens.js';

/** jwt.DefaultLeeway: clock skew allowed on exp/nbf/iat, and how long a deleted object's tokens live on. */
const LEEWAY_SECONDS = 60;

const INVALIDATED = 'service account token has been invalidated';

/** The service account a token names, once its claims hold. */
export interface ServiceAccountInfo { namespace: string; name: string; uid: string }

export type Validation = { ok: true; account: ServiceAccountInfo } | { ok: false; error: string };

const fail = (error: string): Validation => ({ ok: false, error });

function deletedBefore(obj: KObject, cutoffMs: number): boolean {
  const ts = obj.metadata.deletionTimestamp;
  return !!ts && Date.parse(ts) < cutoffMs;
}

/**
 * Upstream's bound token validator (pkg/serviceaccount/claims.go): the token's times, then that the
 * service account and every object the token is bound to still exist, with the uid it names, and
 * are not being deleted for longer than the leeway.
 */
export async function validateServiceAccountToken(claims: ServiceAccountClaims, objects: Lookup, nowMs = Date.now()): Promise<Validation> {
  const now = Math.floor(nowMs / 1000);
  // go-jose's Claims.Validate, in its order.
  if (typeof claims.nbf === 'number' && now + LEEWAY_SECONDS < claims.nbf) return fail('service account token is not valid yet');
  if (typeof claims.exp === 'number' && now - LEEWAY_SECONDS > claims.exp) return fail('service account token has expired');
  if (typeof claims.iat === 'number' && now + LEEWAY_SECONDS < claims.iat) return fail('service account token is issued in the future');

  const cutoff = nowMs - LEEWAY_SECONDS * 1000;
  const k = claims['kubernetes.io'] ?? { namespace: '', serviceaccount: { name: '' } };
  const namespace = k.namespace ?? '';
  const saRef = k.serviceaccount ?? { name: '' };
  const sa = await objects.get('', 'serviceaccounts', namespace, saRef.name ?? '');
  // The getter falls back to a live GET, whose NotFound is what the token's user hears.
  if (!sa) return fail(`serviceaccounts "${saRef.name ?? ''}" not found`);
  if (sa.metadata.uid !== (saRef.uid ?? '')) return fail(`service account UID (${sa.metadata.uid}) does not match claim (${saRef.uid ?? ''})`);
  if (deletedBefore(sa, cutoff)) return fail(`service account ${namespace}/${saRef.name} has been deleted`);

  const bound: Array<[ref: { name: string; uid?: string } | undefined, resource: string, namespace: string, label: string]> = [
    [k.secret, 'secrets', namespace, 'secret'],
    [k.pod, 'pods', namespace, 'pod'],
    // A pod-bound token names its pod's node only for information.
    [k.pod ? undefined : k.node, 'nodes', '', 'node'],
  ];
  for (const [ref, resource, ns, label] of bound) {
    if (!ref) continue;
    const obj = await objects.get('', resource, ns, ref.name);
    if (!obj) return fail(INVALIDATED);
    if (obj.metadata.uid !== (ref.uid ?? '')) {
      return fail(`${label} UID (${obj.metadata.uid}) does not match service account ${label} ref claim (${ref.uid ?? ''})`);
    }
    if (deletedBefore(obj, cutoff)) return fail(INVALIDATED);
  }
  return { ok: true, account: { namespace, name: saRef.name, uid: saRef.uid ?? '' } };
}

/**
 * The API server's half of the kubelet's token requests for projected
 * service account token volumes (kube-api-access-*): what TokenREST.Create
 * would issue for a TokenRequest bound to the pod, its service account's
 * uid and the pod's node named in the claims (ServiceAccountTokenPodNodeInfo,
 * on in v1.32), so the token authenticates while the pod, the account and
 * the node exist. The emulated kubelets build volumes synchronously, so the
 * accounts' and nodes' uids are followed in memory rather than read per token.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { ServiceAccountTokens } from '../../pki/service-account-tokens.js';
import type { Store } from '../store.js';
import { followStored } from './follow-stored.js';

export class PodTokenIssuer {
  private readonly accounts = new Map<string, string>();
  private readonly nodes = new Map<string, string>();

  private constructor(private readonly tokens: ServiceAccountTokens) {}

  /** Reads the service accounts and nodes the store holds and follows their writes. */
  static async start(store: Store, tokens: ServiceAccountTokens): Promise<PodTokenIssuer> {
    const issuer = new PodTokenIssuer(tokens);
    const def = (resource: string) => {
      const d = store.find('', 'v1', resource);
      if (!d) throw new Error(`${resource} are not served`);
      return d;
    };
    const keyOf = (o: KObject) => `${o.metadata.namespace}/${o.metadata.name}`;
    await Promise.all([
      followStored(store, def('serviceaccounts'), (sa) => issuer.accounts.set(keyOf(sa), sa.metadata.uid ?? ''), (sa) => issuer.accounts.delete(keyOf(sa))),
      followStored(store, def('nodes'), (n) => issuer.nodes.set(n.metadata.name ?? '', n.metadata.uid ?? ''), (n) => issuer.nodes.delete(n.metadata.name ?? '')),
    ]);
    return issuer;
  }

  /** The pod's token for the audience (the API server's when none), or undefined while its service account does not exist. */
  issue(pod: KObject, audiences: string[], expirationSeconds: number, now: Date): string | undefined {
    const spec = pod.spec as { serviceAccountName?: string; nodeName?: string } | undefined;
    const namespace = pod.metadata.namespace ?? '';
    const account = spec?.serviceAccountName || 'default';
    const uid = this.accounts.get(`${namespace}/${account}`);
    if (uid === undefined) return undefined;
    const nodeName = spec?.nodeName;
    return this.tokens.issue(namespace, account, uid, audiences, expirationSeconds, now, {
      pod: { name: pod.metadata.name ?? '', uid: pod.metadata.uid },
      ...(nodeName ? { node: { name: nodeName, uid: this.nodes.get(nodeName) } } : {}),
    }).token;
  }
}

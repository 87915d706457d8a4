/**
 * sessionAffinity ClientIP as each node's data plane keeps it: one table
 * per node (iptables' `recent` lists and HNS's SourceIP distribution are
 * both node-local), a client address pinned to the endpoint it first got.
 * iptables forgets a client after timeoutSeconds without a new connection
 * (`--rcheck --seconds`, refreshed by `--set` on each one); HNS never does
 * while the endpoint stays in the load balancer. Time is passed in.
 */
export interface AffinityKey { node: string; service: string; port: number; client: string }

export class AffinityTable {
  private readonly pinned = new Map<string, { ip: string; lastSeen: number }>();

  /** The endpoint the client is pinned to, when it is still among `endpoints` and its entry has not expired. */
  lookup(k: AffinityKey, endpoints: readonly { ip: string }[], now: number, timeoutSeconds?: number): string | undefined {
    const key = keyOf(k);
    const e = this.pinned.get(key);
    if (!e) return undefined;
    const expired = timeoutSeconds !== undefined && now - e.lastSeen > timeoutSeconds * 1000;
    if (expired || !endpoints.some((x) => x.ip === e.ip)) { this.pinned.delete(key); return undefined; }
    return e.ip;
  }

  /** Records (or refreshes) the client's endpoint. */
  pin(k: AffinityKey, ip: string, now: number): void { this.pinned.set(keyOf(k), { ip, lastSeen: now }); }
}

const keyOf = (k: AffinityKey) => `${k.node}|${k.service}|${k.port}|${k.client}`;

/**
 * The rules of upstream's lease endpoint reconciler (pkg/controlplane/reconcilers/lease.go, v1.32)
 * for the `kubernetes` Service, as pure functions: which master IPs the Endpoints must list, in
 * which format, and the EndpointSlice mirrored from them (endpointsadapter.go). The one subset has
 * one port for all servers: the writer's own, when it makes the Endpoints or must reconcile ports.
 */
import type { EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';

export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';

/** checkEndpointSubsetFormatWithLease. */
export function checkEndpointSubsetFormat(e: Endpoints, expectedIPs: readonly string[], ports: readonly EndpointPort[], reconcilePorts: boolean):
  { formatCorrect: boolean; ipsCorrect: boolean; portsCorrect: boolean } {
  const subsets = e.subsets ?? [];
  if (subsets.length !== 1) return { formatCorrect: false, ipsCorrect: false, portsCorrect: false };
  const sub = subsets[0]!;
  const have = sub.ports ?? [];
  const portsCorrect = !reconcilePorts || (have.length === ports.length && ports.every((p, i) => samePort(p, have[i]!)));
  const addresses = sub.addresses ?? [];
  const present = new Map(expectedIPs.map((ip) => [ip, false]));
  let ipsCorrect = addresses.length === expectedIPs.length;
  for (const a of ipsCorrect ? addresses : []) {
    // Uniqueness is assumed among the addresses: an address seen twice or unexpected is wrong.
    if (present.get(a.ip) !== false) { ipsCorrect = false; break; }
    present.set(a.ip, true);
  }
  return { formatCorrect: true, ipsCorrect, portsCorrect };
}

function samePort(a: EndpointPort, b: EndpointPort): boolean {
  return a.name === b.name && a.port === b.port && a.protocol === b.protocol && a.appProtocol === b.appProtocol;
}

/**
 * doReconcile's decision: the Endpoints to write (the current one repaired), or undefined when it
 * already lists exactly the live masters with these ports. Refuses an empty list of masters, as
 * upstream does (this server has just refreshed its own lease, so none means storage is wrong).
 */
export function reconcileMasterEndpoints(current: Endpoints | undefined, serviceName: string, masterIPs: readonly string[],
  ports: readonly EndpointPort[], reconcilePorts: boolean): Endpoints | undefined {
  if (masterIPs.length === 0) throw new Error('no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service');
  const e: Endpoints = structuredClone(current) ?? { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: serviceName, namespace: 'default' } };
  const labels = e.metadata?.labels ?? {};
  const skipMirrorChanged = labels[SKIP_MIRROR_LABEL] !== 'true';
  e.metadata = { ...e.metadata, labels: { ...labels, [SKIP_MIRROR_LABEL]: 'true' } };
  const { formatCorrect, ipsCorrect, portsCorrect } = checkEndpointSubsetFormat(e, masterIPs, ports, reconcilePorts);
  if (current && !skipMirrorChanged && formatCorrect && ipsCorrect && portsCorrect) return undefined;
  if (!formatCorrect) e.subsets = [{ addresses: [], ports: [...ports] }];
  const sub = e.subsets![0]!;
  // RepackSubsets keeps addresses in lexicographic order.
  if (!formatCorrect || !ipsCorrect) sub.addresses = [...masterIPs].sort().map((ip) => ({ ip }));
  if (!portsCorrect) sub.ports = [...ports];
  return e;
}

/** EnsureEndpointSliceFromEndpoints: the slice of the same name, one ready endpoint per address. */
export function endpointSliceFromEndpoints(e: Endpoints): EndpointSlice {
  const sub = e.subsets?.[0];
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: e.metadata!.name, namespace: 'default', labels: { 'kubernetes.io/service-name': e.metadata!.name! } },
    addressType: 'IPv4',
    endpoints: (sub?.addresses ?? []).map((a) => ({ addresses: [a.ip], conditions: { ready: true } })),
    ports: (sub?.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
  };
}

/** The master leases a server counts live: those whose record changed within the TTL, on this server's clock. */
export class LeaseAges {
  private readonly seen = new Map<string, { modRevision: number; at: number }>();

  constructor(private readonly ttlMs: number) {}

  /** Whether the lease at `key`, last written at `modRevision`, is alive at `now`. */
  alive(key: string, modRevision: number, now: number): boolean {
    const s = this.seen.get(key);
    if (!s || s.modRevision !== modRevision) {
      this.seen.set(key, { modRevision, at: now });
      return true;
    }
    return now - s.at < this.ttlMs;
  }

  forget(key: string): void { this.seen.delete(key); }
}

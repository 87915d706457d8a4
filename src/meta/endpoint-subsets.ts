/**
 * Endpoints subsets in canonical form (pkg/api/v1/endpoints RepackSubsets):
 * what the Endpoints strategy stores and what the endpoints controller
 * compares against.
 */
import { isObject } from './json.js';

const addrKey = (a: any) => `${a?.ip ?? ''}\u0000${a?.targetRef?.uid ?? ''}`;
const portKey = (p: any) => JSON.stringify([p?.name ?? '', p?.port ?? 0, p?.protocol ?? '', p?.appProtocol ?? null]);

/** LessEndpointAddress: by IP (bytewise), then target UID, a missing target first. */
function lessAddress(a: any, b: any): number {
  const ia = String(a?.ip ?? '');
  const ib = String(b?.ip ?? '');
  if (ia !== ib) return ia < ib ? -1 : 1;
  if (!b?.targetRef) return a?.targetRef ? 1 : 0;
  if (!a?.targetRef) return -1;
  const ua = String(a.targetRef.uid ?? '');
  const ub = String(b.targetRef.uid ?? '');
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * RepackSubsets (the strategy's Canonicalize): every address is grouped with
 * exactly the ports it serves, ready wins over not-ready, addresses sorted.
 * Upstream then orders ports and subsets by a hash of their Go
 * representation; here they keep first-seen order.
 */
export function repackSubsets(subsets: any[]): any[] {
  const addrs = new Map<string, any>();
  const byPort = new Map<string, { port: any; ready: Map<string, boolean> }>();
  const note = (port: any, a: any, ready: boolean) => {
    const k = addrKey(a);
    if (!addrs.has(k)) addrs.set(k, a);
    const pk = port === null ? 'sentinel' : portKey(port);
    let entry = byPort.get(pk);
    if (!entry) byPort.set(pk, (entry = { port, ready: new Map() }));
    if (!entry.ready.get(k)) entry.ready.set(k, ready);
  };
  for (const ss of subsets) {
    if (!isObject(ss)) continue;
    const ports: any[] = ss.ports?.length ? ss.ports : [null];
    for (const p of ports) {
      for (const a of ss.addresses ?? []) note(p, a, true);
      for (const a of ss.notReadyAddresses ?? []) note(p, a, false);
    }
  }
  const groups = new Map<string, { ready: Map<string, boolean>; ports: any[] }>();
  for (const { port, ready } of byPort.values()) {
    const key = JSON.stringify([...ready.entries()].sort());
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ready, ports: [] }));
    if (port !== null) g.ports.push(port);
  }
  const out: any[] = [];
  for (const g of groups.values()) {
    const ready = [...g.ready].filter(([, r]) => r).map(([k]) => addrs.get(k)).sort(lessAddress);
    const notReady = [...g.ready].filter(([, r]) => !r).map(([k]) => addrs.get(k)).sort(lessAddress);
    const ss: Record<string, any> = {};
    if (ready.length) ss.addresses = ready;
    if (notReady.length) ss.notReadyAddresses = notReady;
    if (g.ports.length) ss.ports = g.ports;
    out.push(ss);
  }
  return out;
}

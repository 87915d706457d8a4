/**
 * The endpoints of one Service port as kube-proxy's endpoint-slice cache
 * holds them: each address once (the first slice that has it wins), with
 * its port for that Service port name, the node it runs on and its
 * conditions. What each proxier then does with them lives in
 * iptables-rules.ts and winkernel-rules.ts.
 */
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';

export interface ProxyEndpoint {
  ip: string;
  /** The port the EndpointSlice controller resolved for this Service port (named targetPorts included). */
  port?: number;
  nodeName?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

/** The TCP endpoints of the Service port named `portName` ('' for an unnamed port) across the Service's IPv4 slices. */
export function proxyEndpoints(slices: readonly EndpointSlice[], portName: string): ProxyEndpoint[] {
  const out: ProxyEndpoint[] = [];
  const seen = new Set<string>();
  for (const s of slices) {
    if (s.addressType !== 'IPv4') continue;
    const p = (s.ports ?? []).find((x) => (x.name ?? '') === portName && (x.protocol ?? 'TCP') === 'TCP');
    if (!p) continue;
    for (const e of s.endpoints ?? []) {
      const ip = e.addresses[0];
      if (!ip || seen.has(ip)) continue;
      seen.add(ip);
      const c = e.conditions ?? {};
      // discovery/v1: a nil ready means ready; a nil serving means what ready says; a nil terminating means not terminating.
      const ready = c.ready !== false;
      out.push({
        ip, ready, serving: c.serving ?? ready, terminating: c.terminating === true,
        ...(typeof p.port === 'number' ? { port: p.port } : {}),
        ...(e.nodeName ? { nodeName: e.nodeName } : {}),
      });
    }
  }
  return out;
}

/**
 * Which Services `winkube up --expose` (or the per-Service annotation)
 * puts on this machine's 127.0.0.1, and on which port:
 *
 * - a NodePort Service: each TCP port on its nodePort, as kind's
 *   extraPortMappings map a node port to the host;
 * - a LoadBalancer Service: each TCP port on its own port, once the
 *   Service has an ingress IP, as k3d's load balancer listens on the
 *   Service's port;
 * - one host port serves one Service: its current holder keeps it, else
 *   the oldest Service asking for it gets it; the others are not exposed
 *   (and reported, so the log can say by whom the port is held).
 *
 * `winkube.io/expose: "true"` exposes a Service without `--expose`;
 * `"false"` keeps a Service off the host even with it.
 */
import type { Service } from 'kubernetes-types/core/v1.js';

export const EXPOSE_ANNOTATION = 'winkube.io/expose';

/** Where a host port leads inside the cluster. */
export type ExposureTarget =
  /** The nodePort on a node's address (kube-proxy's NodePort rules). */
  | { kind: 'NodePort'; nodePort: number; port: number }
  /** The Service's port on its LoadBalancer ingress IP. */
  | { kind: 'LoadBalancer'; ip: string; port: number };

export interface Exposure {
  /** The port on 127.0.0.1. */
  hostPort: number;
  namespace: string;
  name: string;
  /** When the Service was created (RFC 3339), for the oldest-first rule. */
  created: string;
  target: ExposureTarget;
}

export interface HostPortPlan {
  /** The exposures that get their host port, by host port. */
  exposed: Map<number, Exposure>;
  /** Exposures left out because their host port is another Service's. */
  refused: { exposure: Exposure; heldBy: Exposure }[];
}

/** Whether the Service is wanted on the host: its annotation, else `--expose`. */
export function wantsExposure(svc: Service, exposeAll: boolean): boolean {
  const a = svc.metadata?.annotations?.[EXPOSE_ANNOTATION];
  if (a === 'false') return false;
  return exposeAll || a === 'true';
}

/** The host ports a Service asks for (none when it is not wanted, or has nothing to expose yet). */
export function serviceExposures(svc: Service, exposeAll: boolean): Exposure[] {
  if (!wantsExposure(svc, exposeAll)) return [];
  const base = { namespace: svc.metadata?.namespace ?? 'default', name: svc.metadata?.name ?? '', created: svc.metadata?.creationTimestamp ?? '' };
  const tcp = (svc.spec?.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP');
  if (svc.spec?.type === 'NodePort') {
    return tcp.filter((p) => typeof p.nodePort === 'number' && p.nodePort > 0)
      .map((p) => ({ ...base, hostPort: p.nodePort!, target: { kind: 'NodePort', nodePort: p.nodePort!, port: p.port } }));
  }
  if (svc.spec?.type === 'LoadBalancer') {
    const ip = (svc.status?.loadBalancer?.ingress ?? []).find((i) => i.ip)?.ip;
    if (!ip) return [];
    return tcp.map((p) => ({ ...base, hostPort: p.port, target: { kind: 'LoadBalancer', ip, port: p.port } }));
  }
  return [];
}

/** Two exposures of the same Service port to the same place. */
export function sameExposure(a: Exposure, b: Exposure): boolean {
  return a.hostPort === b.hostPort && a.namespace === b.namespace && a.name === b.name && sameTarget(a.target, b.target);
}

function sameTarget(a: ExposureTarget, b: ExposureTarget): boolean {
  if (a.kind === 'NodePort' && b.kind === 'NodePort') return a.nodePort === b.nodePort && a.port === b.port;
  if (a.kind === 'LoadBalancer' && b.kind === 'LoadBalancer') return a.ip === b.ip && a.port === b.port;
  return false;
}

const sameService = (a: Exposure, b: Exposure) => a.namespace === b.namespace && a.name === b.name;

/** Oldest first; the same instant by namespace and name, so the plan does not depend on list order. */
function older(a: Exposure, b: Exposure): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  const ka = `${a.namespace}/${a.name}`;
  const kb = `${b.namespace}/${b.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The host ports the Services get, given who holds which port now. */
export function planHostPorts(services: readonly Service[], exposeAll: boolean, held: ReadonlyMap<number, Exposure>): HostPortPlan {
  const wanted = new Map<number, Exposure[]>();
  for (const svc of services) {
    for (const e of serviceExposures(svc, exposeAll)) wanted.set(e.hostPort, [...(wanted.get(e.hostPort) ?? []), e]);
  }
  const plan: HostPortPlan = { exposed: new Map(), refused: [] };
  for (const [port, candidates] of wanted) {
    const holder = held.get(port);
    // The Service holding the port keeps it (its target may have changed: a new ingress IP).
    const keeper = holder ? candidates.find((c) => sameService(c, holder)) : undefined;
    const winner = keeper ?? [...candidates].sort(older)[0]!;
    plan.exposed.set(port, winner);
    for (const c of candidates) if (c !== winner) plan.refused.push({ exposure: c, heldBy: winner });
  }
  return plan;
}

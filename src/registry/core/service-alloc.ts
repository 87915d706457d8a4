/**
 * Service IP family defaulting and cluster IP / node port allocation, as the
 * service REST storage does it in beginCreate/beginUpdate
 * (pkg/registry/core/service/storage/alloc.go, v1.32) for a single-stack
 * IPv4 cluster with the bitmap allocators (MultiCIDRServiceAllocator is off).
 * What is in use is read from the stored services rather than a bitmap, plus
 * what writes still in flight have taken (service-allocation-table.ts): an
 * allocation is atomic, and undone when its write fails.
 */
import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import { errors } from '../../apimachinery/errors.js';
import { field, goQuote, type FieldError } from '../../apimachinery/field-errors.js';
import type { KObject } from '../../apimachinery/object.js';
import type { Lookup } from '../../admission/lookup.js';
import { isObject } from './decode.js';
import { listAll } from '../../admission/lookup.js';
import { allocationTableOf, type ServiceAllocation } from './service-allocation-table.js';

export const SERVICE_CIDR = '10.96.0.0/12';
export const NODE_PORT_RANGE = { base: 30000, size: 2768 };

const SERVICE_KIND = { group: '', kind: 'Service' };
type Svc = Record<string, any>;

/** The address of the network, its prefix length and the allocator's geometry. */
const net = (() => {
  const [addr = '', bits = ''] = SERVICE_CIDR.split('/');
  const network = ipToInt(addr);
  const size = 2 ** (32 - Number(bits));
  // IPv4 ranges lose the network and broadcast addresses; indexes count from network+1.
  const max = size - 2;
  return { network, max, offset: rangeOffset(size, 16, 256, 16) };
})();

const ports = { ...NODE_PORT_RANGE, offset: rangeOffset(NODE_PORT_RANGE.size, 16, 128, 32) };

/** calculateRangeOffset: min(max(min, size/step), max); the low band is kept for static requests. */
function rangeOffset(size: number, min: number, max: number, step: number): number {
  if (size <= min) return 0;
  return Math.min(Math.max(min, Math.floor(size / step)), max);
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

const familyOf = (ip: string): 'IPv4' | 'IPv6' | undefined => (isIP(ip) === 4 ? 'IPv4' : isIP(ip) === 6 ? 'IPv6' : undefined);
const goStrings = (list: string[] | undefined) => ({ goSyntax: `[]string{${(list ?? []).map(goQuote).join(', ')}}` });
const invalid = (svc: Svc, errs: FieldError[]) => errors.invalid(SERVICE_KIND, svc.metadata?.name ?? '', errs);

/** randomScanStrategyWithOffset: a random free index of the upper band, else of the lower one. */
function allocateNext(max: number, offset: number, used: (i: number) => boolean): number | undefined {
  const upper = max - offset;
  const start = randomInt(Math.max(upper, 1));
  for (let i = 0; i < upper; i++) {
    const at = offset + ((start + i) % upper);
    if (!used(at)) return at;
  }
  if (offset > 0) {
    const s = randomInt(offset);
    for (let i = 0; i < offset; i++) {
      const at = (s + i) % offset;
      if (!used(at)) return at;
    }
  }
  return undefined;
}

export const needsClusterIP = (svc: Svc) => svc.spec?.type !== 'ExternalName';
export const needsNodePort = (svc: Svc) => svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';
export const needsHCNodePort = (svc: Svc) => svc.spec?.type === 'LoadBalancer' && svc.spec?.externalTrafficPolicy === 'Local';
/** ExternallyAccessible: reachable from outside the cluster (externalTrafficPolicy applies). */
export const externallyAccessible = (svc: Svc) => needsNodePort(svc) ||
  (svc.spec?.type === 'ClusterIP' && (svc.spec?.externalIPs ?? []).length > 0);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const sameClusterIPs = (a: Svc, b: Svc) => same(a.spec?.clusterIPs ?? [], b.spec?.clusterIPs ?? []);
const sameIPFamilies = (a: Svc, b: Svc) => same(a.spec?.ipFamilies ?? [], b.spec?.ipFamilies ?? []);

/** NormalizeClusterIPs: keep clusterIP and clusterIPs in step before anyone reads them. */
export function normalizeClusterIPs(svc: Svc, old?: Svc): void {
  const s = svc.spec;
  if (!isObject(s)) return;
  const plural: string[] = s.clusterIPs ?? [];
  if (!old) {
    if (s.clusterIP && plural.length === 0) s.clusterIPs = [s.clusterIP];
    return;
  }
  const o = old.spec ?? {};
  if (s.clusterIP && plural.length === 0) {
    s.clusterIPs = o.clusterIP === s.clusterIP ? o.clusterIPs : [s.clusterIP];
    return;
  }
  // Cleared the singular but left the plural as it was: clear both.
  if (o.clusterIP && !s.clusterIP && sameClusterIPs(old, svc)) { delete s.clusterIPs; return; }
  // Changed the singular only: carry it into the plural (validation judges the change).
  if (o.clusterIP && s.clusterIP && o.clusterIP !== s.clusterIP && sameClusterIPs(old, svc) && plural.length) {
    s.clusterIPs = [s.clusterIP, ...plural.slice(1)];
  }
}

/** patchAllocatedValues: a resubmitted object without the allocated values keeps them. */
export function patchAllocatedValues(svc: Svc, old: Svc): void {
  const s = svc.spec;
  const o = old.spec ?? {};
  if (!isObject(s)) return;
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!s.clusterIP && o.clusterIP) s.clusterIP = o.clusterIP;
    if (!(s.clusterIPs ?? []).length && (o.clusterIPs ?? []).length) s.clusterIPs = o.clusterIPs;
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const usedBy = (x: Svc) => new Set<number>((x.spec?.ports ?? []).map((p: any) => p?.nodePort).filter(Boolean));
    const newUsed = usedBy(svc);
    const used = new Set([...usedBy(old)].filter((p) => newUsed.has(p)));
    const byName = new Map<string, number>();
    for (const p of o.ports ?? []) byName.set(p?.name ?? '', p?.nodePort ?? 0);
    for (const p of s.ports ?? []) {
      if (!isObject(p) || p.nodePort) continue;
      const v = byName.get(p.name ?? '') ?? 0;
      if (v && !used.has(v)) p.nodePort = v;
    }
  }
  if (needsHCNodePort(old) && needsHCNodePort(svc) && !s.healthCheckNodePort && o.healthCheckNodePort) {
    s.healthCheckNodePort = o.healthCheckNodePort;
  }
}

/**
 * initIPFamilyFields for a cluster whose only service family is IPv4:
 * defaults ipFamilyPolicy (SingleStack; RequireDualStack for headless
 * services without selector) and ipFamilies, and refuses what the cluster
 * cannot serve.
 */
export function initIPFamilyFields(svc: Svc, old?: Svc): void {
  const s = svc.spec;
  if (!isObject(s) || s.type === 'ExternalName') return;
  if (old && s.ipFamilyPolicy === 'PreferDualStack' && old.spec?.ipFamilyPolicy === 'PreferDualStack' &&
    sameClusterIPs(old, svc) && sameIPFamilies(old, svc)) return;
  const headlessNoSelector = s.clusterIP === 'None' && Object.keys(s.selector ?? {}).length === 0;
  if (!s.ipFamilyPolicy) {
    if (old?.spec?.ipFamilyPolicy) s.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    else s.ipFamilyPolicy = headlessNoSelector ? 'RequireDualStack' : 'SingleStack';
  }
  const errs: FieldError[] = [];
  if (old) {
    if (s.ipFamilyPolicy === 'SingleStack') {
      if (sameClusterIPs(old, svc) && (s.clusterIPs ?? []).length > 1) s.clusterIPs = s.clusterIPs.slice(0, 1);
      if (sameIPFamilies(old, svc) && (s.ipFamilies ?? []).length > 1) s.ipFamilies = s.ipFamilies.slice(0, 1);
    } else {
      if ((s.clusterIPs ?? []).length < (old.spec?.clusterIPs ?? []).length) {
        errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, 'must be \'SingleStack\' to release the secondary cluster IP'));
      }
      if ((s.ipFamilies ?? []).length < (old.spec?.ipFamilies ?? []).length) {
        errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, 'must be \'SingleStack\' to release the secondary IP family'));
      }
    }
  }
  if (s.ipFamilyPolicy === 'SingleStack') {
    if ((s.clusterIPs ?? []).length === 2) {
      errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy,
        "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    }
    if ((s.ipFamilies ?? []).length === 2) {
      errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy,
        "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
  }
  // Families follow the cluster IPs given.
  const clusterIPs: string[] = s.clusterIPs ?? [];
  for (const [i, ip] of clusterIPs.entries()) {
    if (ip === 'None') break;
    const fam = familyOf(ip);
    if (!fam) break; // malformed: left to validation
    if (i >= (s.ipFamilies ?? []).length) {
      if (fam !== 'IPv4') errs.push(field.invalid(`spec.clusterIPs[${i}]`, goStrings(clusterIPs), `${fam} is not configured on this cluster`));
      else (s.ipFamilies ??= []).push(fam);
    }
  }
  if (errs.length) throw invalid(svc, errs);
  if (headlessNoSelector) {
    // Headless without selector may name families the cluster lacks.
    if (!(s.ipFamilies ?? []).length) s.ipFamilies = ['IPv4'];
    if (s.ipFamilies.length < 2 && s.ipFamilyPolicy !== 'SingleStack') {
      s.ipFamilies.push(s.ipFamilies[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    }
    return;
  }
  if (s.ipFamilyPolicy === 'RequireDualStack') {
    errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  (s.ipFamilies ?? []).forEach((f: string, i: number) => {
    if (f !== 'IPv4') errs.push(field.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
  });
  if (errs.length) throw invalid(svc, errs);
  if (!(s.ipFamilies ?? []).length) s.ipFamilies = ['IPv4'];
}

/** A set of values in use: has() asks, add() takes. */
interface Pool {
  has(v: number): boolean;
  add(v: number): void;
}

/**
 * Cluster IPs (as range indexes) and node ports in use: held by the stored
 * services (all namespaces) other than `self`, or taken by another write in
 * flight. What this write takes is added to both.
 */
async function usedByServices(lookup: Lookup, alloc: ServiceAllocation, self?: Svc): Promise<{ ips: Pool; ports: Pool }> {
  const ips = new Set<number>();
  const nodePorts = new Set<number>();
  for (const svc of await listAll(lookup, '', 'services', '')) {
    if (self && svc.metadata.uid && svc.metadata.uid === self.metadata?.uid) continue;
    const spec: any = (svc as KObject).spec ?? {};
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
      if (familyOf(ip) === 'IPv4') ips.add(ipToInt(ip) - net.network - 1);
    }
    for (const p of spec.ports ?? []) if (p?.nodePort) nodePorts.add(p.nodePort);
    if (spec.healthCheckNodePort) nodePorts.add(spec.healthCheckNodePort);
  }
  const pool = (stored: Set<number>, kind: string): Pool => ({
    has: (v) => stored.has(v) || alloc.held(`${kind}/${v}`),
    add: (v) => { stored.add(v); alloc.take(`${kind}/${v}`); },
  });
  return { ips: pool(ips, 'ip'), ports: pool(nodePorts, 'port') };
}

/**
 * Runs an allocation of the Service's write: the table entry is made before
 * the stored services are read. Returns the FinishFunc the store calls when
 * the write is stored (true) or not (false); a failed allocation gives back
 * at once what it took.
 */
async function allocating(svc: KObject, lookup: Lookup, dryRun: boolean,
  allocate: (alloc: ServiceAllocation) => Promise<void>): Promise<(stored: boolean) => void> {
  const alloc = allocationTableOf(lookup).begin(svc.metadata.uid ?? '', dryRun);
  try {
    await allocate(alloc);
  } catch (e) {
    alloc.finish(false);
    throw e;
  }
  return (stored) => alloc.finish(stored);
}

function allocClusterIPs(svc: Svc, used: Pool): void {
  const s = svc.spec;
  if (s.type === 'ExternalName') return;
  if ((s.clusterIPs ?? [])[0] === 'None') return;
  s.clusterIPs = [...(s.clusterIPs ?? [])];
  (s.ipFamilies as string[]).forEach((_f, i) => { if (i >= s.clusterIPs.length) s.clusterIPs.push(''); });
  for (let i = 0; i < s.ipFamilies.length; i++) {
    const ip: string = s.clusterIPs[i];
    if (ip === '') {
      const at = allocateNext(net.max, net.offset, (x) => used.has(x));
      if (at === undefined) throw errors.internal('failed to allocate a serviceIP: range is full');
      used.add(at);
      s.clusterIPs[i] = intToIp(net.network + 1 + at);
    } else {
      if (familyOf(ip) !== 'IPv4') continue; // malformed or foreign: left to validation
      const at = ipToInt(ip) - net.network - 1;
      let why = '';
      if (at < 0 || at >= net.max) why = `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`;
      else if (used.has(at)) why = 'provided IP is already allocated';
      if (why) throw invalid(svc, [field.invalid('spec.clusterIPs', goStrings(s.clusterIPs), `failed to allocate IP ${ip}: ${why}`)]);
      used.add(at);
    }
  }
  if (s.clusterIPs.length) s.clusterIP = s.clusterIPs[0];
}

/** A port allocation operation: requests and fresh allocations against what is used. */
function portOp(used: Pool) {
  return {
    allocate(port: number): string | undefined {
      const at = port - ports.base;
      if (at < 0 || at >= ports.size) {
        return `provided port is not in the valid range. The range of valid ports is ${ports.base}-${ports.base + ports.size - 1}`;
      }
      if (used.has(port)) return 'provided port is already allocated';
      used.add(port);
      return undefined;
    },
    next(): number | undefined {
      const at = allocateNext(ports.size, ports.offset, (x) => used.has(ports.base + x));
      if (at === undefined) return undefined;
      used.add(ports.base + at);
      return ports.base + at;
    },
  };
}

/** initNodePorts: ports sharing a port number (e.g. TCP and UDP) share one node port. */
function allocNodePorts(svc: Svc, used: Pool): void {
  const s = svc.spec;
  const op = portOp(used);
  const shouldAllocate = s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
  if (needsNodePort(svc)) {
    const byPort = new Map<number, number>();
    (s.ports ?? []).forEach((p: any, i: number) => {
      if (!isObject(p)) return;
      if (!p.nodePort && !shouldAllocate) return;
      const allocated = byPort.get(p.port) ?? 0;
      if (!allocated) {
        const requested = (s.ports as any[]).find((q) => q?.port === p.port && q?.nodePort)?.nodePort ?? 0;
        if (requested) {
          const why = op.allocate(requested);
          if (why) throw invalid(svc, [field.invalid(`spec.ports[${i}].nodePort`, requested, why)]);
          p.nodePort = requested;
          byPort.set(p.port, requested);
        } else {
          const np = op.next();
          if (np === undefined) throw errors.internal('failed to allocate a nodePort: range is full');
          p.nodePort = np;
          byPort.set(p.port, np);
        }
      } else if (p.nodePort !== allocated) {
        if (!p.nodePort) p.nodePort = allocated;
        else {
          const why = op.allocate(p.nodePort);
          if (why) throw invalid(svc, [field.invalid(`spec.ports[${i}].nodePort`, p.nodePort, why)]);
        }
      }
    });
  }
  if (needsHCNodePort(svc)) {
    if (s.healthCheckNodePort) {
      const why = op.allocate(s.healthCheckNodePort);
      if (why) throw errors.internal(`failed to allocate requested HealthCheck NodePort ${s.healthCheckNodePort}: ${why}`);
    } else {
      const np = op.next();
      if (np === undefined) throw errors.internal('failed to allocate a HealthCheck NodePort 0: range is full');
      s.healthCheckNodePort = np;
    }
  }
}

/**
 * beginCreate: normalize, default IP families, then allocate cluster IPs and
 * node ports; the FinishFunc keeps them (stored) or releases them.
 */
export async function allocateServiceCreate(svc: KObject, lookup: Lookup, dryRun: boolean): Promise<(stored: boolean) => void> {
  if (!isObject(svc.spec)) svc.spec = {};
  normalizeClusterIPs(svc);
  initIPFamilyFields(svc);
  return allocating(svc, lookup, dryRun, async (alloc) => {
    const used = await usedByServices(lookup, alloc);
    allocClusterIPs(svc, used.ips);
    allocNodePorts(svc, used.ports);
  });
}

/**
 * dropTypeDependentFields: after a type change, values the new type does not
 * use and the client did not touch are wiped.
 */
export function dropTypeDependentFields(svc: Svc, old: Svc): void {
  const s = svc.spec;
  const o = old.spec ?? {};
  if (!isObject(s)) return;
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (sameClusterIPs(old, svc)) { delete s.clusterIP; delete s.clusterIPs; }
    if (sameIPFamilies(old, svc)) delete s.ipFamilies;
    if ((s.ipFamilyPolicy ?? null) === (o.ipFamilyPolicy ?? null)) delete s.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(svc)) {
    const set = (x: Svc) => new Set<number>((x.spec?.ports ?? []).map((p: any) => p?.nodePort).filter(Boolean));
    const oldPorts = set(old);
    if ([...set(svc)].every((p) => oldPorts.has(p))) for (const p of s.ports ?? []) if (isObject(p)) delete p.nodePort;
  }
  if (needsHCNodePort(old) && !needsHCNodePort(svc) && (s.healthCheckNodePort ?? 0) === (o.healthCheckNodePort ?? 0)) {
    delete s.healthCheckNodePort;
  }
  if (o.type === 'LoadBalancer' && s.type !== 'LoadBalancer') {
    if (s.allocateLoadBalancerNodePorts != null && o.allocateLoadBalancerNodePorts != null &&
      s.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts) delete s.allocateLoadBalancerNodePorts;
    if ((s.loadBalancerClass ?? null) === (o.loadBalancerClass ?? null)) delete s.loadBalancerClass;
  }
  if (externallyAccessible(old) && !externallyAccessible(svc) && (s.externalTrafficPolicy ?? '') === (o.externalTrafficPolicy ?? '')) {
    delete s.externalTrafficPolicy;
  }
  if (s.type !== 'LoadBalancer') svc.status = { ...(isObject(svc.status) ? svc.status : {}), loadBalancer: {} };
}

/**
 * beginUpdate's allocation (allocateUpdate): a service that starts needing
 * cluster IPs gets them; node ports the update asks for that the old object
 * did not hold are allocated (range and conflicts checked), missing ones
 * allocated when the type wants them (updateNodePorts); the health check
 * node port likewise. The FinishFunc keeps what was allocated (stored) or
 * releases it.
 */
export async function allocateServiceUpdate(svc: KObject, old: KObject, lookup: Lookup, dryRun: boolean): Promise<(stored: boolean) => void> {
  return allocating(svc, lookup, dryRun, (alloc) => allocateUpdate(svc, old, lookup, alloc));
}

async function allocateUpdate(svc: KObject, old: KObject, lookup: Lookup, alloc: ServiceAllocation): Promise<void> {
  const s = svc.spec as Svc | undefined;
  if (!isObject(s)) return;
  const used = await usedByServices(lookup, alloc, old);
  if (!needsClusterIP(old) && needsClusterIP(svc)) allocClusterIPs(svc, used.ips);
  const op = portOp(used.ports);
  const oldPorts = new Set<number>(((old.spec as Svc | undefined)?.ports ?? []).map((p: any) => p?.nodePort).filter(Boolean));
  if (needsNodePort(svc)) {
    const shouldAllocate = s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
    const allocated = new Set<number>();
    (s.ports ?? []).forEach((p: any, i: number) => {
      if (!isObject(p)) return;
      if (!p.nodePort && !shouldAllocate) return;
      if (p.nodePort) {
        if (oldPorts.has(p.nodePort) || allocated.has(p.nodePort)) return;
        const why = op.allocate(p.nodePort);
        if (why) throw invalid(svc, [field.invalid(`spec.ports[${i}].nodePort`, p.nodePort, why)]);
        allocated.add(p.nodePort);
      } else {
        const np = op.next();
        if (np === undefined) throw errors.internal('failed to allocate a nodePort: range is full');
        p.nodePort = np;
      }
    });
  }
  if (needsHCNodePort(svc)) {
    const oldHC = (old.spec as Svc | undefined)?.healthCheckNodePort ?? 0;
    if (!s.healthCheckNodePort) {
      const np = op.next();
      if (np === undefined) throw errors.internal('failed to allocate a HealthCheck NodePort 0: range is full');
      s.healthCheckNodePort = np;
    } else if (s.healthCheckNodePort !== oldHC) {
      const why = op.allocate(s.healthCheckNodePort);
      if (why) throw errors.internal(`failed to allocate requested HealthCheck NodePort ${s.healthCheckNodePort}: ${why}`);
    }
  }
}

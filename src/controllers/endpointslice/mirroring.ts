/**
 * The EndpointSlice mirroring controller of kube-controller-manager
 * (pkg/controller/endpointslicemirroring, v1.32), in-process. Endpoints a
 * user writes by hand for a Service without a selector (an external
 * database, a VM) are mirrored into EndpointSlices, which is what kube-proxy
 * and DNS read: one slice per subset's port set and address family, named
 * `<endpoints>-<5 random>`, owned by the Endpoints, with its labels and
 * annotations copied and `endpointslice.kubernetes.io/managed-by:
 * endpointslicemirroring-controller.k8s.io`. At most 1,000 addresses of a
 * subset are mirrored. Endpoints labelled `endpointslice.kubernetes.io/
 * skip-mirror: "true"` (the `kubernetes` Endpoints) or carrying a leader
 * election record are left alone.
 */
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { StatusError } from '../../apimachinery/errors.js';
import { goIPString } from '../../network/ip-string.js';
import type { KObject } from '../../apimachinery/object.js';
import { plain } from '../../client/plain.js';
import { endpoints, endpointslices, services } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import { parseIPSloppy } from '../../validation/common.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import { MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from './controller.js';

export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** --mirroring-max-endpoints-per-subset default. */
export const MAX_ENDPOINTS_PER_SUBSET = 1000;
const COMPONENT = 'endpoint-slice-mirroring-controller';
const MANAGER = 'endpointslicemirroring-controller';

type Obj = KObject & { subsets?: any[]; spec?: any; endpoints?: any[]; ports?: any[]; addressType?: string };
type Endpoint = Record<string, any>;
type Port = { name: string; port: number; protocol: string; appProtocol?: string };
interface Desired { addressType: 'IPv4' | 'IPv6'; ports: Port[]; endpoints: Map<string, Endpoint> }
export interface SliceChanges { create: Obj[]; update: Obj[]; delete: Obj[]; invalid: number; skipped: number }

function shouldMirror(ep: Obj | undefined): boolean {
  return !!ep && ep.metadata.labels?.[SKIP_MIRROR_LABEL] !== 'true' && !(LEADER_ANNOTATION in (ep.metadata.annotations ?? {}));
}

/** A Service without a selector; an empty selector is none once stored. */
const hasSelector = (svc: Obj) => Object.keys(svc.spec?.selector ?? {}).length > 0;

/** epPortsToEpsPorts. */
function slicePorts(ports: any[] | undefined): Port[] {
  return (ports ?? []).map((p) => {
    const out: Port = { name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' };
    if (p.appProtocol != null) out.appProtocol = p.appProtocol;
    return out;
  });
}

/** addrTypePortMapKey: address family plus the port set, order-independent. */
function portMapKey(addressType: string, ports: Port[]): string {
  const sorted = ports.map((p) => JSON.stringify([p.name, p.port, p.protocol, p.appProtocol ?? null])).sort();
  return `${addressType}-${sorted.join(',')}`;
}

/** The EndpointSet identity of an endpoint (endpointsliceutil hashEndpoint): addresses, hostname, target. */
function endpointKey(ep: Endpoint): string {
  return JSON.stringify([[...ep.addresses].sort(), ep.hostname ?? '', ep.targetRef ? [ep.targetRef.namespace ?? '', ep.targetRef.name ?? ''] : null]);
}

/** addressToEndpoint: undefined for an address that is not an IP. */
function addressToEndpoint(address: any, ready: boolean): { endpoint: Endpoint; addressType: 'IPv4' | 'IPv6' } | undefined {
  const bytes = typeof address.ip === 'string' ? parseIPSloppy(address.ip) : undefined;
  if (!bytes) return undefined;
  const endpoint: Endpoint = { addresses: [goIPString(bytes)], conditions: { ready } };
  if (address.targetRef) endpoint.targetRef = address.targetRef;
  if (address.nodeName) endpoint.nodeName = address.nodeName;
  if (address.hostname) endpoint.hostname = address.hostname;
  return { endpoint, addressType: bytes.length === 4 ? 'IPv4' : 'IPv6' };
}

/** newEndpointSlice: labels and annotations from the Endpoints, owned by it. */
function newSlice(endpoints: Obj, d: Desired, name: string | undefined): Obj {
  const labels: Record<string, string> = { ...(endpoints.metadata.labels ?? {}), [SERVICE_NAME_LABEL]: endpoints.metadata.name!, [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME };
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(endpoints.metadata.annotations ?? {})) if (k !== LAST_CHANGE_TRIGGER_TIME && k !== LAST_APPLIED) annotations[k] = v as string;
  const metadata: KObject['metadata'] = {
    namespace: endpoints.metadata.namespace, labels,
    ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name: endpoints.metadata.name!, uid: endpoints.metadata.uid!, controller: true, blockOwnerDeletion: true }],
  };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  if (name) metadata.name = name; else metadata.generateName = `${endpoints.metadata.name}-`;
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata, addressType: d.addressType, endpoints: [], ports: d.ports };
}

/**
 * reconciler.reconcile: the slices to create, update and delete so that the
 * mirrored slices of `endpoints` hold its addresses.
 */
export function mirrorSlices(endpoints: Obj, existing: Obj[], maxPerSubset = MAX_ENDPOINTS_PER_SUBSET): SliceChanges {
  const desired = new Map<string, Desired>();
  let invalid = 0;
  let skipped = 0;
  for (const subset of endpoints.subsets ?? []) {
    const ports = slicePorts(subset.ports);
    const keys = { IPv4: portMapKey('IPv4', ports), IPv6: portMapKey('IPv6', ports) };
    for (const addressType of ['IPv4', 'IPv6'] as const) {
      const d = desired.get(keys[addressType]);
      if (d) d.ports = ports; else desired.set(keys[addressType], { addressType, ports, endpoints: new Map() });
    }
    const addresses: [any, boolean][] = [...(subset.addresses ?? []).map((a: any) => [a, true]), ...(subset.notReadyAddresses ?? []).map((a: any) => [a, false])] as [any, boolean][];
    let added = 0;
    for (const [address, ready] of addresses) {
      if (added >= maxPerSubset) break;
      const e = addressToEndpoint(address, ready);
      if (!e) { invalid++; continue; }
      desired.get(keys[e.addressType])!.endpoints.set(endpointKey(e.endpoint), e.endpoint);
      added++;
    }
    skipped += addresses.length - added;
  }

  const existingByKey = new Map<string, Obj[]>();
  for (const s of existing) {
    const k = portMapKey(s.addressType ?? 'IPv4', slicePorts(s.ports));
    existingByKey.set(k, [...(existingByKey.get(k) ?? []), s]);
  }
  const out: SliceChanges = { create: [], update: [], delete: [], invalid, skipped };
  for (const [key, d] of desired) {
    const slices = existingByKey.get(key) ?? [];
    if (d.endpoints.size === 0) { out.delete.push(...slices); continue; }
    const first = slices[0];
    if (first) {
      out.delete.push(...slices.slice(1));
      if (unchanged(first, d)) continue;
    }
    const s = newSlice(endpoints, d, first?.metadata.name);
    s.endpoints = [...d.endpoints.values()].slice(0, maxPerSubset);
    (s.metadata.name ? out.update : out.create).push(s);
  }
  for (const [key, slices] of existingByKey) if (!desired.has(key)) out.delete.push(...slices);
  // recycleSlices: a slice to create takes the name of one to delete of the same address type.
  for (const c of [...out.create]) {
    const i = out.delete.findIndex((s) => s.addressType === c.addressType);
    const recycled = out.delete[i];
    if (!recycled) continue;
    out.delete.splice(i, 1);
    out.create.splice(out.create.indexOf(c), 1);
    delete c.metadata.generateName;
    c.metadata.name = recycled.metadata.name;
    out.update.push(c);
  }
  return out;
}

/** totalChanges found nothing to add, update or remove. */
function unchanged(slice: Obj, d: Desired): boolean {
  const have = slice.endpoints ?? [];
  if (have.length !== d.endpoints.size) return false;
  return have.every((e: Endpoint) => {
    const want = d.endpoints.get(endpointKey(e));
    return want !== undefined && JSON.stringify(want) === JSON.stringify(e);
  });
}

export class EndpointSliceMirroringController {
  private readonly queue: RateLimitingQueue;
  private readonly endpoints = new Map<string, Obj>();
  private readonly services = new Map<string, Obj>();
  /** Mirrored slices by Endpoints key, then slice name. */
  private readonly slices = new Map<string, Map<string, Obj>>();
  /** Resource versions this controller wrote, so only others' changes to its slices queue a sync (endpointSliceTracker). */
  private readonly written = new Set<string>();
  private readonly sliceClient: ResourceClient<KObject>;
  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext, private readonly maxPerSubset = MAX_ENDPOINTS_PER_SUBSET) {
    this.sliceClient = ctx.client.resource(plain(endpointslices));
    this.events = ctx.events;
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    const keyOf = (o: KObject) => `${o.metadata.namespace}/${o.metadata.name}`;
    await this.ctx.informers.inform(endpointslices, (type, slice) => {
      const labels = slice.metadata.labels ?? {};
      if (labels[MANAGED_BY_LABEL] !== MIRRORING_CONTROLLER_NAME || !labels[SERVICE_NAME_LABEL]) return;
      const key = `${slice.metadata.namespace}/${labels[SERVICE_NAME_LABEL]}`;
      const byName = this.slices.get(key) ?? new Map<string, Obj>();
      if (type === 'DELETED') byName.delete(slice.metadata.name!); else byName.set(slice.metadata.name!, slice);
      if (byName.size) this.slices.set(key, byName); else this.slices.delete(key);
      if (!this.written.delete(`${type}/${slice.metadata.uid}/${slice.metadata.resourceVersion}`)) this.queue.add(key);
      // An own write whose event came before it was noted stays behind: keep the set from growing.
      if (this.written.size > 4096) this.written.clear();
    });
    await this.ctx.informers.inform(services, (type, svc) => {
      const key = keyOf(svc);
      const before = this.services.get(key);
      if (type === 'DELETED') this.services.delete(key); else this.services.set(key, svc);
      const was = before ? !hasSelector(before) : undefined;
      const now = !hasSelector(svc);
      if (type === 'MODIFIED' ? was !== now : now) this.queue.add(key);
    });
    await this.ctx.informers.inform(endpoints, (type, ep) => {
      const key = keyOf(ep);
      const before = this.endpoints.get(key);
      if (type === 'DELETED') this.endpoints.delete(key); else this.endpoints.set(key, ep);
      if (shouldMirror(ep) || shouldMirror(before)) this.queue.add(key);
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(5, (key) => this.sync(key), (key, e) => this.ctx.log(`endpointslice mirroring ${key}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async sync(key: string): Promise<void> {
    const namespace = key.slice(0, key.indexOf('/'));
    const ep = this.endpoints.get(key);
    const svc = this.services.get(key);
    const existing = [...(this.slices.get(key)?.values() ?? [])];
    if (!ep || !shouldMirror(ep) || !svc || hasSelector(svc)) {
      for (const s of existing) await this.remove(namespace, s);
      return;
    }
    const changes = mirrorSlices(ep, existing, this.maxPerSubset);
    if (changes.invalid > 0) {
      await this.events.record(referenceTo(ep), 'Warning', 'InvalidIPAddress', `Skipped ${changes.invalid} invalid IP addresses when mirroring to EndpointSlices`, COMPONENT);
    }
    if (changes.skipped > changes.invalid) {
      await this.events.record(referenceTo(ep), 'Warning', 'TooManyAddressesToMirror',
        `A max of ${this.maxPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${changes.skipped} addresses were skipped`, COMPONENT);
    }
    // No new slices for Endpoints on their way out.
    if (!ep.metadata.deletionTimestamp) {
      for (const s of changes.create) {
        try {
          const made = await this.sliceClient.create(namespace, s, { fieldManager: MANAGER });
          this.written.add(`ADDED/${made.metadata.uid}/${made.metadata.resourceVersion}`);
        } catch (e) {
          // A terminating namespace refuses creates for good: drop the work.
          if (e instanceof StatusError && e.status.code === 403) return;
          throw e;
        }
      }
    }
    for (const s of changes.update) {
      const made = await this.sliceClient.update(namespace, s.metadata.name!, (cur) => ({ ...s, metadata: { ...s.metadata, resourceVersion: cur.metadata.resourceVersion } }),
        { fieldManager: MANAGER });
      this.written.add(`MODIFIED/${made.metadata.uid}/${made.metadata.resourceVersion}`);
    }
    for (const s of changes.delete) await this.remove(namespace, s);
  }

  private async remove(namespace: string, slice: Obj): Promise<void> {
    try {
      await this.sliceClient.delete(namespace, slice.metadata.name!, { preconditions: { uid: slice.metadata.uid }, fieldManager: MANAGER });
    } catch (e) {
      if (!(e instanceof StatusError && e.status.code === 404)) throw e;
    }
  }
}

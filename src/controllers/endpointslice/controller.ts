/**
 * The EndpointSlice controller of kube-controller-manager
 * (pkg/controller/endpointslice and the staging endpointslice reconciler,
 * v1.32), in-process. Every Service with a selector gets EndpointSlices
 * named `<service>-<5 random>` (generateName), owned by the Service and
 * labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`.
 * Each selected pod with an IP (terminating ones included) is an endpoint
 * with ready/serving/terminating conditions, nodeName, zone (the node's
 * `topology.kubernetes.io/zone`), and targetRef; pods resolving the service
 * ports to different numbers go to different slices; a slice holds at most
 * 100 endpoints. A service with no endpoints gets one empty placeholder slice.
 */
import { isDeepStrictEqual } from 'node:util';
import { StatusError } from '../../apimachinery/errors.js';
import type { KObject } from '../../apimachinery/object.js';
import { OwnWrites } from '../../client/own-writes.js';
import { plain } from '../../client/plain.js';
import { endpointslices, nodes } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import { ServicePods } from './service-pods.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import { findPort, HEADLESS_LABEL, isPodReady, isServiceIPSet, LAST_CHANGE_TRIGGER_TIME, podIPs, shouldPodBeInEndpoints, shouldSetHostname, TriggerTimeTracker } from './util.js';
import { rfc3339Nano } from '../../apimachinery/time.js';

export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** --max-endpoints-per-slice default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
const MANAGER = 'endpointslice-controller';

type Obj = KObject & { spec?: any; status?: any };
type Endpoint = Record<string, any>;
type Port = { name: string; port: number; protocol: string; appProtocol?: string };

/** getEndpointPorts: the service ports this pod serves, numbers resolved against the pod. */
export function endpointPorts(svc: Obj, pod: Obj): Port[] {
  const out: Port[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const p: Port = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol != null) p.appProtocol = sp.appProtocol;
    out.push(p);
  }
  return out;
}

/** podToEndpoint. */
export function podToEndpoint(pod: Obj, node: Obj | undefined, svc: Obj, addressType: string): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  // Never ready while terminating, unless not-ready addresses are published.
  const ready = !!svc.spec?.publishNotReadyAddresses || (serving && !terminating);
  const ep: Endpoint = {
    addresses: podIPs(pod).filter((ip) => (addressType === 'IPv6') === ip.includes(':')),
    conditions: { ready, serving, terminating },
  };
  if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec.hostname;
  ep.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata.labels?.[ZONE_LABEL];
  if (zone) ep.zone = zone;
  return ep;
}

/** setEndpointSliceLabels: the service's labels (reserved ones excepted) plus the controller's own. */
export function sliceLabels(svc: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {})) {
    if (k === SERVICE_NAME_LABEL || k === MANAGED_BY_LABEL || k === HEADLESS_LABEL) continue;
    out[k] = v;
  }
  if (!isServiceIPSet(svc)) out[HEADLESS_LABEL] = '';
  out[SERVICE_NAME_LABEL] = svc.metadata.name!;
  out[MANAGED_BY_LABEL] = CONTROLLER_NAME;
  return out;
}

/** The address types a service's slices carry (getAddressTypesForService). */
function addressTypes(svc: Obj): string[] {
  const fams: string[] = svc.spec?.ipFamilies ?? [];
  return fams.length ? [...new Set(fams)] : ['IPv4'];
}

const endpointKey = (ep: Endpoint) => `${ep.targetRef?.uid ?? ''}/${(ep.addresses ?? [])[0] ?? ''}`;
const portsKey = (ports: Port[] | null | undefined) => JSON.stringify([...(ports ?? [])]
  .map((p) => [p.name ?? '', p.port, p.protocol ?? 'TCP', p.appProtocol ?? null]).sort());

export interface SliceChanges { create: KObject[]; update: KObject[]; delete: KObject[] }

function newSlice(svc: Obj, addressType: string, ports: Port[] | null, placeholder = false): Obj {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      generateName: `${svc.metadata.name}-`,
      namespace: svc.metadata.namespace,
      labels: sliceLabels(svc),
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.metadata.name!, uid: svc.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    addressType,
    // What client-go sends for empty lists over protobuf arrives as null.
    endpoints: placeholder ? null : [],
    ports: ports && ports.length ? ports : null,
  };
}

const isPlaceholder = (s: Obj) => !(s.endpoints as any[] | null)?.length && !(s.ports as any[] | null)?.length;

/**
 * The reconciler (reconcileByAddressType/reconcileByPortMapping): what to
 * create, update and delete so the existing slices hold the desired
 * endpoints, touching as few slices as possible.
 */
export function reconcileSlices(svc: Obj, pods: Obj[], nodes: Map<string, Obj>, existing: Obj[], max = MAX_ENDPOINTS_PER_SLICE): SliceChanges {
  const changes: SliceChanges = { create: [], update: [], delete: [] };
  const types = addressTypes(svc);
  for (const s of existing) if (!types.includes(s.addressType as string)) changes.delete.push(s);
  const labels = sliceLabels(svc);
  for (const addressType of types) {
    const desiredByPorts = new Map<string, { ports: Port[]; endpoints: Map<string, Endpoint> }>();
    for (const pod of [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1))) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const node = nodes.get(pod.spec?.nodeName ?? '');
      // A pod whose node is gone is left out (unless not-ready addresses are published).
      if (!node && !svc.spec?.publishNotReadyAddresses) continue;
      const ports = endpointPorts(svc, pod);
      const key = portsKey(ports);
      let group = desiredByPorts.get(key);
      if (!group) desiredByPorts.set(key, group = { ports, endpoints: new Map() });
      const ep = podToEndpoint(pod, node, svc, addressType);
      if (ep.addresses.length) group.endpoints.set(endpointKey(ep), ep);
    }
    const mine = existing.filter((s) => s.addressType === addressType);
    const existingByPorts = new Map<string, Obj[]>();
    for (const s of mine) {
      const key = portsKey(s.ports as Port[] | null);
      if (!existingByPorts.has(key)) existingByPorts.set(key, []);
      existingByPorts.get(key)!.push(s);
    }
    const before = { create: changes.create.length, delete: changes.delete.length };
    for (const [key, desired] of desiredByPorts) {
      reconcileByPorts(svc, labels, addressType, desired.ports, desired.endpoints, existingByPorts.get(key) ?? [], max, changes);
    }
    for (const [key, slices] of existingByPorts) if (!desiredByPorts.has(key)) changes.delete.push(...slices);
    // No slices would remain: a placeholder stands in (an existing one is kept).
    const deletedHere = changes.delete.length - before.delete;
    if (mine.length === deletedHere && changes.create.length === before.create) {
      const dropped = changes.delete.slice(before.delete);
      const only = dropped.length === 1 ? dropped[0] : undefined;
      const keep = only && isPlaceholder(only) && isDeepStrictEqual(only.metadata.labels, labels) ? only : undefined;
      if (keep) changes.delete.splice(changes.delete.indexOf(keep), 1);
      else changes.create.push(newSlice(svc, addressType, null, true));
    }
  }
  return changes;
}

function reconcileByPorts(svc: Obj, labels: Record<string, string>, addressType: string, ports: Port[],
  desired: Map<string, Endpoint>, existing: Obj[], max: number, changes: SliceChanges): void {
  const toUpdate: Obj[] = [];
  const unchanged: Obj[] = [];
  for (const slice of existing) {
    const kept: Endpoint[] = [];
    let endpointUpdated = false;
    for (const ep of (slice.endpoints as Endpoint[] | null) ?? []) {
      const want = desired.get(endpointKey(ep));
      if (!want) continue;
      kept.push(want);
      if (!isDeepStrictEqual(want, ep)) endpointUpdated = true;
      desired.delete(endpointKey(ep));
    }
    const count = ((slice.endpoints as Endpoint[] | null) ?? []).length;
    const labelsChanged = !isDeepStrictEqual(slice.metadata.labels ?? {}, labels);
    if (endpointUpdated || kept.length !== count) {
      if (kept.length === 0) { changes.delete.push(slice); continue; }
      const next = structuredClone(slice);
      next.endpoints = kept;
      next.metadata.labels = labels;
      toUpdate.push(next);
    } else if (labelsChanged) {
      const next = structuredClone(slice);
      next.metadata.labels = labels;
      toUpdate.push(next);
    } else {
      unchanged.push(slice);
    }
  }
  const pop = (): Endpoint => { const [k, v] = desired.entries().next().value!; desired.delete(k); return v; };
  // Fill the slices being written anyway, fullest first.
  if (desired.size && toUpdate.length) {
    for (const s of [...toUpdate].sort((a, b) => (b.endpoints as any[]).length - (a.endpoints as any[]).length)) {
      while (desired.size && (s.endpoints as any[]).length < max) (s.endpoints as Endpoint[]).push(pop());
    }
  }
  while (desired.size) {
    let fill: Obj | undefined;
    // What is left may fit into one unchanged slice (the fullest that has room).
    if (desired.size < max && unchanged.length) {
      const fits = unchanged.filter((s) => max - ((s.endpoints as any[] | null) ?? []).length >= desired.size)
        .sort((a, b) => ((b.endpoints as any[] | null) ?? []).length - ((a.endpoints as any[] | null) ?? []).length);
      const fullest = fits[0];
      if (fullest) {
        fill = structuredClone(fullest);
        fill.endpoints = [...((fill.endpoints as Endpoint[] | null) ?? [])];
        unchanged.splice(unchanged.indexOf(fullest), 1);
        toUpdate.push(fill);
      }
    }
    if (!fill) {
      fill = newSlice(svc, addressType, ports);
      changes.create.push(fill);
    }
    while (desired.size && (fill.endpoints as any[]).length < max) (fill.endpoints as Endpoint[]).push(pop());
  }
  changes.update.push(...toUpdate);
}

export class EndpointSliceController {
  private readonly queue: RateLimitingQueue;
  private readonly cache: ServicePods;
  private readonly nodes = new Map<string, Obj>();
  private readonly tracker = new TriggerTimeTracker();
  private readonly sliceWrites: OwnWrites;
  /** Every slice write goes through sliceWrites, so syncs read back their own slice writes from the informer. */
  private readonly slices: ResourceClient<KObject>;

  constructor(private readonly ctx: ControllerContext, private readonly maxPerSlice = MAX_ENDPOINTS_PER_SLICE) {
    this.sliceWrites = new OwnWrites(ctx.client.resource(plain(endpointslices)), ctx.informers.forResource(endpointslices));
    this.slices = this.sliceWrites.resource;
    this.queue = newQueue(ctx);
    this.cache = new ServicePods(ctx, (key) => this.queue.add(key));
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(nodes, (type, node) => {
      const had = this.nodes.has(node.metadata.name!);
      const oldZone = this.nodes.get(node.metadata.name!)?.metadata.labels?.[ZONE_LABEL];
      if (type === 'DELETED') this.nodes.delete(node.metadata.name!); else this.nodes.set(node.metadata.name!, node);
      // Services with pods there change when the node comes, goes or changes zone.
      if (type !== 'MODIFIED' || !had || oldZone !== node.metadata.labels?.[ZONE_LABEL]) this.nodeChanged(node.metadata.name!);
    });
    await this.cache.start();
    await this.ctx.informers.inform(endpointslices, (_type, slice) => {
      // A managed slice changed by someone else is put right.
      const labels = slice.metadata.labels ?? {};
      if (labels[MANAGED_BY_LABEL] !== CONTROLLER_NAME || !labels[SERVICE_NAME_LABEL]) return;
      const key = `${slice.metadata.namespace}/${labels[SERVICE_NAME_LABEL]}`;
      if (this.cache.services.has(key)) this.queue.add(key);
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(5, (key) => this.sync(key), (key, e) => this.ctx.log(`endpointslices ${key}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private nodeChanged(node: string): void {
    for (const [ns, byName] of this.cache.pods) {
      for (const pod of byName.values()) if (pod.spec?.nodeName === node) this.cache.podChanged(ns, undefined, pod);
    }
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const svc = this.cache.services.get(key);
    // A deleted service's slices go with it (garbage collection through the owner reference).
    if (!svc) { this.tracker.delete(namespace, name); return; }
    if (svc.spec?.type === 'ExternalName' || !svc.spec?.selector) return;
    if (svc.metadata.deletionTimestamp) return;
    const pods = this.cache.selected(namespace, svc.spec.selector);
    const trigger = this.tracker.compute(svc, pods);
    const existing = (await this.sliceWrites.list(namespace)).filter((s) =>
      s.metadata.labels?.[SERVICE_NAME_LABEL] === name && s.metadata.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME);
    const changes = reconcileSlices(svc, pods, this.nodes, existing, this.maxPerSlice);
    const write = { fieldManager: MANAGER };
    const stamp = (s: KObject) => {
      const annotations = { ...(s.metadata.annotations ?? {}) };
      if (trigger !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = rfc3339Nano(new Date(trigger));
      else delete annotations[LAST_CHANGE_TRIGGER_TIME];
      if (Object.keys(annotations).length) s.metadata.annotations = annotations; else delete s.metadata.annotations;
      return s;
    };
    const tolerate = (e: unknown) => {
      if (e instanceof StatusError && (e.status.code === 404 || e.status.code === 409)) { this.queue.add(key); return; }
      if (e instanceof StatusError && e.status.code === 403) return; // terminating namespace
      throw e;
    };
    for (const s of changes.create) await this.slices.create(namespace, stamp(s), write).catch(tolerate);
    for (const s of changes.update) {
      const rv = s.metadata.resourceVersion;
      await this.slices.update(namespace, s.metadata.name!, () => stamp({ ...s, metadata: { ...s.metadata, resourceVersion: rv } }), write)
        .catch(tolerate);
    }
    for (const s of changes.delete) {
      await this.slices.delete(namespace, s.metadata.name!, { preconditions: { uid: s.metadata.uid }, ...write }).catch(tolerate);
    }
  }
}

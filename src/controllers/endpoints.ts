/**
 * The endpoints controller of kube-controller-manager
 * (pkg/controller/endpoint/endpoints_controller.go, v1.32), in-process:
 * every Service with a selector gets an Endpoints object of the same name
 * listing the selected pods that have an IP — Ready ones under `addresses`,
 * the others under `notReadyAddresses` (all under `addresses` when the
 * service publishes not-ready addresses) — with each service port resolved
 * per pod (named target ports through the pod's container ports).
 * Services without a selector and ExternalName services are left alone;
 * the `kubernetes` Service has no selector, so its endpoints stay the
 * apiserver's.
 */
import { isDeepStrictEqual } from 'node:util';
import { StatusError, isAlreadyExists } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { plain } from '../client/plain.js';
import { endpoints } from '../client/resources.js';
import type { ResourceClient } from '../client/types.js';
import { repackSubsets } from '../meta/endpoint-subsets.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { ServicePods } from './endpointslice/service-pods.js';
import { findPort, HEADLESS_LABEL, isPodReady, isServiceIPSet, LAST_CHANGE_TRIGGER_TIME, podIPOfFamily, serviceFamily, shouldPodBeInEndpoints, shouldSetHostname, TriggerTimeTracker } from './endpointslice/util.js';
import { rfc3339Nano } from '../apimachinery/time.js';

/** maxCapacity: the most addresses one Endpoints object holds. */
export const MAX_ENDPOINTS_CAPACITY = 1000;
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
const MANAGER = 'endpoint-controller';

type Obj = KObject & { spec?: any; status?: any };

/** The subsets of a service's Endpoints from its pods (syncService's loop, before RepackSubsets). */
export function endpointSubsets(svc: Obj, pods: Obj[]): any[] {
  const subsets: any[] = [];
  const publishNotReady = !!svc.spec?.publishNotReadyAddresses;
  const family = serviceFamily(svc);
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const ip = podIPOfFamily(pod, family);
    if (!ip) continue;
    const addr: Record<string, any> = { ip };
    if (shouldSetHostname(pod, svc)) addr.hostname = pod.spec.hostname;
    addr.nodeName = pod.spec?.nodeName ?? '';
    addr.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
    const ready = publishNotReady || isPodReady(pod);
    const add = (ports: any[]) => subsets.push(ready ? { addresses: [addr], ports } : { notReadyAddresses: [addr], ports });
    const svcPorts: any[] = svc.spec?.ports ?? [];
    if (svcPorts.length === 0) {
      // A headless service may have no ports.
      if (svc.spec?.clusterIP === 'None') add([]);
      continue;
    }
    for (const sp of svcPorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      const epp: Record<string, any> = { port, protocol: sp.protocol ?? 'TCP' };
      if (sp.name) epp.name = sp.name;
      if (sp.appProtocol != null) epp.appProtocol = sp.appProtocol;
      add([epp]);
    }
  }
  return repackSubsets(subsets).map((ss) => {
    // Go's Ports is non-nil ([]) for headless subsets without ports; the stored form omits it.
    if (ss.ports && !ss.ports.length) delete ss.ports;
    return ss;
  });
}

const countAddresses = (subsets: any[]) => subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);

/**
 * truncateEndpoints: over capacity, ready addresses are kept first, each
 * subset keeping its share (rounded up) of what fits.
 */
export function truncateSubsets(subsets: any[]): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) { totalReady += s.addresses?.length ?? 0; totalNotReady += s.notReadyAddresses?.length ?? 0; }
  if (totalReady + totalNotReady <= MAX_ENDPOINTS_CAPACITY) return false;
  const truncateReady = totalReady > MAX_ENDPOINTS_CAPACITY;
  const max = truncateReady ? MAX_ENDPOINTS_CAPACITY : MAX_ENDPOINTS_CAPACITY - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = max;
  for (const s of subsets) {
    const inSubset = truncateReady ? (s.addresses?.length ?? 0) : (s.notReadyAddresses?.length ?? 0);
    const toBeAdded = Math.min(Math.ceil((inSubset / numTotal) * max), canBeAdded);
    if (truncateReady) {
      if (s.addresses) s.addresses = s.addresses.slice(0, toBeAdded);
      delete s.notReadyAddresses;
      canBeAdded -= s.addresses?.length ?? 0;
    } else {
      if (s.notReadyAddresses) s.notReadyAddresses = s.notReadyAddresses.slice(0, toBeAdded);
      canBeAdded -= s.notReadyAddresses?.length ?? 0;
    }
  }
  return true;
}

function withoutLabel(labels: Record<string, string> | undefined, key: string): Record<string, string> {
  const out = { ...(labels ?? {}) };
  delete out[key];
  return out;
}

export class EndpointsController {
  private readonly queue: RateLimitingQueue;
  private readonly cache: ServicePods;
  private readonly tracker = new TriggerTimeTracker();
  private readonly endpoints: ResourceClient<KObject>;

  constructor(private readonly ctx: ControllerContext) {
    this.endpoints = ctx.client.resource(plain(endpoints));
    this.queue = newQueue(ctx);
    this.cache = new ServicePods(ctx, (key) => this.queue.add(key));
  }

  async start(): Promise<void> {
    await this.cache.start();
    // checkLeftoverEndpoints: endpoints whose service is gone are deleted once at start.
    for (const ep of (await this.endpoints.list('')).items) {
      if (ep.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader']) continue;
      this.queue.add(`${ep.metadata.namespace}/${ep.metadata.name}`);
    }
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(5, (key) => this.sync(key), (key, e) => this.ctx.log(`endpoints ${key}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const write = { fieldManager: MANAGER };
    const svc = this.cache.services.get(key);
    if (!svc) {
      this.tracker.delete(namespace, name);
      await this.endpoints.delete(namespace, name, write).catch((e) => {
        if (!(e instanceof StatusError && e.status.code === 404)) throw e;
      });
      return;
    }
    if (svc.spec?.type === 'ExternalName') return;
    const selector = svc.spec?.selector;
    if (!selector) return;
    const pods = this.cache.selected(namespace, selector);
    const trigger = this.tracker.compute(svc, pods);
    const subsets = endpointSubsets(svc, pods);
    const current = await this.endpoints.find(namespace, name);
    const labels = svc.metadata.labels ?? {};
    if (current) {
      const cur = current as Obj;
      const curSubsets = (cur.subsets as any[] | undefined) ?? [];
      const capacityOK = countAddresses(curSubsets) <= MAX_ENDPOINTS_CAPACITY && !cur.metadata.annotations?.[OVER_CAPACITY_ANNOTATION];
      if (isDeepStrictEqual(curSubsets, subsets) && isDeepStrictEqual(withoutLabel(cur.metadata.labels, HEADLESS_LABEL), labels) &&
        capacityOK) return;
    }
    const build = (base: KObject | undefined): KObject => {
      const next: Obj = base ? structuredClone(base) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } };
      const annotations: Record<string, string> = { ...(next.metadata.annotations ?? {}) };
      if (trigger !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = rfc3339Nano(new Date(trigger));
      else delete annotations[LAST_CHANGE_TRIGGER_TIME];
      const out = structuredClone(subsets);
      if (truncateSubsets(out)) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
      else delete annotations[OVER_CAPACITY_ANNOTATION];
      if (Object.keys(annotations).length) next.metadata.annotations = annotations; else delete next.metadata.annotations;
      const nextLabels = isServiceIPSet(svc) ? withoutLabel(labels, HEADLESS_LABEL) : { ...labels, [HEADLESS_LABEL]: '' };
      if (Object.keys(nextLabels).length) next.metadata.labels = nextLabels; else delete next.metadata.labels;
      if (out.length) next.subsets = out; else delete next.subsets;
      return next;
    };
    if (!current) {
      try {
        await this.endpoints.create(namespace, build(undefined), write);
      } catch (e) {
        // A terminating namespace refuses new content: nothing to retry.
        if (e instanceof StatusError && e.status.code === 403) return;
        if (isAlreadyExists(e)) { this.queue.add(key); return; }
        throw e;
      }
      return;
    }
    await this.endpoints.update(namespace, name, (cur) => build(cur), write).catch((e) => {
      if (e instanceof StatusError && e.status.code === 404) { this.queue.add(key); return; }
      throw e;
    });
  }
}

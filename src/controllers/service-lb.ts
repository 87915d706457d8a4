/**
 * What the cloud provider's service controller
 * (k8s.io/cloud-provider/controllers/service, v1.32) does for a
 * LoadBalancer Service, with a local address pool in place of a cloud:
 * the service gets the `service.kubernetes.io/load-balancer-cleanup`
 * finalizer, an ingress IP in status.loadBalancer (spec.loadBalancerIP when
 * it is in the pool and free, else the first free address), and the
 * EnsuringLoadBalancer / EnsuredLoadBalancer events; when it stops being a
 * LoadBalancer or is deleted, DeletingLoadBalancer / DeletedLoadBalancer
 * and the finalizer goes. Services with a spec.loadBalancerClass belong to
 * another implementation and are left alone, as upstream does.
 */
import { StatusError } from '../apimachinery/errors.js';
import type { EventRecorder } from '../events/recorder.js';
import { referenceTo } from '../events/recorder.js';
import type { KObject } from '../apimachinery/object.js';
import { plain } from '../client/plain.js';
import { services } from '../client/resources.js';
import type { ResourceClient, WriteOptions } from '../client/types.js';
import { LBPool } from '../network/lb-pool.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { SMP } from './controller-utils.js';

export const LB_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
export const SERVICE_CONTROLLER = 'service-controller';

type Svc = KObject & { spec?: any; status?: any };

const wantsLB = (s: Svc) => s.spec?.type === 'LoadBalancer' && !s.spec?.loadBalancerClass && !s.metadata.deletionTimestamp;
const ingressIPs = (s: Svc): string[] => (s.status?.loadBalancer?.ingress ?? []).map((i: any) => i?.ip).filter(Boolean);

export class ServiceLBController {
  private readonly queue: RateLimitingQueue;
  private readonly services = new Map<string, Svc>();
  private readonly serviceClient: ResourceClient<KObject>;
  /** Addresses chosen but maybe not yet seen in the cache, so two syncs never pick the same one. */
  private readonly reserved = new Map<string, string>();
  /** Services waiting for an address: retried when one is released. */
  private readonly waiting = new Set<string>();

  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext, private readonly pool: LBPool) {
    this.events = ctx.events;
    this.serviceClient = ctx.client.resource(plain(services));
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(services, (type, svc) => {
      const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
      if (type === 'DELETED') this.services.delete(key); else this.services.set(key, svc);
      this.queue.add(key);
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(1, (key) => this.sync(key), (key, e) => this.ctx.log(`service load balancer ${key}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** Addresses held by other services (their ingress IPs). */
  private used(except: string): Set<string> {
    const out = new Set<string>();
    for (const [key, s] of this.services) if (key !== except) for (const ip of ingressIPs(s)) out.add(ip);
    for (const [key, ip] of this.reserved) if (key !== except) out.add(ip);
    return out;
  }

  private async sync(key: string): Promise<void> {
    const svc = this.services.get(key);
    if (!svc) { this.release(key); return; }
    const ns = svc.metadata.namespace!;
    const name = svc.metadata.name!;
    const write: WriteOptions = { fieldManager: SERVICE_CONTROLLER };
    const hasFinalizer = (svc.metadata.finalizers ?? []).includes(LB_CLEANUP_FINALIZER);
    if (!wantsLB(svc)) {
      this.release(key);
      if (!hasFinalizer) return;
      void this.events.record(referenceTo(svc), 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer', SERVICE_CONTROLLER);
      if (ingressIPs(svc).length && !svc.metadata.deletionTimestamp && svc.spec?.type === 'LoadBalancer') {
        await this.writeIngress(svc, [], write);
      }
      await this.serviceClient.patch(ns, name, SMP, { metadata: { '$deleteFromPrimitiveList/finalizers': [LB_CLEANUP_FINALIZER] } }, write)
        .catch(ignoreGone);
      void this.events.record(referenceTo(svc), 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer', SERVICE_CONTROLLER);
      return;
    }
    const current = ingressIPs(svc);
    const used = this.used(key);
    const requested: string | undefined = svc.spec?.loadBalancerIP || undefined;
    let ip: string | undefined;
    const only = current.length === 1 ? current[0] : undefined;
    if (only !== undefined && this.pool.contains(only) && !used.has(only) && (!requested || requested === only)) ip = only;
    if (hasFinalizer && ip) return;
    void this.events.record(referenceTo(svc), 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer', SERVICE_CONTROLLER);
    if (!hasFinalizer) {
      // The cloud provider's service controller adds and removes its finalizer with servicehelper.PatchService's patches.
      await this.serviceClient.patch(ns, name, SMP, { metadata: { finalizers: [LB_CLEANUP_FINALIZER] } }, write).catch(ignoreGone);
    }
    if (!ip) {
      let why: string | undefined;
      if (requested) {
        if (!this.pool.contains(requested)) why = `requested IP ${requested} is not in the load balancer pool ${this.pool.text}`;
        else if (used.has(requested)) why = `requested IP ${requested} is already in use`;
        else ip = requested;
      } else {
        ip = this.pool.firstFree(used);
        if (!ip) why = `no available IPs in the load balancer pool ${this.pool.text}`;
      }
      if (why) {
        void this.events.record(referenceTo(svc), 'Warning', 'SyncLoadBalancerFailed',
          `Error syncing load balancer: failed to ensure load balancer: ${why}`, SERVICE_CONTROLLER);
        this.waiting.add(key);
        return;
      }
    }
    this.waiting.delete(key);
    this.reserved.set(key, ip!);
    await this.writeIngress(svc, [ip!], write);
    void this.events.record(referenceTo(svc), 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer', SERVICE_CONTROLLER);
  }

  private release(key: string): void {
    this.waiting.delete(key);
    if (!this.reserved.delete(key)) return;
    for (const k of this.waiting) this.queue.add(k);
  }

  private async writeIngress(svc: Svc, ips: string[], write: WriteOptions): Promise<void> {
    await this.serviceClient.updateStatus(svc.metadata.namespace!, svc.metadata.name!, (cur) => {
      const lb = ips.length ? { ingress: ips.map((ip) => ({ ip, ipMode: 'VIP' })) } : {};
      (cur as Svc).status = { ...((cur as Svc).status ?? {}), loadBalancer: lb };
      return cur;
    }, write).catch(ignoreGone);
  }
}

function ignoreGone(e: unknown): void {
  if (!(e instanceof StatusError && e.status.code === 404)) throw e;
}

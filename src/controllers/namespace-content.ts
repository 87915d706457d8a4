import { StatusError, isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import type { ObjectCache } from '../client/object-cache.js';
import type { KObject } from '../apimachinery/object.js';
import { controllerServiceAccount } from '../client/identities.js';
import { plain } from '../client/plain.js';
import { configmaps, namespaces, serviceaccounts } from '../client/resources.js';
import type { ResourceClient } from '../client/types.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';

const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const ROOT_CA_DESCRIPTION = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';
const MANAGER = 'kube-controller-manager';


/**
 * The namespace controllers of kube-controller-manager, in one place:
 * every active namespace gets its `default` ServiceAccount and the
 * `kube-root-ca.crt` ConfigMap; a terminating namespace has its content
 * deleted, then its `kubernetes` finalizer removed, then goes away.
 *
 * Each part acts as its upstream controller's service account: the content
 * deletion as the context's (namespace-controller), the ServiceAccount as
 * service-account-controller, the ConfigMap as root-ca-cert-publisher.
 */
export class NamespaceController {
  private readonly queue: RateLimitingQueue;
  private readonly namespaces: ResourceClient<KObject>;
  private readonly serviceAccounts: ResourceClient<KObject>;
  private readonly configMaps: ResourceClient<KObject>;
  /** The informers' caches of ServiceAccounts and ConfigMaps, by resource. */
  private readonly caches = new Map<string, ObjectCache>();

  constructor(private readonly ctx: ControllerContext, private readonly caCert: string) {
    const as = (serviceAccount: string) => ctx.client.as(controllerServiceAccount(serviceAccount), ctx.client.fieldManager);
    this.namespaces = ctx.client.resource(plain(namespaces));
    this.serviceAccounts = as('service-account-controller').resource(plain(serviceaccounts));
    this.configMaps = as('root-ca-cert-publisher').resource(plain(configmaps));
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(namespaces, (_t, obj) => this.queue.add(obj.metadata.name!));
    // A deleted ServiceAccount or ConfigMap is recreated, and a changed kube-root-ca.crt put back, as upstream does.
    for (const ref of [serviceaccounts, configmaps]) {
      const informer = await this.ctx.informers.inform(ref, (type, obj) => {
        if (type === 'DELETED' || (ref === configmaps && type === 'MODIFIED' && obj.metadata.name === ROOT_CA_CONFIGMAP)) {
          this.queue.add(obj.metadata.namespace!);
        }
      });
      this.caches.set(ref.resource, informer.cache);
    }
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(10, (ns) => this.sync(ns), (ns, e) => this.ctx.log(`namespace ${ns}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async sync(name: string): Promise<void> {
    let ns: KObject;
    try { ns = await this.namespaces.get('', name); } catch (e) { if (isNotFound(e)) return; throw e; }
    if (ns.metadata.deletionTimestamp) return this.finalize(ns);
    await this.ensure(this.serviceAccounts, name, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    await this.ensure(this.configMaps, name, ROOT_CA_CONFIGMAP, {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
      data: { 'ca.crt': this.caCert },
    });
    await this.reconcileRootCA(name);
  }

  /** rootcacertpublisher syncNamespace: a kube-root-ca.crt whose data or description changed is put back. */
  private async reconcileRootCA(namespace: string): Promise<void> {
    const cm = this.caches.get(configmaps.resource)?.get(namespace, ROOT_CA_CONFIGMAP) as (KObject & { data?: Record<string, string> }) | undefined;
    if (!cm) return;
    const data = cm.data ?? {};
    const same = Object.keys(data).length === 1 && data['ca.crt'] === this.caCert;
    if (same && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return;
    try {
      await this.configMaps.update(namespace, ROOT_CA_CONFIGMAP, (cur) => ({
        ...cur, data: { 'ca.crt': this.caCert },
        metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
      }), { fieldManager: MANAGER });
    } catch (e) {
      // Deleted meanwhile: the informer's event queues the namespace again.
      if (!isNotFound(e)) throw e;
    }
  }

  /**
   * Creates the object unless the shared informer's cache has it: upstream's controllers read
   * through informers (the controller manager's own identity) and only write as their service
   * accounts, whose roles allow no more (service-account-controller may only create).
   */
  private async ensure(resource: ResourceClient<KObject>, namespace: string, name: string, obj: KObject): Promise<void> {
    if (this.caches.get(resource.ref.resource)?.get(namespace, name)) return;
    try {
      await resource.create(namespace, obj, { fieldManager: MANAGER });
    } catch (e) {
      if (!isAlreadyExists(e) && !(e instanceof StatusError && e.status.code === 403)) throw e;
    }
  }

  /** Deletes everything in the namespace; when nothing is left, removes the finalizer and the namespace. */
  private async finalize(ns: KObject): Promise<void> {
    const name = ns.metadata.name!;
    let remaining = 0;
    // Discovery: every namespaced resource once, in its preferred version.
    for (const ref of await this.ctx.client.resources()) {
      if (!ref.namespaced) continue;
      const resource = this.ctx.client.resource(ref);
      const { items } = await resource.list(name);
      for (const o of items) {
        remaining++;
        if (o.metadata.deletionTimestamp) continue;
        try {
          await resource.delete(name, o.metadata.name!, { propagationPolicy: 'Background', fieldManager: MANAGER });
        } catch (e) { if (!isNotFound(e)) throw e; }
      }
    }
    if (remaining > 0) {
      // Some content is still going away (graceful deletion, finalizers): look again shortly.
      this.queue.addAfter(name, 200);
      return;
    }
    try {
      await this.namespaces.update('', name, (cur) => {
        const spec = (cur.spec ?? {}) as { finalizers?: string[] };
        cur.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') };
        return cur;
      }, { subresource: 'finalize', fieldManager: MANAGER });
      await this.namespaces.delete('', name, { fieldManager: MANAGER });
    } catch (e) { if (!isNotFound(e)) throw e; }
  }
}

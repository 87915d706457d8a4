import { StatusError, isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import type { Store } from '../registry/store.js';
import type { KObject } from '../apimachinery/object.js';
import { controllerContext } from './context.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';

const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';


/**
 * The namespace controllers of kube-controller-manager, in one place:
 * every active namespace gets its `default` ServiceAccount and the
 * `kube-root-ca.crt` ConfigMap; a terminating namespace has its content
 * deleted, then its `kubernetes` finalizer removed, then goes away.
 */
export class NamespaceController {
  private readonly queue: RateLimitingQueue;

  private readonly store: Store;
  private readonly log: (m: string) => void;

  constructor(private readonly ctx: ControllerContext, private readonly caCert: string) {
    this.store = ctx.store;
    const log = this.log = ctx.log;
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    const def = this.store.find('', 'v1', 'namespaces')!;
    await this.ctx.informers.inform(def, (_t, obj) => this.queue.add(obj.metadata.name!));
    // A deleted ServiceAccount or ConfigMap is recreated, as upstream does.
    for (const resource of ['serviceaccounts', 'configmaps']) {
      await this.ctx.informers.inform(this.store.find('', 'v1', resource)!, (type, obj) => {
        if (type === 'DELETED') this.queue.add(obj.metadata.namespace!);
      });
    }
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(10, (ns) => this.sync(ns), (ns, e) => this.ctx.log(`namespace ${ns}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async sync(name: string): Promise<void> {
    const nsDef = this.store.find('', 'v1', 'namespaces')!;
    let ns: KObject;
    try { ns = await this.store.read(nsDef, '', name); } catch (e) { if (isNotFound(e)) return; throw e; }
    if (ns.metadata.deletionTimestamp) return this.finalize(ns);
    await this.ensure('serviceaccounts', name, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    await this.ensure('configmaps', name, ROOT_CA_CONFIGMAP, {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIGMAP, annotations: { 'kubernetes.io/description': 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.' } },
      data: { 'ca.crt': this.caCert },
    });
  }

  private async ensure(resource: string, namespace: string, name: string, obj: KObject): Promise<void> {
    const def = this.store.find('', 'v1', resource)!;
    if (await this.store.get('', resource, namespace, name)) return;
    try {
      await this.store.create(def, namespace, obj, { ...controllerContext('kube-controller-manager'), namespace });
    } catch (e) {
      if (!isAlreadyExists(e) && !(e instanceof StatusError && e.status.code === 403)) throw e;
    }
  }

  /** Deletes everything in the namespace; when nothing is left, removes the finalizer and the namespace. */
  private async finalize(ns: KObject): Promise<void> {
    const name = ns.metadata.name!;
    const ctx = controllerContext('kube-controller-manager');
    const seen = new Set<string>();
    let remaining = 0;
    for (const def of this.store.defs) {
      if (!def.namespaced || seen.has(def.storagePrefix)) continue;
      seen.add(def.storagePrefix);
      const { items } = await this.store.list(def, name);
      for (const o of items) {
        remaining++;
        if (o.metadata.deletionTimestamp) continue;
        try {
          await this.store.delete(def, name, o.metadata.name!, { propagationPolicy: 'Background', gracePeriodSeconds: undefined }, ctx);
        } catch (e) { if (!isNotFound(e)) throw e; }
      }
    }
    if (remaining > 0) {
      // Some content is still going away (graceful deletion, finalizers): look again shortly.
      this.queue.addAfter(name, 200);
      return;
    }
    const nsDef = this.store.find('', 'v1', 'namespaces')!;
    try {
      await this.store.update(nsDef, '', name, (cur: any) => {
        cur.spec = { ...cur.spec, finalizers: (cur.spec?.finalizers ?? []).filter((f: string) => f !== 'kubernetes') };
        return cur;
      }, ctx, 'finalize');
      await this.store.delete(nsDef, '', name, {}, ctx);
    } catch (e) { if (!isNotFound(e)) throw e; }
  }
}

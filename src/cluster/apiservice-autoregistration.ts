/**
 * kube-apiserver's APIService autoregistration (kube-aggregator v0.32 autoregister_controller.go,
 * with kube-apiserver's apiServicesToRegister and the apiextensions crdregistration controller):
 * a local APIService for each group version the server serves, synced once at start (label
 * `kube-aggregator.kubernetes.io/automanaged: onstart`), and one for each served version of every
 * CustomResourceDefinition, kept continuously (`"true"`) and deleted with it. APIServices without
 * the label are the user's and never touched. Writes through the API server's loopback client.
 */
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { isAlreadyExists, isConflict, isNotFound } from '../apimachinery/errors.js';
import { AUTO_REGISTER_MANAGED_LABEL, apiServiceName, type APIService } from '../apimachinery/apiservice.js';
import { builtinAPIServicePriority, CRD_API_SERVICE_PRIORITY, type APIServicePriority } from '../apimachinery/apiservice-priorities.js';
import type { KObject } from '../apimachinery/object.js';
import { InformerFactory } from '../client/informer-factory.js';
import { apiservices, customresourcedefinitions } from '../client/resources.js';
import type { SharedInformer } from '../client/shared-informer.js';
import type { Client, ResourceClient } from '../client/types.js';
import { RateLimitingQueue } from '../client/work-queue.js';
import { isDeepStrictEqual } from 'node:util';

type SyncType = 'onstart' | 'true';

function desiredAPIService(group: string, version: string, priority: APIServicePriority, sync: SyncType): APIService {
  return {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
    metadata: { name: apiServiceName(group, version), labels: { [AUTO_REGISTER_MANAGED_LABEL]: sync } },
    spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

const managedType = (svc: APIService | undefined): string | undefined => svc?.metadata?.labels?.[AUTO_REGISTER_MANAGED_LABEL];

export class APIServiceAutoRegistration {
  private readonly informers: InformerFactory;
  private readonly client: ResourceClient<APIService>;
  private readonly queue = new RateLimitingQueue();
  private readonly toSync = new Map<string, APIService>();
  private readonly syncedSuccessfully = new Set<string>();
  private readonly atStart = new Set<string>();
  /** The APIService names each CRD asked for, so a CRD's change or removal drops the ones it no longer serves. */
  private readonly byCRD = new Map<string, string[]>();
  private apiServiceInformer?: SharedInformer;

  /** `served`: the group versions this server serves itself (apiServicesToRegister's ListedPaths). */
  constructor(client: Client, served: { group: string; version: string }[], private readonly log: (msg: string) => void) {
    this.informers = new InformerFactory(client);
    this.client = client.resource(apiservices);
    for (const { group, version } of served) {
      const priority = builtinAPIServicePriority(apiServiceName(group, version));
      // makeAPIService: a group version without priorities is not registered.
      if (priority) this.addToSync(desiredAPIService(group, version, priority, 'onstart'));
    }
  }

  /** Starts the informers and syncs every APIService once before resolving (the autoregister-completion readiness check). */
  async start(): Promise<void> {
    this.apiServiceInformer = await this.informers.inform(apiservices, (_type, obj) => this.queue.add(obj.metadata.name!));
    for (const svc of this.apiServiceInformer.cache.list('')) this.atStart.add(svc.metadata.name!);
    const crds = await this.informers.inform(customresourcedefinitions, (type, obj) => this.crdChanged(type === 'DELETED' ? undefined : obj, obj.metadata.name!));
    for (const crd of crds.cache.list('')) this.crdChanged(crd, crd.metadata.name!);
    await Promise.all([...this.toSync.keys()].map((name) => this.checkAPIService(name)
      .catch((e: unknown) => this.log(`autoregister: ${name}: ${(e as Error).message}`))));
    this.queue.run(1, (name) => this.checkAPIService(name), (name, e) => this.log(`autoregister: ${name}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
    this.informers.stop();
  }

  /** crdregistration_controller.go: an APIService for each served version of the CRD, none for the others. */
  private crdChanged(obj: KObject | undefined, crdName: string): void {
    const crd = obj as CustomResourceDefinition | undefined;
    const wanted = (crd?.spec.versions ?? []).filter((v) => v.served).map((v) => apiServiceName(crd!.spec.group, v.name));
    for (const name of this.byCRD.get(crdName) ?? []) {
      if (!wanted.includes(name)) { this.toSync.delete(name); this.queue.add(name); }
    }
    for (const v of crd?.spec.versions ?? []) {
      if (v.served) this.addToSync(desiredAPIService(crd!.spec.group, v.name, CRD_API_SERVICE_PRIORITY, 'true'));
    }
    if (wanted.length) this.byCRD.set(crdName, wanted); else this.byCRD.delete(crdName);
  }

  private addToSync(svc: APIService): void {
    this.toSync.set(svc.metadata!.name!, svc);
    this.queue.add(svc.metadata!.name!);
  }

  /** checkAPIService: the table of autoregister_controller.go, case by case. */
  async checkAPIService(name: string): Promise<void> {
    const desired = this.toSync.get(name);
    const current = this.apiServiceInformer?.cache.get('', name) as APIService | undefined;
    const hasSynced = this.syncedSuccessfully.has(name);
    await this.reconcile(name, desired, current, hasSynced);
    this.syncedSuccessfully.add(name);
  }

  private async reconcile(name: string, desired: APIService | undefined, current: APIService | undefined, hasSynced: boolean): Promise<void> {
    if (!current && !desired) return;
    if (managedType(desired) === 'onstart' && hasSynced) return;
    if (!current) {
      try {
        await this.client.create('', structuredClone(desired!));
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      return;
    }
    const managed = managedType(current);
    if (managed !== 'onstart' && managed !== 'true') return;
    if (managed === 'onstart' && (!this.atStart.has(name) || hasSynced)) return;
    try {
      if (!desired) {
        await this.client.delete('', name, { preconditions: { uid: current.metadata!.uid! } });
        return;
      }
      if (isDeepStrictEqual(current.spec, desired.spec)) return;
      await this.client.update('', name, (cur) => ({ ...cur, spec: structuredClone(desired.spec) }));
    } catch (e) {
      // Deleted or changed in the meantime: the informer's event syncs it again.
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}

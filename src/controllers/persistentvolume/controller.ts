/**
 * kube-controller-manager's persistentvolume-binder
 * (pkg/controller/volume/persistentvolume/pv_controller.go), with the
 * pvc-protection and pv-protection controllers' finalizer removal
 * (pkg/controller/volume/pvcprotection, pvprotection):
 *
 * - an unbound claim binds to its best matching volume (binding.ts), or,
 *   when its class has a provisioner, is annotated for that provisioner
 *   (for WaitForFirstConsumer classes only once the scheduler has set
 *   `volume.kubernetes.io/selected-node`) with the `ExternalProvisioning`
 *   event; a delayed claim nobody schedules gets `WaitForFirstConsumer`;
 * - a volume whose claim is gone becomes Released; reclaiming a Delete
 *   volume is left to its external provisioner (provisioner.ts), as
 *   upstream leaves volumes of plugins it does not have;
 * - a deleted claim keeps `kubernetes.io/pvc-protection` while a scheduled,
 *   non-terminated pod uses it; a deleted volume keeps
 *   `kubernetes.io/pv-protection` while it is Bound.
 */
import { StatusError } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { KObject } from '../../apimachinery/object.js';
import { controllerServiceAccount } from '../../client/identities.js';
import { plain } from '../../client/plain.js';
import { persistentvolumeclaims, persistentvolumes, pods, storageclasses } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import { podClaimNames } from '../../meta/pod-volumes.js';
import type { SharedInformer } from '../../client/shared-informer.js';

import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, bindClaimToVolume,
  bindVolumeToClaim, boundClaimStatus, claimClass, findBestMatch, isVolumeBoundToClaim, volumeSatisfyError,
} from '../../component-helpers/pv-helpers.js';

export const PV_CONTROLLER = 'persistentvolume-controller';
const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const PV_PROTECTION = 'kubernetes.io/pv-protection';

type Obj = any;
const claimKey = (o: Obj) => `${o.metadata.namespace}/${o.metadata.name}`;

export class PersistentVolumeController {
  readonly claims = new Map<string, Obj>();
  readonly volumes = new Map<string, Obj>();
  readonly classes = new Map<string, Obj>();
  /** Pods (the shared informer's cache, by namespace): which claims scheduled pods use, and which unscheduled pods wait for a delayed claim. */
  private pods?: SharedInformer;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly loop: RateLimitingQueue;
  private readonly pvcClient: ResourceClient<KObject>;
  private readonly pvClient: ResourceClient<KObject>;
  /** The finalizer removals, as upstream's pvc-protection and pv-protection controllers' service accounts. */
  private readonly pvcProtection: ResourceClient<KObject>;
  private readonly pvProtection: ResourceClient<KObject>;
  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.events = ctx.events;
    const as = (serviceAccount: string) => ctx.client.as(controllerServiceAccount(serviceAccount), ctx.client.fieldManager);
    this.pvcClient = ctx.client.resource(plain(persistentvolumeclaims));
    this.pvClient = ctx.client.resource(plain(persistentvolumes));
    this.pvcProtection = as('pvc-protection-controller').resource(plain(persistentvolumeclaims));
    this.pvProtection = as('pv-protection-controller').resource(plain(persistentvolumes));
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(storageclasses, (type, o) => {
      if (type === 'DELETED') this.classes.delete(o.metadata.name!); else this.classes.set(o.metadata.name!, o);
      for (const c of this.claims.values()) if (!c.spec?.volumeName && claimClass(c) === o.metadata.name) this.loop.add(`c:${claimKey(c)}`);
    });
    // Pods from the shared informer (upstream's factory): no cache of its own of thousands of pods.
    const podInformer = this.pods = this.ctx.informers.forResource(pods);
    this.unsubscribe.push(podInformer.onEvent((type, o, before) => {
      // A claim being deleted may lose its last user; an unbound delayed claim may gain or lose a waiting pod.
      for (const p of [before, type === 'DELETED' ? undefined : o]) {
        if (p) for (const n of podClaimNames(p)) this.loop.add(`c:${p.metadata.namespace}/${n}`);
      }
    }));
    await podInformer.start();
    await this.ctx.informers.inform(persistentvolumes, (type, o) => {
      if (type === 'DELETED') this.volumes.delete(o.metadata.name!); else { this.volumes.set(o.metadata.name!, o); this.loop.add(`v:${o.metadata.name}`); }
      const ref = (o as Obj).spec?.claimRef;
      if (ref) this.loop.add(`c:${ref.namespace}/${ref.name}`);
      // A new or freed volume may match a waiting claim.
      for (const c of this.claims.values()) if (!c.spec?.volumeName) this.loop.add(`c:${claimKey(c)}`);
    });
    await this.ctx.informers.inform(persistentvolumeclaims, (type, o) => {
      const k = claimKey(o);
      if (type === 'DELETED') this.claims.delete(k); else { this.claims.set(k, o); this.loop.add(`c:${k}`); }
      const vn = (o as Obj).spec?.volumeName;
      if (vn) this.loop.add(`v:${vn}`);
      for (const v of this.volumes.values()) {
        const ref = v.spec?.claimRef;
        if (ref && ref.namespace === o.metadata.namespace && ref.name === o.metadata.name) this.loop.add(`v:${v.metadata.name}`);
      }
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(1, (k) => this.sync(k), (k, e) => this.ctx.log(`${PV_CONTROLLER}: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.loop.shutDown();
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** The pods of a namespace, as the informer has them. */
  private podsIn(namespace: string): Obj[] { return this.pods?.cache.list(namespace) ?? []; }

  private async sync(key: string): Promise<void> {
    if (key.startsWith('c:')) await this.syncClaim(key.slice(2));
    else await this.syncVolume(key.slice(2));
  }

  private event(obj: Obj, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.events.emit(referenceTo(obj as KObject), type, reason, reason, message, PV_CONTROLLER);
  }

  /** Writes a claim or volume through `mutate` on its current version; a missing object is not an error (a later sync sees it gone). */
  private async write(resource: ResourceClient<KObject>, ns: string, name: string, mutate: (cur: Obj) => Obj, sub?: string): Promise<Obj> {
    try {
      return await resource.update(ns, name, (cur) => mutate(cur) ?? cur, { subresource: sub, fieldManager: PV_CONTROLLER });
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 404) return undefined;
      throw e;
    }
  }

  async syncClaim(key: string): Promise<void> {
    const claim = this.claims.get(key);
    if (!claim) return;
    if (claim.metadata.deletionTimestamp) { await this.releaseClaimFinalizer(claim); return; }
    if (claim.metadata.annotations?.[ANN_BIND_COMPLETED] === undefined) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
  }

  /** pvc-protection: the finalizer goes once no scheduled pod that has not terminated uses the claim. */
  private async releaseClaimFinalizer(claim: Obj): Promise<void> {
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION)) return;
    const inUse = this.podsIn(claim.metadata.namespace).some((p) => p.spec?.nodeName &&
      p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && podClaimNames(p).includes(claim.metadata.name));
    if (inUse) return;
    await this.write(this.pvcProtection, claim.metadata.namespace, claim.metadata.name, (cur) => {
      if (cur.metadata.uid !== claim.metadata.uid) return undefined;
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f: string) => f !== PVC_PROTECTION);
      return cur;
    });
  }

  private async setClaimPending(claim: Obj): Promise<void> {
    if (claim.status?.phase === 'Pending') return;
    await this.write(this.pvcClient, claim.metadata.namespace, claim.metadata.name, (cur) => {
      if (cur.status?.phase === 'Pending') return undefined;
      cur.status = { ...(cur.status ?? {}), phase: 'Pending' };
      return cur;
    }, 'status');
  }

  private async setClaimLost(claim: Obj, reason: string, message: string): Promise<void> {
    if (claim.status?.phase === 'Lost') return;
    await this.write(this.pvcClient, claim.metadata.namespace, claim.metadata.name, (cur) => {
      cur.status = { ...(cur.status ?? {}), phase: 'Lost' };
      return cur;
    }, 'status');
    this.event(claim, 'Warning', reason, message);
  }

  private async syncUnboundClaim(claim: Obj): Promise<void> {
    const className = claimClass(claim);
    const cls = className ? this.classes.get(className) : undefined;
    const delayBinding = cls?.volumeBindingMode === 'WaitForFirstConsumer';
    if (!claim.spec?.volumeName) {
      const pv = findBestMatch(claim, this.volumes.values(), delayBinding);
      if (pv) { await this.bind(pv, claim); return; }
      if (delayBinding && !claim.metadata.annotations?.[ANN_SELECTED_NODE]) {
        this.emitDelayBindingEvent(claim);
      } else if (className) {
        await this.provisionClaim(claim, className, cls);
        return;
      } else {
        this.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      }
      await this.setClaimPending(claim);
      return;
    }
    // The user named a volume.
    const pv = this.volumes.get(claim.spec.volumeName);
    if (!pv) { await this.setClaimPending(claim); return; }
    if (!pv.spec?.claimRef || isVolumeBoundToClaim(pv, claim)) {
      const mismatch = pv.spec?.claimRef ? undefined : volumeSatisfyError(pv, claim);
      if (mismatch) {
        this.event(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${pv.metadata.name}": ${mismatch}`);
        await this.setClaimPending(claim);
        return;
      }
      await this.bind(pv, claim);
      return;
    }
    this.event(claim, 'Warning', 'FailedBinding', `volume "${pv.metadata.name}" already bound to a different claim.`);
    await this.setClaimPending(claim);
  }

  /** emitEventForUnboundDelayBindingClaim: which unscheduled pods wait for this claim, if any. */
  private emitDelayBindingEvent(claim: Obj): void {
    const names = this.podsIn(claim.metadata.namespace)
      .filter((p) => !p.spec?.nodeName &&
        p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && podClaimNames(p).includes(claim.metadata.name))
      .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    if (!names.length) this.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    else if (names.length === 1) this.event(claim, 'Normal', 'WaitForPodScheduled', `waiting for pod ${names[0]} to be scheduled`);
    else this.event(claim, 'Normal', 'WaitForPodScheduled', `waiting for pods ${names.join(',')} to be scheduled`);
  }

  /**
   * provisionClaimOperationExternal: no in-tree plugin provisions here, so
   * the claim is annotated for its class's provisioner (both annotations,
   * setClaimProvisioner) and waits for it.
   */
  private async provisionClaim(claim: Obj, className: string, cls: Obj): Promise<void> {
    if (!cls) {
      this.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      await this.setClaimPending(claim);
      return;
    }
    const provisioner: string = cls.provisioner;
    const ann = claim.metadata.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] !== provisioner || ann[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      const updated = await this.write(this.pvcClient, claim.metadata.namespace, claim.metadata.name, (cur) => {
        if (cur.metadata.uid !== claim.metadata.uid) return undefined;
        const a = (cur.metadata.annotations ??= {});
        a[ANN_BETA_STORAGE_PROVISIONER] = provisioner;
        a[ANN_STORAGE_PROVISIONER] = provisioner;
        return cur;
      });
      if (!updated) return;
    }
    this.event(claim, 'Normal', 'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. ` +
      'If volume creation is delayed, please verify that the provisioner is running and correctly registered.');
  }

  /** bind: the volume's claimRef, its Bound phase, the claim's volumeName and annotations, then its Bound status. */
  private async bind(pv: Obj, claim: Obj): Promise<void> {
    const uid = claim.metadata.uid;
    const vol = await this.write(this.pvClient, '', pv.metadata.name, (cur) => {
      if (cur.spec?.claimRef && !isVolumeBoundToClaim(cur, claim)) throw new Error(`volume ${cur.metadata.name} was bound to another claim meanwhile`);
      return bindVolumeToClaim(cur, claim);
    });
    if (!vol) return;
    await this.write(this.pvClient, '', pv.metadata.name, (cur) => {
      if (cur.status?.phase === 'Bound') return undefined;
      cur.status = { ...(cur.status ?? {}), phase: 'Bound' };
      return cur;
    }, 'status');
    const c = await this.write(this.pvcClient, claim.metadata.namespace, claim.metadata.name, (cur) => {
      if (cur.metadata.uid !== uid) return undefined;
      return bindClaimToVolume(cur, vol);
    });
    if (!c || c.metadata.uid !== uid) return;
    await this.write(this.pvcClient, claim.metadata.namespace, claim.metadata.name, (cur) => {
      if (cur.metadata.uid !== uid) return undefined;
      const next = boundClaimStatus(cur, vol);
      if (JSON.stringify(next) === JSON.stringify(cur.status)) return undefined;
      cur.status = next;
      return cur;
    }, 'status');
  }

  private async syncBoundClaim(claim: Obj): Promise<void> {
    if (!claim.spec?.volumeName) {
      await this.setClaimLost(claim, 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return;
    }
    const pv = this.volumes.get(claim.spec.volumeName);
    if (!pv) {
      await this.setClaimLost(claim, 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return;
    }
    if (!pv.spec?.claimRef || pv.spec.claimRef.uid === claim.metadata.uid) { await this.bind(pv, claim); return; }
    await this.setClaimLost(claim, 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
  }

  private async setVolumePhase(pv: Obj, phase: string): Promise<void> {
    if (pv.status?.phase === phase) return;
    await this.write(this.pvClient, '', pv.metadata.name, (cur) => {
      if (cur.status?.phase === phase) return undefined;
      cur.status = { ...(cur.status ?? {}), phase };
      return cur;
    }, 'status');
  }

  async syncVolume(name: string): Promise<void> {
    const pv = this.volumes.get(name);
    if (!pv) return;
    // pv-protection: a deleted volume keeps its finalizer only while Bound.
    if (pv.metadata.deletionTimestamp && pv.status?.phase !== 'Bound' && (pv.metadata.finalizers ?? []).includes(PV_PROTECTION)) {
      await this.write(this.pvProtection, '', name, (cur) => {
        if (cur.status?.phase === 'Bound') return undefined;
        cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f: string) => f !== PV_PROTECTION);
        return cur;
      });
      return;
    }
    const ref = pv.spec?.claimRef;
    // Unused, or reserved for a claim that has not bound yet (the claim's sync handles it).
    if (!ref || !ref.uid) { await this.setVolumePhase(pv, 'Available'); return; }
    let claim = this.claims.get(`${ref.namespace}/${ref.name}`);
    if (!claim && pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') {
      // The provisioner or the scheduler may have bound the volume to a claim this cache has not seen yet: ask the server.
      claim = await this.pvcClient.find(ref.namespace, ref.name);
    }
    if (claim && claim.metadata.uid !== ref.uid) claim = undefined;
    if (!claim) {
      if (pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') await this.setVolumePhase(pv, 'Released');
      // reclaimVolume: Retain keeps it; Delete of a volume no in-tree plugin owns waits for its external provisioner.
      return;
    }
    if (!claim.spec?.volumeName) { this.loop.add(`c:${claimKey(claim)}`); return; }
    if (claim.spec.volumeName === name) await this.setVolumePhase(pv, 'Bound');
  }
}

/**
 * winkube's own node-local provisioner, `winkube.io/local`, run as an
 * external provisioner would run (sig-storage-lib-external-provisioner's
 * ProvisionController): a claim the PV controller annotated for it (and, for
 * WaitForFirstConsumer classes, given a selected node) gets a volume
 * `pvc-<claim uid>` pre-bound to it; a Released volume it provisioned with
 * reclaim policy Delete is deleted.
 *
 * The volume is a `local` volume: a directory on the selected node, pinned
 * there by `spec.nodeAffinity` (kubernetes.io/hostname), which kubelets on
 * Linux and Windows both mount (a hostPath volume would also mount on both,
 * but a `local` PV is the type whose node affinity the scheduler and the
 * API require, which is what a node-local disk is). The directory is
 * /var/lib/winkube/storage/pvc-<uid> on Linux nodes and
 * C:\ProgramData\winkube\storage\pvc-<uid> on Windows nodes.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { StatusError, isAlreadyExists } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { KObject } from '../../apimachinery/object.js';
import { plain } from '../../client/plain.js';
import { nodes, persistentvolumeclaims, persistentvolumes, storageclasses } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';

import { ANN_BETA_STORAGE_PROVISIONER, ANN_DYNAMICALLY_PROVISIONED, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, claimClass, claimReference } from '../../component-helpers/pv-helpers.js';

export const LOCAL_PROVISIONER = 'winkube.io/local';
export const DEFAULT_STORAGE_CLASS = 'standard';

type Obj = any;

/** The cluster's default StorageClass, as kind's `standard` class, with winkube's provisioner. */
export function defaultStorageClass(): Obj {
  return {
    apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: LOCAL_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/** Where a volume's directory lives on a node of this OS. */
export function localVolumePath(os: string, name: string): string {
  return os === 'windows' ? `C:\\ProgramData\\winkube\\storage\\${name}` : `/var/lib/winkube/storage/${name}`;
}

/** The volume the provisioner creates for a claim on a node (Provision's result, with the library's claimRef and annotation). */
export function provisionedVolume(claim: Obj, cls: Obj, node: Obj): Obj {
  const name = `pvc-${claim.metadata.uid}`;
  const os = node.metadata?.labels?.['kubernetes.io/os'] ?? 'linux';
  const host = node.metadata?.labels?.['kubernetes.io/hostname'] ?? node.metadata.name;
  const spec: Obj = {
    capacity: { storage: claim.spec?.resources?.requests?.storage },
    accessModes: [...(claim.spec?.accessModes ?? [])],
    persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
    storageClassName: claimClass(claim),
    volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    claimRef: claimReference(claim),
    local: { path: localVolumePath(os, name) },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] } },
  };
  if (cls.mountOptions?.length) spec.mountOptions = [...cls.mountOptions];
  return {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: { name, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: LOCAL_PROVISIONER } },
    spec,
  };
}

export class LocalProvisioner {
  /** The library's event source: `<provisioner>_<host>_<uuid>`. */
  readonly identity = `${LOCAL_PROVISIONER}_${hostname()}_${randomUUID()}`;
  private readonly claims = new Map<string, Obj>();
  private readonly volumes = new Map<string, Obj>();
  private readonly classes = new Map<string, Obj>();
  private readonly loop: RateLimitingQueue;
  private readonly pvClient: ResourceClient<KObject>;
  private readonly pvcClient: ResourceClient<KObject>;
  private readonly nodeClient: ResourceClient<KObject>;
  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.events = ctx.events;
    this.pvClient = ctx.client.resource(plain(persistentvolumes));
    this.pvcClient = ctx.client.resource(plain(persistentvolumeclaims));
    this.nodeClient = ctx.client.resource(plain(nodes));
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(storageclasses, (type, o) => {
      if (type === 'DELETED') this.classes.delete(o.metadata.name!); else this.classes.set(o.metadata.name!, o);
    });
    await this.ctx.informers.inform(persistentvolumes, (type, o) => {
      if (type === 'DELETED') this.volumes.delete(o.metadata.name!); else { this.volumes.set(o.metadata.name!, o); this.loop.add(`v:${o.metadata.name}`); }
    });
    await this.ctx.informers.inform(persistentvolumeclaims, (type, o) => {
      const k = `${o.metadata.namespace}/${o.metadata.name}`;
      if (type === 'DELETED') this.claims.delete(k); else { this.claims.set(k, o); this.loop.add(`c:${k}`); }
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(1, (k) => this.sync(k), (k, e) => this.ctx.log(`winkube-local-provisioner: ${k}: ${(e as Error).message}`));
  }

  stop(): void { this.loop.shutDown(); }

  private async sync(key: string): Promise<void> {
    if (key.startsWith('c:')) await this.syncClaim(key.slice(2));
    else await this.syncVolume(key.slice(2));
  }

  private event(obj: Obj, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.events.emit(referenceTo(obj as KObject), type, reason, reason, message, this.identity);
  }

  /** shouldProvision: annotated for this provisioner, unbound, of a class of ours, with a node for delayed binding; not provisioned yet. */
  shouldProvision(claim: Obj): Obj {
    if (claim.spec?.volumeName || claim.metadata.deletionTimestamp) return undefined;
    const ann = claim.metadata.annotations ?? {};
    if ((ann[ANN_STORAGE_PROVISIONER] ?? ann[ANN_BETA_STORAGE_PROVISIONER]) !== LOCAL_PROVISIONER) return undefined;
    const cls = this.classes.get(claimClass(claim));
    if (cls?.provisioner !== LOCAL_PROVISIONER) return undefined;
    if (cls.volumeBindingMode === 'WaitForFirstConsumer' && !ann[ANN_SELECTED_NODE]) return undefined;
    if (this.volumes.has(`pvc-${claim.metadata.uid}`)) return undefined;
    return cls;
  }

  async syncClaim(key: string): Promise<void> {
    const claim = this.claims.get(key);
    if (!claim) return;
    const cls = this.shouldProvision(claim);
    if (!cls) return;
    // Node-local storage needs a node: Immediate claims of our class go to a node chosen when a consumer is scheduled only.
    const nodeName = claim.metadata.annotations?.[ANN_SELECTED_NODE];
    const ref = { ...claim };
    if (!nodeName) {
      this.event(ref, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${cls.metadata.name}": claim has no selected node; use volumeBindingMode WaitForFirstConsumer`);
      return;
    }
    const node = await this.nodeClient.find('', nodeName);
    this.event(ref, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${key}"`);
    if (!node) {
      // The node is gone: as the library's rescheduleProvisioning, give the claim back to the scheduler by removing selected-node.
      this.event(ref, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${cls.metadata.name}": nodes "${nodeName}" not found`);
      try {
        await this.pvcClient.update(claim.metadata.namespace, claim.metadata.name, (cur) => {
          const annotations = cur.metadata.annotations;
          if (annotations && cur.metadata.uid === claim.metadata.uid && annotations[ANN_SELECTED_NODE] === nodeName) delete annotations[ANN_SELECTED_NODE];
          return cur;
        }, { fieldManager: this.identity });
      } catch (e) {
        if (!(e instanceof StatusError && e.status.code === 404)) throw e;
      }
      return;
    }
    const pv = provisionedVolume(claim, cls, node);
    try {
      await this.pvClient.create('', pv as KObject, { fieldManager: this.identity });
    } catch (e) {
      if (!(isAlreadyExists(e))) throw e;
    }
    this.event(ref, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata.name}`);
  }

  /** shouldDelete: Released, reclaim policy Delete, provisioned by us; then the volume object goes (its directory with it). */
  async syncVolume(name: string): Promise<void> {
    const pv = this.volumes.get(name);
    if (!pv || pv.metadata.deletionTimestamp) return;
    if (pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') return;
    if (pv.metadata.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== LOCAL_PROVISIONER) return;
    try {
      await this.pvClient.delete('', name, { preconditions: { uid: pv.metadata.uid }, fieldManager: this.identity });
    } catch (e) {
      if (!(e instanceof StatusError && (e.status.code === 404 || e.status.code === 409))) throw e;
    }
  }
}

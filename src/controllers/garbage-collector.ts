import { StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceClient, ResourceRef } from '../client/types.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { attemptToDeleteAction, type OwnerState } from './garbage-collector-decision.js';

/** The fields of an ownerReference the graph keeps. */
interface OwnerRef { uid: string; apiVersion: string; kind: string; name: string; blockOwnerDeletion: boolean }

interface Node {
  uid: string;
  ref: ResourceRef;
  namespace: string;
  name: string;
  owners: OwnerRef[];
  finalizers: string[];
  deleting: boolean;
}

const MANAGER = 'garbage-collector';
const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';
/** garbagecollector.DefaultIgnoredResources: events are never owners or dependents the collector tracks. */
const IGNORED_RESOURCES = new Set(['/events', 'events.k8s.io/events']);

/** kube-controller-manager's discovery resync period for the garbage collector. */
const RESYNC_PERIOD_MS = 30_000;

/**
 * An object already gone needs nothing more. Any other error, a 409 Conflict
 * included (a UID precondition that no longer holds, an update that kept
 * losing to other writers), fails the item, and the work queue retries it as
 * upstream's requeueItem does.
 */
function ignoreNotFound(e: unknown): void {
  if (!(e instanceof StatusError && e.status.code === 404)) throw e;
}

/** Whether the graph's owners of a node are the object's ownerReferences (the fields the graph keeps, in order). */
function sameReferences(owners: Node['owners'], refs: readonly OwnerRef[]): boolean {
  if (owners.length !== refs.length) return false;
  return refs.every((b, i) => {
    const a = owners[i];
    return a !== undefined && a.uid === b.uid && a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name
      && a.blockOwnerDeletion === b.blockOwnerDeletion;
  });
}

/** A dependent blocks its owner's foreground deletion only through a reference with blockOwnerDeletion set. */
function blocks(dependent: Node, ownerUid: string): boolean {
  return dependent.owners.some((o) => o.uid === ownerUid && o.blockOwnerDeletion);
}

/** isDeletingDependents: being deleted in the foreground. */
function deletingDependents(node: Node): boolean {
  return node.deleting && node.finalizers.includes(FOREGROUND);
}

/**
 * The garbage collector: keeps a graph of ownerReferences and acts on it as
 * kube-controller-manager does. Dependents whose owners are all gone are
 * deleted (background cascade); an owner with the `foregroundDeletion`
 * finalizer has its dependents deleted first; one with `orphan` has its
 * dependents' references to it removed. Either finalizer is removed once
 * its work is done, which lets the owner go.
 */
export class GarbageCollector {
  private readonly nodes = new Map<string, Node>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly byKind = new Map<string, ResourceRef>();
  private readonly queue: RateLimitingQueue;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = newQueue(ctx);
  }

  /** The client's handle of a resource (kept by the client: no lookup beyond a map's). */
  private resource(ref: ResourceRef): ResourceClient<KObject> {
    return this.ctx.client.resource(ref);
  }

  /** The resources whose objects are in the graph, by "<group>/<resource>". */
  private readonly informed = new Set<string>();
  private resync?: ReturnType<typeof setInterval>;

  async start(): Promise<void> {
    await this.syncResources();
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(20, (uid) => this.process(uid), (uid, e) => this.ctx.log(`garbage collector: ${uid}: ${(e as Error).message}`));
    // GarbageCollector.Sync: discovery again every 30 seconds, so resources added since (custom resources) join the graph.
    this.resync = setInterval(() => {
      this.syncResources().catch((e: unknown) => this.ctx.log(`garbage collector: resync: ${(e as Error).message}`));
    }, RESYNC_PERIOD_MS);
    this.resync.unref?.();
  }

  /** Discovery: every served resource, in its preferred version; those that can be watched join the graph. */
  private async syncResources(): Promise<void> {
    for (const ref of await this.ctx.client.resources()) {
      const kindKey = `${ref.group}/${ref.kind}`;
      if (!this.byKind.has(kindKey)) this.byKind.set(kindKey, ref);
      const key = `${ref.group}/${ref.resource}`;
      if (this.informed.has(key) || IGNORED_RESOURCES.has(key) || (ref.verbs && !ref.verbs.includes('watch'))) continue;
      this.informed.add(key);
      await this.ctx.informers.inform(ref, (type, obj) => this.observe(ref, type, obj));
    }
  }

  stop(): void {
    if (this.resync) clearInterval(this.resync);
    this.queue.shutDown();
  }

  private observe(ref: ResourceRef, type: string, obj: KObject): void {
    const uid = obj.metadata.uid!;
    const old = this.nodes.get(uid);
    const refs: OwnerRef[] = (obj.metadata.ownerReferences ?? []).map((r) => ({
      uid: r.uid, apiVersion: r.apiVersion, kind: r.kind, name: r.name, blockOwnerDeletion: r.blockOwnerDeletion === true,
    }));
    // Most updates (status, labels) leave the ownerReferences as they were: the edges stay, only the node changes.
    const sameOwners = type !== 'DELETED' && old !== undefined && sameReferences(old.owners, refs);
    if (!sameOwners) {
      for (const o of old?.owners ?? []) {
        this.dependents.get(o.uid)?.delete(uid);
        // An owner deleting in the foreground may have waited on this dependent alone.
        if (this.nodes.get(o.uid)?.deleting) this.queue.add(o.uid);
      }
    }
    if (type === 'DELETED') {
      this.nodes.delete(uid);
      for (const o of old?.owners ?? []) this.queue.add(o.uid);
      for (const d of this.dependents.get(uid) ?? []) this.queue.add(d);
      return;
    }
    const node: Node = {
      uid, ref, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name!,
      owners: sameOwners ? old!.owners : refs,
      finalizers: obj.metadata.finalizers ?? [],
      deleting: !!obj.metadata.deletionTimestamp,
    };
    this.nodes.set(uid, node);
    for (const o of node.owners) {
      if (!sameOwners) {
        let deps = this.dependents.get(o.uid);
        if (!deps) this.dependents.set(o.uid, deps = new Set());
        deps.add(uid);
      }
      // An owner being deleted in the foreground waits on this dependent.
      if (this.nodes.get(o.uid)?.deleting) this.queue.add(o.uid);
    }
    if (node.deleting && (node.finalizers.includes(FOREGROUND) || node.finalizers.includes(ORPHAN))) this.queue.add(uid);
    // attemptToDelete only for a dependent none of whose owners is in the graph (upstream's virtual owner
    // nodes): an owner's deletion queues its dependents, so updates of owned objects need no lookup.
    if (node.owners.length && !node.owners.some((o) => this.nodes.has(o.uid))) this.queue.add(uid);
  }

  /**
   * classifyReferences for one owner: from the graph when it holds the owner, otherwise from
   * storage (an owner not observed yet, or one of a kind not informed).
   */
  private async ownerState(namespace: string, ref: Node['owners'][number]): Promise<OwnerState> {
    const known = this.nodes.get(ref.uid);
    if (known) return known.deleting && known.finalizers.includes(FOREGROUND) ? 'waiting' : 'solid';
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
    let owner = this.byKind.get(`${group}/${ref.kind}`);
    if (!owner) {
      // An owner of a kind discovery does not know yet (a custom resource) is not missing: upstream's
      // isDangling fails on the REST mapping and the dependent is retried, never deleted.
      await this.syncResources();
      owner = this.byKind.get(`${group}/${ref.kind}`);
      if (!owner) throw new Error(`unable to resolve the owner's kind ${ref.apiVersion} ${ref.kind}`);
    }
    const obj = await this.resource(owner).find(owner.namespaced ? namespace : '', ref.name);
    if (obj?.metadata.uid !== ref.uid) return 'dangling';
    return obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(FOREGROUND) ? 'waiting' : 'solid';
  }

  /** attemptToDeleteItem: a dependent with a solid owner loses its other references and stays; one without is deleted. */
  private async attemptToDelete(node: Node): Promise<void> {
    const owners: { uid: string; state: OwnerState }[] = [];
    for (const o of node.owners) owners.push({ uid: o.uid, state: await this.ownerState(node.namespace, o) });
    const dependents = [...(this.dependents.get(node.uid) ?? [])].map((d) => this.nodes.get(d)).filter((d): d is Node => !!d);
    const action = attemptToDeleteAction(owners, dependents.length > 0, node.finalizers, dependents.some(deletingDependents));
    if (action.kind === 'delete') {
      if (action.unblockOwnerReferences) await this.unblockOwnerReferences(node);
      return this.deleteObject(node, action.propagationPolicy);
    }
    if (action.kind !== 'removeOwnerReferences') return;
    const drop = new Set(action.uids);
    // The change names the dependent's uid, a precondition (409 if it was recreated).
    await this.resource(node.ref).update(node.namespace, node.name, (cur) => {
      cur.metadata.uid = node.uid;
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => !drop.has(r.uid));
      if (!cur.metadata.ownerReferences.length) delete cur.metadata.ownerReferences;
      return cur;
    }, { fieldManager: MANAGER }).catch(ignoreNotFound);
  }

  private async process(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    if (node.deleting && node.finalizers.includes(ORPHAN)) {
      for (const d of [...(this.dependents.get(uid) ?? [])]) {
        const dep = this.nodes.get(d);
        if (!dep) continue;
        // orphanDependents: the change names the dependent's uid, a precondition (409 if it was recreated).
        await this.resource(dep.ref).update(dep.namespace, dep.name, (cur) => {
          cur.metadata.uid = d;
          cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
          if (!cur.metadata.ownerReferences.length) delete cur.metadata.ownerReferences;
          return cur;
        }, { fieldManager: MANAGER }).catch(ignoreNotFound);
      }
      await this.removeFinalizer(node, ORPHAN);
      return;
    }
    if (deletingDependents(node)) {
      // processDeletingDependentsItem: only dependents whose reference blocks the owner keep it waiting.
      const blocking = [...(this.dependents.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((d): d is Node => !!d && blocks(d, uid));
      if (blocking.length === 0) {
        await this.removeFinalizer(node, FOREGROUND);
        return;
      }
      for (const dep of blocking) {
        // A dependent already being deleted goes its own way (attemptToDeleteItem returns at once).
        if (dep.deleting) continue;
        await this.attemptToDelete(dep);
      }
      return;
    }
    if (node.owners.length && !node.deleting) await this.attemptToDelete(node);
  }

  /** unblockOwnerReferencesStrategicMergePatch: every blocking reference of the node set to blockOwnerDeletion: false. */
  private async unblockOwnerReferences(node: Node): Promise<void> {
    const blocking = new Set(node.owners.filter((o) => o.blockOwnerDeletion).map((o) => o.uid));
    if (blocking.size === 0) return;
    await this.resource(node.ref).update(node.namespace, node.name, (cur) => {
      cur.metadata.uid = node.uid;
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).map((r) => blocking.has(r.uid) ? { ...r, blockOwnerDeletion: false } : r);
      return cur;
    }, { fieldManager: MANAGER }).catch(ignoreNotFound);
  }

  /** deleteObject: with the node's uid as precondition, so that an object recreated under the name is left alone. */
  private async deleteObject(node: Node, propagationPolicy: 'Foreground' | 'Background' | 'Orphan'): Promise<void> {
    await this.resource(node.ref).delete(node.namespace, node.name, { propagationPolicy, preconditions: { uid: node.uid }, fieldManager: MANAGER })
      .catch(ignoreNotFound);
  }

  private async removeFinalizer(node: Node, finalizer: string): Promise<void> {
    await this.resource(node.ref).update(node.namespace, node.name, (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      if (!cur.metadata.finalizers.length) delete cur.metadata.finalizers;
      return cur;
    }, { fieldManager: MANAGER }).catch(ignoreNotFound);
  }
}

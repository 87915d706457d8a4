/**
 * Helpers every workload controller shares, after upstream's
 * pkg/controller/controller_utils.go and controller_ref_manager.go: pod
 * activity and readiness, the deletion ranking of ActivePodsWithRanks,
 * ControllerExpectations, slowStartBatch, ComputeHash, and claiming
 * (adopting and releasing) objects by selector and controllerRef; and the
 * client each controller acts through.
 */
import { StatusError } from '../apimachinery/errors.js';
import { controllerOf, type KObject } from '../apimachinery/object.js';
import type { PatchType, ResourceClient } from '../client/types.js';
import type { LabelSelector } from '../selectors/labels.js';
import { controllerRef } from './pod-control.js';

/**
 * The field manager of every kube-controller-manager write: managedFields
 * name the binary (its user agent), not the controller within it.
 */
export const KCM_FIELD_MANAGER = 'kube-controller-manager';

// ---------------------------------------------------------------- pods

/** How the controllers write metadata changes: upstream's strategic merge patches (their roles may patch where they may not update). */
export const SMP: PatchType = 'application/strategic-merge-patch+json';

const phase = (pod: KObject): string | undefined => (pod.status as any)?.phase;

/** controller.IsPodActive: not finished and not being deleted. */
export function isPodActive(pod: KObject): boolean {
  const p = phase(pod);
  return p !== 'Succeeded' && p !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** controller.FilterActivePods. */
export function filterActivePods(pods: KObject[]): KObject[] {
  return pods.filter(isPodActive);
}

function readyCondition(pod: KObject): { status?: string; lastTransitionTime?: string } | undefined {
  return ((pod.status as any)?.conditions ?? []).find((c: any) => c?.type === 'Ready');
}

/** podutil.IsPodReady. */
export function isPodReady(pod: KObject): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** podutil.IsPodAvailable: ready for at least minReadySeconds. */
export function isPodAvailable(pod: KObject, minReadySeconds: number, now: number): boolean {
  const c = readyCondition(pod);
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < now;
}

/** The time a ready pod became ready (0 when unknown, as a zero metav1.Time). */
function podReadyTime(pod: KObject): number {
  const t = readyCondition(pod)?.lastTransitionTime;
  return t ? Date.parse(t) || 0 : 0;
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const phaseOrdinal = (pod: KObject): number => PHASE_ORDINAL[phase(pod) ?? ''] ?? 0;

/** helper.GetDeletionCostFromPodAnnotations; an invalid value counts as 0. */
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
function deletionCost(pod: KObject): number {
  const v = pod.metadata.annotations?.[DELETION_COST];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647 ? n : 0;
}

/** afterOrZero: a zero time sorts first, otherwise the later one. */
function afterOrZero(t1: number, t2: number): boolean {
  if (!t1 || !t2) return !t1;
  return t1 > t2;
}

/** logarithmicRankDiff: compares the binary orders of magnitude of two ages (in nanoseconds, as Go's Duration). */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const d1 = (now - t1) * 1e6;
  const d2 = (now - t2) * 1e6;
  const r1 = d1 > 0 ? Math.floor(Math.log2(d1)) : -1;
  const r2 = d2 > 0 ? Math.floor(Math.log2(d2)) : -1;
  return r1 - r2;
}

/** maxContainerRestarts: regular containers, then restartable init (sidecar) containers. */
function maxContainerRestarts(pod: KObject): [number, number] {
  const status = (pod.status ?? {}) as any;
  let regular = 0;
  for (const c of status.containerStatuses ?? []) regular = Math.max(regular, c?.restartCount ?? 0);
  const sidecars = new Set(((pod.spec as any)?.initContainers ?? []).filter((c: any) => c?.restartPolicy === 'Always').map((c: any) => c.name));
  let sidecar = 0;
  for (const c of status.initContainerStatuses ?? []) if (sidecars.has(c?.name)) sidecar = Math.max(sidecar, c?.restartCount ?? 0);
  return [regular, sidecar];
}

const uidOf = (pod: KObject) => pod.metadata.uid ?? '';
const created = (pod: KObject) => (pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) || 0 : 0);

/**
 * ActivePodsWithRanks.Less (with PodDeletionCost and LogarithmicScaleDown,
 * both on in v1.32): whether pod i should be deleted before pod j. `rank`
 * is the number of related active pods on the pod's node.
 */
export function deletesBefore(a: KObject, rankA: number, b: KObject, rankB: number, now: number): boolean {
  const na = (a.spec as any)?.nodeName ?? '';
  const nb = (b.spec as any)?.nodeName ?? '';
  // 1. Unassigned < assigned.
  if (na !== nb && (!na || !nb)) return !na;
  // 2. Pending < Unknown < Running.
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) < phaseOrdinal(b);
  // 3. Not ready < ready.
  const ra = isPodReady(a);
  const rb = isPodReady(b);
  if (ra !== rb) return !ra;
  // 4. Lower pod-deletion-cost < higher.
  if (deletionCost(a) !== deletionCost(b)) return deletionCost(a) < deletionCost(b);
  // 5. Doubled up (more related pods on the same node) < not doubled up.
  if (rankA !== rankB) return rankA > rankB;
  // 6. Ready for less time < more time, in logarithmic buckets.
  if (ra && rb) {
    const t1 = podReadyTime(a);
    const t2 = podReadyTime(b);
    if (t1 !== t2) {
      if (!t1 || !t2) return afterOrZero(t1, t2);
      const diff = logarithmicRankDiff(t1, t2, now);
      if (diff === 0) return uidOf(a) < uidOf(b);
      return diff < 0;
    }
  }
  // 7. Higher restart counts < lower.
  const [ca, sa] = maxContainerRestarts(a);
  const [cb, sb] = maxContainerRestarts(b);
  if (ca !== cb) return ca > cb;
  if (sa !== sb) return sa > sb;
  // 8. Empty creation time < newer < older, in logarithmic buckets.
  const c1 = created(a);
  const c2 = created(b);
  if (c1 !== c2) {
    if (!c1 || !c2) return afterOrZero(c1, c2);
    const diff = logarithmicRankDiff(c1, c2, now);
    if (diff === 0) return uidOf(a) < uidOf(b);
    return diff < 0;
  }
  return false;
}

/**
 * getPodsToDelete: the `diff` pods to delete first, ranked by
 * ActivePodsWithRanks with the count of related active pods on each node
 * (getPodsRankedByRelatedPodsOnSameNode).
 */
export function podsToDelete(filtered: KObject[], related: KObject[], diff: number, now = Date.now()): KObject[] {
  if (diff >= filtered.length) return filtered.slice(0, diff);
  const onNode = new Map<string, number>();
  for (const p of related) {
    if (!isPodActive(p)) continue;
    const n = (p.spec as any)?.nodeName ?? '';
    onNode.set(n, (onNode.get(n) ?? 0) + 1);
  }
  const ranked = filtered.map((pod) => ({ pod, rank: onNode.get((pod.spec as any)?.nodeName ?? '') ?? 0 }));
  ranked.sort((x, y) => (deletesBefore(x.pod, x.rank, y.pod, y.rank, now) ? -1 : deletesBefore(y.pod, y.rank, x.pod, x.rank, now) ? 1 : 0));
  return ranked.slice(0, diff).map((r) => r.pod);
}

// ---------------------------------------------------------------- expectations

/** ExpectationsTimeout: after five minutes a controller stops waiting for what it expected to see. */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Expectation { add: number; del: number; at: number; deleting?: Set<string> }

/**
 * ControllerExpectations: how many creations and deletions a controller
 * still waits to observe through its informer before it acts on a key again.
 * Without them a sync running before the cache has caught up would create
 * duplicates. `set` counts deletions only (the DaemonSet controller's plain
 * ControllerExpectations); `expectDeletions` names the pods, as
 * UIDTrackingControllerExpectations does, so each counts once.
 */
export class ControllerExpectations {
  private readonly byKey = new Map<string, Expectation>();

  constructor(private readonly now: () => number = Date.now) {}

  satisfied(key: string, now = this.now()): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    return (e.add <= 0 && e.del <= 0) || now - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  /** SetExpectations. */
  set(key: string, add: number, del: number): void {
    this.byKey.set(key, { add, del, at: this.now() });
  }

  expectCreations(key: string, n: number): void {
    this.byKey.set(key, { add: n, del: 0, at: this.now(), deleting: new Set() });
  }

  expectDeletions(key: string, podKeys: string[]): void {
    this.byKey.set(key, { add: 0, del: podKeys.length, at: this.now(), deleting: new Set(podKeys) });
  }

  creationObserved(key: string): void {
    const e = this.byKey.get(key);
    if (e) e.add--;
  }

  /**
   * A deletion seen (as a deletionTimestamp or as the DELETED event): with
   * tracked pods it counts once per expected pod key, otherwise every time.
   */
  deletionObserved(key: string, podKey?: string): void {
    const e = this.byKey.get(key);
    if (e && (!e.deleting || (podKey !== undefined && e.deleting.delete(podKey)))) e.del--;
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }
}

/**
 * slowStartBatch: calls fn in batches of 1, 2, 4, ... (from initialBatch)
 * until `count` calls are made or a batch has a failure; returns the
 * successes and the first error, so that a controller hitting a quota or
 * a webhook failure does not send hundreds of doomed requests.
 */
export async function slowStartBatch(count: number, initialBatch: number, fn: () => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatch); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failed.length;
    const [first] = failed;
    if (first) return { successes, error: first.reason };
    remaining -= batch;
  }
  return { successes };
}

/** controller.SlowStartInitialBatchSize. */
export const SLOW_START_INITIAL_BATCH = 1;

// ---------------------------------------------------------------- hashing

/** rand.SafeEncodeString's alphabet: no vowels (no words), no 0/1/3 (look like o, l, e). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** JSON with object keys sorted, so the same template always hashes the same. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * controller.ComputeHash: FNV-32a of the pod template, then the collision
 * count as 8 little-endian bytes, printed in decimal and SafeEncodeString'd
 * (so up to 10 characters of the same alphabet). Upstream hashes the Go
 * struct as spew prints it; here the template's canonical JSON is hashed,
 * so names differ from a real cluster's for the same template.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(Buffer.from(canonicalJSON(template ?? {}), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = Buffer.alloc(8);
    b.writeUInt32LE(collisionCount >>> 0, 0);
    h = fnv32a(b, h);
  }
  return safeEncodeString(String(h));
}

// ---------------------------------------------------------------- claiming

export const isNotFound = (e: unknown) => e instanceof StatusError && e.status.code === 404;
export const isConflict = (e: unknown) => e instanceof StatusError && e.status.code === 409;

/** Where claiming reads and writes: the claimed objects' resource and the owner's (for RecheckDeletionTimestamp). */
export interface ClaimClients {
  objects: ResourceClient<KObject>;
  owners: ResourceClient<KObject>;
}

/**
 * BaseControllerRefManager.ClaimObject over a list: keeps what the
 * controller owns and its selector still matches, releases what it owns but
 * no longer matches, adopts matching orphans (not being deleted). Adoption
 * first re-reads the controller (RecheckDeletionTimestamp): a controller
 * being deleted or replaced adopts nothing. Returns the claimed objects and
 * the errors of the adoptions and releases that failed. The writes are
 * upstream's strategic merge patches (the controllers' roles may patch, not
 * update), an adoption adding `finalizers` too, and name the controller
 * manager's field manager.
 */
export async function claimObjects(clients: ClaimClients, owner: KObject, selector: LabelSelector,
  objects: KObject[], filter: (o: KObject) => boolean = () => true, finalizers: string[] = []): Promise<{ claimed: KObject[]; errors: unknown[] }> {
  const claimed: KObject[] = [];
  const failures: unknown[] = [];
  const uid = owner.metadata.uid!;
  const ownerDeleting = !!owner.metadata.deletionTimestamp;
  const match = (o: KObject) => selector.matches(o.metadata.labels) && filter(o);
  let adoptionChecked: Promise<void> | undefined;
  const { objects: resource } = clients;
  const write = { fieldManager: KCM_FIELD_MANAGER };
  for (const obj of objects) {
    const ref = controllerOf(obj);
    try {
      if (ref) {
        if (ref.uid !== uid) continue;
        if (match(obj)) { claimed.push(obj); continue; }
        if (ownerDeleting) continue;
        // ReleasePod / ReleaseReplicaSet: drop our reference, on the same object (the patch's uid is a precondition).
        await resource.patch(obj.metadata.namespace ?? '', obj.metadata.name!, SMP,
          { metadata: { ownerReferences: [{ $patch: 'delete', uid }], uid: obj.metadata.uid } }, write);
        continue;
      }
      if (ownerDeleting || !match(obj) || obj.metadata.deletionTimestamp) continue;
      if ((owner.metadata.namespace ?? '') !== (obj.metadata.namespace ?? '')) continue;
      adoptionChecked ??= recheckOwner(clients.owners, owner);
      await adoptionChecked;
      // AdoptPod / AdoptReplicaSet (OwnerRefControllerPatch): a second controller adopting meanwhile makes it invalid.
      claimed.push(await resource.patch(obj.metadata.namespace ?? '', obj.metadata.name!, SMP, {
        metadata: { ownerReferences: [controllerRef(owner)], uid: obj.metadata.uid, ...(finalizers.length ? { finalizers } : {}) },
      }, write));
    } catch (e) {
      if (isNotFound(e)) continue;
      failures.push(e);
    }
  }
  return { claimed, errors: failures };
}

/** RecheckDeletionTimestamp: the controller, read fresh, is the same one and not being deleted. */
async function recheckOwner(owners: ResourceClient<KObject>, owner: KObject): Promise<void> {
  const fresh = await owners.find(owner.metadata.namespace ?? '', owner.metadata.name!);
  const name = `${owner.metadata.namespace}/${owner.metadata.name}`;
  if (!fresh || fresh.metadata.uid !== owner.metadata.uid) {
    throw new Error(`original ${name} is gone: got uid ${fresh?.metadata.uid ?? ''}, wanted ${owner.metadata.uid}`);
  }
  if (fresh.metadata.deletionTimestamp) throw new Error(`${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
}

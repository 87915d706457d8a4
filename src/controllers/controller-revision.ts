/**
 * ControllerRevisions as StatefulSet and DaemonSet keep them
 * (pkg/controller/history): each revision stores the pod template as a
 * strategic-merge "replace" patch, is named `<owner>-<hash>` and labelled
 * `controller.kubernetes.io/hash`; an equal template reuses its revision
 * (bumping its number when rolling back), a hash collision bumps
 * status.collisionCount.
 */
import { StatusError } from '../apimachinery/errors.js';
import { goMarshal } from '../apimachinery/go-json.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceClient } from '../client/types.js';
import { fromLabelSelector } from '../selectors/labels.js';
import { claimObjects } from './controller-utils.js';
import { controllerRef } from './pod-control.js';

/** history.ControllerRevisionHashLabel. */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
/** apps.ControllerRevisionHashLabelKey / StatefulSetRevisionLabel / DefaultDaemonSetUniqueLabelKey. */
export const POD_REVISION_LABEL = 'controller-revision-hash';


/**
 * getPatch (statefulset/daemonset): the template as a patch that replaces
 * it. ObjectMeta always carries creationTimestamp (null) in Go's encoding.
 */
export function templatePatch(template: Record<string, any>): Record<string, unknown> {
  const t = structuredClone(template ?? {});
  t.metadata = { creationTimestamp: null, ...(t.metadata ?? {}) };
  return { spec: { template: { ...t, $patch: 'replace' } } };
}

/** hash/fnv New32 (FNV-1). */
function fnv1(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h >>> 0;
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
/** rand.SafeEncodeString: no vowels, no look-alikes. */
export function safeEncode(s: string): string {
  return [...s].map((c) => ALPHANUMS[c.charCodeAt(0) % ALPHANUMS.length]).join('');
}

/** history.HashControllerRevision over the revision's raw data and the collision count. */
export function hashRevision(data: unknown, collisionCount?: number): string {
  const enc = new TextEncoder();
  let h = fnv1(enc.encode(goMarshal(data)));
  if (collisionCount !== undefined) h = fnv1(enc.encode(String(collisionCount)), h);
  return safeEncode(String(h));
}

/** history.ControllerRevisionName: the prefix is cut to 223 characters. */
export function revisionName(owner: string, hash: string): string {
  return `${owner.length > 223 ? owner.slice(0, 223) : owner}-${hash}`;
}

/** How an owner kind names and labels its revisions. */
export interface RevisionStyle {
  hashLabel: string;
  hash(template: Record<string, any>, data: unknown, collisionCount: number): string;
  /** Revisions copy the owner's annotations (kubectl shows their change-cause). */
  annotations?: boolean;
}

/** newRevision (StatefulSet): hash of the data, label controller.kubernetes.io/hash, the set's annotations. */
export const STATEFULSET_STYLE: RevisionStyle = { hashLabel: REVISION_HASH_LABEL, hash: (_t, data, cc) => hashRevision(data, cc), annotations: true };

/**
 * DaemonSet snapshot: named by controller.ComputeHash of the template and
 * labelled controller-revision-hash. ComputeHash hashes Go's in-memory
 * struct dump, which cannot be reproduced; the template's JSON stands in.
 */
export const DAEMONSET_STYLE: RevisionStyle = { hashLabel: POD_REVISION_LABEL, hash: (t, _d, cc) => hashRevision(t, cc), annotations: true };

const num = (r: KObject) => Number((r as any).revision ?? 0);
const byRevision = (a: KObject, b: KObject) => num(a) - num(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1);

export interface Revisions {
  /** Every revision the owner controls, oldest first. */
  revisions: KObject[];
  update: KObject;
  collisionCount: number;
}

/**
 * The ControllerRevisions of one owner kind, read and written through
 * `revisions` with `manager` as the field manager; `owners` re-reads an
 * owner before it adopts.
 */
export class RevisionHistory {
  constructor(private readonly revisions: ResourceClient<KObject>, private readonly owners: ResourceClient<KObject>,
    private readonly manager: string) {}

  /** ListControllerRevisions filtered to those whose controller is the owner, sorted by revision then name. */
  async list(owner: KObject): Promise<KObject[]> {
    const ns = owner.metadata.namespace ?? '';
    const { items } = await this.revisions.list(ns);
    return items
      .filter((r) => (r.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === owner.metadata.uid))
      .sort(byRevision);
  }

  /**
   * ClaimControllerRevisions (adoptOrphanRevisions): orphaned revisions the
   * owner's selector matches are adopted, ones it owns but no longer
   * selects are released; returns the owned ones, oldest first.
   */
  async claim(owner: KObject & { spec?: any }): Promise<KObject[]> {
    const selector = fromLabelSelector(owner.spec?.selector);
    if (!selector) return this.list(owner);
    const { items } = await this.revisions.list(owner.metadata.namespace ?? '');
    const { claimed, errors } = await claimObjects({ objects: this.revisions, owners: this.owners }, owner, selector, items);
    if (errors.length) throw errors[0];
    return claimed.sort(byRevision);
  }

  /**
   * getStatefulSetRevisions / constructHistory: finds or creates the
   * revision of the owner's current template. An equal older revision is
   * re-numbered to become the newest (a rollback).
   */
  async ensure(owner: KObject, template: Record<string, any>, collisionCount: number, style: RevisionStyle = STATEFULSET_STYLE): Promise<Revisions> {
    const ns = owner.metadata.namespace ?? '';
    const write = { fieldManager: this.manager };
    const revisions = await this.claim(owner);
    const data = templatePatch(template);
    const dataKey = goMarshal(data);
    const newest = revisions.at(-1);
    const next = newest ? num(newest) + 1 : 1;
    const last = revisions.filter((r) => goMarshal((r as any).data) === dataKey).at(-1);
    if (last) {
      if (last === newest) return { revisions, update: last, collisionCount };
      const bumped = await this.revisions.update(ns, last.metadata.name!, (cur) => ({ ...cur, revision: next }), write);
      return { revisions: [...revisions.filter((r) => r !== last), bumped], update: bumped, collisionCount };
    }
    for (;;) {
      const hash = style.hash(template, data, collisionCount);
      const labels = { ...(template?.metadata?.labels ?? {}), [style.hashLabel]: hash };
      const rev: KObject = {
        apiVersion: 'apps/v1', kind: 'ControllerRevision',
        metadata: { name: revisionName(owner.metadata.name!, hash), namespace: ns, labels, ownerReferences: [controllerRef(owner) as any] },
        data, revision: next,
      };
      if (style.annotations && owner.metadata.annotations && Object.keys(owner.metadata.annotations).length) {
        rev.metadata.annotations = { ...owner.metadata.annotations };
      }
      try {
        const created = await this.revisions.create(ns, rev, write);
        return { revisions: [...revisions, created], update: created, collisionCount };
      } catch (e) {
        if (!(e instanceof StatusError && e.status.code === 409)) throw e;
        const existing = await this.revisions.find(ns, rev.metadata.name!);
        if (existing && goMarshal((existing as any).data) === dataKey) {
          return { revisions: [...revisions, existing], update: existing, collisionCount };
        }
        collisionCount++;
      }
    }
  }

  /** truncateHistory: deletes the oldest revisions no pod uses beyond the limit. */
  async truncate(owner: KObject, revisions: KObject[], live: Set<string>, limit: number): Promise<void> {
    const ns = owner.metadata.namespace ?? '';
    const history = revisions.filter((r) => !live.has(r.metadata.name!));
    for (const r of history.slice(0, Math.max(0, history.length - limit))) {
      await this.revisions.delete(ns, r.metadata.name!, { fieldManager: this.manager })
        .catch((e) => { if (!(e instanceof StatusError && e.status.code === 404)) throw e; });
    }
  }
}

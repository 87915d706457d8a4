/**
 * Roles and bindings in memory, for the RBAC authorizer: what upstream's
 * authorizer reads through informer listers. Bindings are indexed by the
 * subjects they name, so that a decision reads only the bindings of the
 * user's name and groups, never every binding. Kept current by storage
 * watches, which deliver a write in the same tick as its commit: a binding
 * counts from the moment its create is answered.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { subjectKey, type RbacSource } from '../../authorization/rule-resolver.js';
import { followStored } from './follow-stored.js';
import type { Store } from '../store.js';
import type { ResourceDef } from '../types.js';
import { RBAC_GROUP } from '../rbac/defaults.js';

type Binding = RoleBinding | ClusterRoleBinding;

/** One resource's objects by namespace and name, kept by a storage watch. */
class WatchedObjects<T extends KObject> {
  readonly byNamespace = new Map<string, Map<string, T>>();

  constructor(private readonly onChange: (old: T | undefined, next: T | undefined) => void) {}

  async start(store: Store, def: ResourceDef | undefined): Promise<void> {
    if (def) await followStored<T>(store, def, (o) => this.put(o), (o) => this.remove(o));
  }

  get(namespace: string, name: string): T | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  private put(obj: T): void {
    const ns = obj.metadata.namespace ?? '';
    let m = this.byNamespace.get(ns);
    if (!m) this.byNamespace.set(ns, m = new Map());
    const old = m.get(obj.metadata.name!);
    m.set(obj.metadata.name!, obj);
    this.onChange(old, obj);
  }

  private remove(obj: T): void {
    const m = this.byNamespace.get(obj.metadata.namespace ?? '');
    const old = m?.get(obj.metadata.name!);
    if (!old) return;
    m!.delete(obj.metadata.name!);
    this.onChange(old, undefined);
  }
}

/** Bindings of one scope (a namespace, or the cluster) under each subject key. */
class SubjectIndex<B extends Binding> {
  private readonly byKey = new Map<string, Set<B>>();

  private keys(b: B): Set<string> {
    const ns = b.metadata?.namespace ?? '';
    const keys = new Set<string>();
    for (const s of (b.subjects ?? []) as Subject[]) {
      const k = subjectKey(s, ns);
      if (k) keys.add(k);
    }
    return keys;
  }

  add(b: B): void {
    for (const k of this.keys(b)) {
      let set = this.byKey.get(k);
      if (!set) this.byKey.set(k, set = new Set());
      set.add(b);
    }
  }

  delete(b: B): void {
    for (const k of this.keys(b)) {
      const set = this.byKey.get(k);
      set?.delete(b);
      if (set?.size === 0) this.byKey.delete(k);
    }
  }

  find(keys: readonly string[]): B[] {
    const out = new Set<B>();
    for (const k of keys) for (const b of this.byKey.get(k) ?? []) out.add(b);
    return [...out];
  }
}

export class RbacIndex implements RbacSource {
  private readonly roles = new WatchedObjects<Role & KObject>(() => {});
  private readonly clusterRoles = new WatchedObjects<ClusterRole & KObject>(() => {});
  private readonly roleBindingIndex = new Map<string, SubjectIndex<RoleBinding>>();
  private readonly clusterRoleBindingIndex = new SubjectIndex<ClusterRoleBinding>();
  private readonly roleBindings = new WatchedObjects<RoleBinding & KObject>((old, next) => {
    const ns = (old ?? next)!.metadata.namespace ?? '';
    let idx = this.roleBindingIndex.get(ns);
    if (!idx) this.roleBindingIndex.set(ns, idx = new SubjectIndex());
    if (old) idx.delete(old);
    if (next) idx.add(next);
  });
  private readonly clusterRoleBindings = new WatchedObjects<ClusterRoleBinding & KObject>((old, next) => {
    if (old) this.clusterRoleBindingIndex.delete(old);
    if (next) this.clusterRoleBindingIndex.add(next);
  });

  /** Reads every role and binding the store holds and follows their changes (none when RBAC is not served). */
  static async start(store: Store): Promise<RbacIndex> {
    const index = new RbacIndex();
    const def = (resource: string) => store.find(RBAC_GROUP, 'v1', resource);
    await Promise.all([
      index.roles.start(store, def('roles')),
      index.clusterRoles.start(store, def('clusterroles')),
      index.roleBindings.start(store, def('rolebindings')),
      index.clusterRoleBindings.start(store, def('clusterrolebindings')),
    ]);
    return index;
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(namespace, name);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get('', name);
  }

  listRoleBindings(namespace: string, subjects?: readonly string[]): readonly RoleBinding[] {
    if (subjects) return this.roleBindingIndex.get(namespace)?.find(subjects) ?? [];
    return [...(this.roleBindings.byNamespace.get(namespace)?.values() ?? [])];
  }

  listClusterRoleBindings(subjects?: readonly string[]): readonly ClusterRoleBinding[] {
    if (subjects) return this.clusterRoleBindingIndex.find(subjects);
    return [...(this.clusterRoleBindings.byNamespace.get('')?.values() ?? [])];
  }
}

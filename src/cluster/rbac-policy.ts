/**
 * kube-apiserver's rbac/bootstrap-roles post-start hook
 * (pkg/registry/rbac/rest/storage_rbac.go, EnsureRBACPolicy): at every
 * start the bootstrap ClusterRoles, ClusterRoleBindings and the namespaced
 * Roles and RoleBindings are reconciled with what is stored, in that order
 * and in union mode (src/registry/rbac/reconcile.ts): missing objects are
 * created, missing rules, selectors and subjects added, an object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` left alone. It
 * writes through the API server's loopback client, as upstream's hook does.
 */
import type { KObject } from '../apimachinery/object.js';
import { isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import { plain } from '../client/plain.js';
import { clusterrolebindings, clusterroles, rolebindings, roles } from '../client/resources.js';
import type { Client, ResourceClient, ResourceRef } from '../client/types.js';
import { bootstrapPolicy } from '../registry/rbac/bootstrap-policy.js';
import { reconcileBinding, reconcileRole, type ReconcileResult } from '../registry/rbac/reconcile.js';

type Reconcile = (existing: KObject | undefined, expected: KObject) => ReconcileResult<KObject>;

async function ensureOne(resource: ResourceClient<KObject>, namespace: string, expected: KObject, reconcile: Reconcile,
  log: (m: string) => void): Promise<void> {
  const name = expected.metadata.name!;
  const existing = await resource.find(namespace, name);
  const result = reconcile(existing, expected);
  const what = `${resource.ref.resource}.rbac.authorization.k8s.io/${name}`;
  if (result.protected) {
    if (result.operation !== 'none') log(`skipped reconcile-protected ${what}`);
    return;
  }
  switch (result.operation) {
    case 'none':
      return;
    case 'create':
      try {
        await resource.create(namespace, result.object);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      return;
    case 'update':
      await resource.update(namespace, name, () => result.object);
      return;
    case 'recreate':
      // The roleRef cannot change: the binding is deleted and created anew.
      try {
        await resource.delete(namespace, name, { preconditions: { uid: existing!.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      await resource.create(namespace, result.object);
  }
}

/** Creates or reconciles the whole bootstrap policy. */
export async function ensureRBACPolicy(client: Client, log: (m: string) => void = () => {}): Promise<void> {
  const policy = bootstrapPolicy();
  // The typed policy objects are plain API objects; the client takes them as such.
  const obj = (o: object): KObject => o as unknown as KObject;
  const of = (ref: ResourceRef<unknown>) => client.resource(plain(ref));
  for (const r of policy.clusterRoles) await ensureOne(of(clusterroles), '', obj(r), reconcileRole, log);
  for (const b of policy.clusterRoleBindings) await ensureOne(of(clusterrolebindings), '', obj(b), reconcileBinding, log);
  for (const [ns, list] of Object.entries(policy.roles)) {
    for (const r of list) await ensureOne(of(roles), ns, obj(r), reconcileRole, log);
  }
  for (const [ns, list] of Object.entries(policy.roleBindings)) {
    for (const b of list) await ensureOne(of(rolebindings), ns, obj(b), reconcileBinding, log);
  }
}

/**
 * The NodeRestriction admission plugin (plugin/pkg/admission/noderestriction,
 * v1.32), on as kubeadm enables it: a kubelet (system:node:<name>) may write
 * only its own Node (not its taints, nor labels outside the kubelet's set)
 * and Lease, the status of the pods bound to it, mirror pods bound to it
 * that name nothing else, deletes and evictions of its own pods, and tokens
 * bound to them. Anyone else passes untouched. The chain runs it on creates
 * and updates; pods' delete, eviction and serviceaccounts/token call the
 * checks of their operations.
 */
import type { Node, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { deepEqual } from '../validation/common.js';
import { errors } from '../apimachinery/errors.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../authorization/node-authorizer.js';
import { isNodeForbiddenLabel } from '../component-helpers/node-labels.js';
import { MIRROR_POD_ANNOTATION, podConfigMapNames, podSecretNames } from '../component-helpers/pod-references.js';
import type { KObject } from '../apimachinery/object.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { Lookup } from './lookup.js';
import { forbidden, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

/** getForbiddenLabels, sorted as sets.String.List() is. */
const forbiddenLabels = (modified: Set<string>) => [...modified].filter(isNodeForbiddenLabel).sort();

/** getModifiedLabels: keys added, removed or changed. */
function modifiedLabels(a: Record<string, string> = {}, b: Record<string, string> = {}): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (b[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b)) if (a[k] !== v) out.add(k);
  return out;
}

function admitNode(nodeName: string, a: AdmissionAttributes): void {
  if (a.name !== nodeName) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to modify node ${goQuote(a.name)}`);
  const node = a.object as Node;
  if (a.operation === 'CREATE') {
    if (node.spec?.configSource) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to create pods with a non-nil configSource`);
    const bad = forbiddenLabels(modifiedLabels(node.metadata?.labels, undefined));
    if (bad.length) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to set the following labels: ${bad.join(', ')}`);
    return;
  }
  const old = a.oldObject as Node;
  if (node.spec?.configSource && !deepEqual(node.spec.configSource, old.spec?.configSource)) {
    throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to update configSource to a new non-nil configSource`);
  }
  if (!deepEqual(node.spec?.taints ?? [], old.spec?.taints ?? [])) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to modify taints`);
  const bad = forbiddenLabels(modifiedLabels(node.metadata?.labels, old.metadata?.labels));
  if (bad.length) throw forbidden(a, `is not allowed to modify labels: ${bad.join(', ')}`);
}

async function admitPodCreate(nodeName: string, a: AdmissionAttributes): Promise<void> {
  const pod = a.object as Pod;
  const node = goQuote(nodeName);
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    throw forbidden(a, `pod does not have ${goQuote(MIRROR_POD_ANNOTATION)} annotation, node ${node} can only create mirror pods`);
  }
  if (pod.spec?.nodeName !== nodeName) throw forbidden(a, `node ${node} can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata?.ownerReferences ?? [];
  if (owners.length > 1) throw forbidden(a, `node ${node} can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
    throw forbidden(a, `node ${node} can only create pods with an owner reference set to itself`);
  }
  if (!owner.controller) throw forbidden(a, `node ${node} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion) throw forbidden(a, `node ${node} must not set blockOwnerDeletion on an owner reference`);
  const stored = await a.lookup.get('', 'nodes', '', nodeName);
  if (!stored) throw errors.notFound({ group: '', resource: 'nodes' }, nodeName);
  if (owner.uid !== stored.metadata.uid) throw forbidden(a, `node ${nodeName} UID mismatch: expected ${owner.uid} got ${stored.metadata.uid}`);
  const spec = pod.spec!;
  if (spec.serviceAccountName) throw forbidden(a, `node ${node} can not create pods that reference a service account`);
  if (podSecretNames(spec).length) throw forbidden(a, `node ${node} can not create pods that reference secrets`);
  if (podConfigMapNames(spec).length) throw forbidden(a, `node ${node} can not create pods that reference configmaps`);
  if ((spec.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s) => (s as { clusterTrustBundle?: unknown }).clusterTrustBundle))) {
    throw forbidden(a, `node ${node} can not create pods that reference clustertrustbundles`);
  }
  if ((spec.volumes ?? []).some((v) => v.persistentVolumeClaim)) throw forbidden(a, `node ${node} can not create pods that reference persistentvolumeclaims`);
}

/** admitPodStatus: the status of its own pods, without touching labels or resource claim statuses. */
function admitPodStatus(nodeName: string, a: AdmissionAttributes): void {
  const old = a.oldObject as Pod;
  const pod = a.object as Pod;
  const node = goQuote(nodeName);
  if (old.spec?.nodeName !== nodeName) throw forbidden(a, `node ${node} can only update pod status for pods with spec.nodeName set to itself`);
  if (!deepEqual(old.metadata?.labels ?? {}, pod.metadata?.labels ?? {})) throw forbidden(a, `node ${node} cannot update labels through pod status`);
  const claims = (p: Pod) => (p.status?.resourceClaimStatuses ?? []).map((s) => [s.name, s.resourceClaimName ?? null]);
  if (!deepEqual(claims(old), claims(pod))) throw forbidden(a, `node ${node} cannot update resource claim statues`);
}

function admitPod(nodeName: string, a: AdmissionAttributes): Promise<void> | void {
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') return admitPodCreate(nodeName, a);
      throw forbidden(a, `unexpected operation ${goQuote(a.operation)}, node ${goQuote(nodeName)} can only create and delete mirror pods`);
    case 'status':
      if (a.operation === 'UPDATE') return admitPodStatus(nodeName, a);
      throw forbidden(a, `unexpected operation ${goQuote(a.operation)}`);
    default:
      throw forbidden(a, `unexpected pod subresource ${goQuote(a.subresource)}, only 'status' and 'eviction' are allowed`);
  }
}

/** admitPVCStatus: only status.capacity and status.conditions may change. */
function admitClaimStatus(nodeName: string, a: AdmissionAttributes): void {
  if (a.subresource !== 'status') throw forbidden(a, 'may only update PVC status');
  if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation ${goQuote(a.operation)}`);
  const comparable = (c: PersistentVolumeClaim) => {
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = c.metadata ?? {};
    const { capacity: _c, conditions: _k, allocatedResourceStatuses: _s, allocatedResources: _r, ...status } = c.status ?? {};
    return { ...c, metadata: meta, status };
  };
  if (!deepEqual(comparable(a.oldObject as PersistentVolumeClaim), comparable(a.object as PersistentVolumeClaim))) {
    // Upstream appends a go-cmp diff of the two claims, which has no stable form to match.
    throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to update fields other than status.capacity and status.conditions`);
  }
}

function admitLease(nodeName: string, a: AdmissionAttributes): void {
  if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbidden(a, `can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`);
  const name = a.operation === 'CREATE' ? (a.object as Lease).metadata?.name : a.name;
  if (name !== nodeName) throw forbidden(a, 'can only access node lease with the same name as the requesting node');
}

/** The node a request comes from, if a node's; refused when its name is unknown. */
function requestingNode(user: WriteContext['user'], refuse: (why: string) => Error): string | undefined {
  if (!user) return undefined;
  const nodeName = nodeIdentity(user);
  if (nodeName === '') throw refuse(`could not determine node from user ${goQuote(user.name)}`);
  return nodeName;
}

const podForbidden = (name: string) => (why: string) => errors.forbidden({ group: '', resource: 'pods' }, name, why);

/** admitPod on delete: a node deletes only the pods bound to it. */
export function admitNodePodDelete(pod: Pod & KObject, ctx: WriteContext): void {
  const refuse = podForbidden(pod.metadata.name!);
  const nodeName = requestingNode(ctx.user, refuse);
  if (nodeName !== undefined && pod.spec?.nodeName !== nodeName) {
    throw refuse(`node ${goQuote(nodeName)} can only delete pods with spec.nodeName set to itself`);
  }
}

/** admitPodEviction: a node evicts only the pods bound to it. */
export function admitNodeEviction(pod: Pod & KObject, ctx: WriteContext): void {
  const refuse = podForbidden(pod.metadata.name!);
  const nodeName = requestingNode(ctx.user, refuse);
  if (nodeName !== undefined && pod.spec?.nodeName !== nodeName) {
    throw refuse(`node ${nodeName} can only evict pods with spec.nodeName set to itself`);
  }
}

/** admitServiceAccount: a node's TokenRequest must be bound, by uid, to a pod that runs on it. */
export async function admitNodeTokenRequest(account: string, namespace: string,
  ref: { apiVersion?: string; kind?: string; name?: string; uid?: string } | null, ctx: WriteContext, lookup: Lookup): Promise<void> {
  const refuse = (why: string) => errors.forbidden({ group: '', resource: 'serviceaccounts' }, account, why);
  const nodeName = requestingNode(ctx.user, refuse);
  if (nodeName === undefined) return;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw refuse('node requested token not bound to a pod');
  if (!ref.uid) throw refuse('node requested token with a pod binding without a uid');
  const pod = await lookup.get('', 'pods', namespace, ref.name) as (Pod & KObject) | undefined;
  if (!pod) throw errors.notFound({ group: '', resource: 'pods' }, ref.name);
  if (ref.uid !== pod.metadata.uid) {
    throw refuse(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (pod.spec?.nodeName !== nodeName) throw refuse('node requested token bound to a pod scheduled on a different node');
}

export const nodeRestriction: AdmissionPlugin = {
  name: 'NodeRestriction',
  async admit(a) {
    const nodeName = requestingNode(a.ctx.user, (why) => forbidden(a, why));
    if (nodeName === undefined) return;
    switch (`${a.def.group}/${a.def.resource}`) {
      case '/pods': return admitPod(nodeName, a);
      case '/nodes': return admitNode(nodeName, a);
      case '/persistentvolumeclaims': return admitClaimStatus(nodeName, a);
      case 'coordination.k8s.io/leases': return admitLease(nodeName, a);
    }
  },
};

/**
 * The NodeRestriction admission plugin (plugin/pkg/admission/noderestriction,
 * v1.32), on as kubeadm enables it: a kubelet (system:node:<name>) may write
 * only its own Node (not its taints, nor labels outside the kubelet's set)
 * and Lease, the status of the pods bound to it, and mirror pods bound to it
 * that name nothing else. Anyone else passes untouched.
 */
import type { Node, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { deepEqual } from '../validation/common.js';
import { errors } from '../apimachinery/errors.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { nodeIdentity } from '../authorization/node-authorizer.js';
import { isNodeForbiddenLabel } from '../component-helpers/node-labels.js';
import { podConfigMapNames, podSecretNames } from '../component-helpers/pod-references.js';
import { forbidden, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

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

export const nodeRestriction: AdmissionPlugin = {
  name: 'NodeRestriction',
  async admit(a) {
    if (!a.ctx.user) return;
    const nodeName = nodeIdentity(a.ctx.user);
    if (nodeName === undefined) return;
    if (nodeName === '') throw forbidden(a, `could not determine node from user ${goQuote(a.ctx.user.name)}`);
    switch (`${a.def.group}/${a.def.resource}`) {
      case '/pods': return admitPod(nodeName, a);
      case '/nodes': return admitNode(nodeName, a);
      case '/persistentvolumeclaims': return admitClaimStatus(nodeName, a);
      case 'coordination.k8s.io/leases': return admitLease(nodeName, a);
    }
  },
};

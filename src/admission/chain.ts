/**
 * The admission chain in kube-apiserver's order (pkg/kubeapiserver/options/
 * plugins.go AllOrderedPlugins, v1.32, the plugins enabled by default).
 * Every write passes the chain twice, as upstream's does:
 *
 *   decode + defaults → mutating phase (Admit of each plugin, in order)
 *   → strategy PrepareForCreate/Update → strategy validation
 *   → validating phase (Validate of each plugin, in order) → storage.
 *
 * Where each plugin lives here:
 *
 * | plugin                          | phase(s)             | implementation |
 * | ---                             | ---                  | --- |
 * | NamespaceLifecycle              | validating           | Store.admitNamespace (before everything) |
 * | LimitRanger                     | mutating, validating | admission/limit-ranger.ts |
 * | ServiceAccount                  | mutating             | pods' admitCreate (registry/core/pod-admission.ts) |
 * | NodeRestriction                 | mutating             | admission/node-restriction.ts (on, as kubeadm has it) |
 * | TaintNodesByCondition           | mutating             | nodes' admitCreate (registry/core/nodes.ts) |
 * | PodSecurity                     | validating           | admission/pod-security.ts |
 * | Priority                        | mutating, validating | pods' admitCreate; admission/priority.ts (one default class) |
 * | DefaultTolerationSeconds        | mutating             | pods' admitCreate |
 * | DefaultStorageClass             | mutating             | persistentvolumeclaims' admitCreate |
 * | StorageObjectInUseProtection    | mutating             | persistentvolumeclaims' admitCreate |
 * | PersistentVolumeClaimResize     | validating           | not emulated (no StorageClass API served) |
 * | RuntimeClass                    | mutating, validating | pods' admitCreate (both halves there) |
 * | CertificateApproval             | validating           | admission/certificates.ts |
 * | CertificateSigning              | validating           | admission/certificates.ts |
 * | ClusterTrustBundleAttest        | —                    | no ClusterTrustBundles (alpha, off in v1.32) |
 * | CertificateSubjectRestriction   | validating           | admission/certificates.ts |
 * | DefaultIngressClass             | —                    | no networking API served |
 * | MutatingAdmissionWebhook        | mutating             | admission/webhook-mutating.ts (admitWebhooks: after the resources' own hooks) |
 * | ValidatingAdmissionPolicy       | validating           | admission/validating-admission-policy.ts |
 * | ValidatingAdmissionWebhook      | validating           | admission/webhook-validating.ts |
 * | ResourceQuota                   | validating           | admission/resource-quota.ts (last) |
 *
 * The resources' own `admitCreate` hooks hold the plugins that were written
 * with the resources (ServiceAccount, Priority, DefaultTolerationSeconds,
 * RuntimeClass for pods; DefaultStorageClass, StorageObjectInUseProtection
 * for claims); the store runs them after the plugins below that precede
 * them, so the mutating order is upstream's. Their validating halves
 * (RuntimeClass's overhead check, ServiceAccount's mirror-pod checks) run
 * with them, before the strategy validation rather than after it. The
 * mutating webhooks, last but one in upstream's mutating order, run after
 * those hooks (the store calls admitWebhooks); on DELETE only the webhooks
 * run (admitDeleteWithWebhooks).
 */
import type { KObject } from '../apimachinery/object.js';
import type { Lookup } from './lookup.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './certificates.js';
import { limitRanger } from './limit-ranger.js';
import { nodeRestriction } from './node-restriction.js';
import { podSecurity } from './pod-security.js';
import { priority } from './priority.js';
import { resourceQuota } from './resource-quota.js';
import { validateWithPolicies, validatingAdmissionPolicy } from './validating-admission-policy.js';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from './types.js';
import { admitWithWebhooks } from './webhook-mutating.js';
import type { WebhookAttributes } from './webhook-request.js';
import { validateWithWebhooks } from './webhook-validating.js';

const validatingAdmissionWebhook: AdmissionPlugin = {
  name: 'ValidatingAdmissionWebhook',
  validate: (a) => validateWithWebhooks(a),
};

/** Upstream's plugin order; `plugin` is set for those implemented in this chain. */
export const ADMISSION_ORDER: { name: string; plugin?: AdmissionPlugin }[] = [
  { name: 'NamespaceLifecycle' },
  { name: 'LimitRanger', plugin: limitRanger },
  { name: 'ServiceAccount' },
  { name: 'NodeRestriction', plugin: nodeRestriction },
  { name: 'TaintNodesByCondition' },
  { name: 'PodSecurity', plugin: podSecurity },
  { name: 'Priority', plugin: priority },
  { name: 'DefaultTolerationSeconds' },
  { name: 'DefaultStorageClass' },
  { name: 'StorageObjectInUseProtection' },
  { name: 'PersistentVolumeClaimResize' },
  { name: 'RuntimeClass' },
  { name: 'CertificateApproval', plugin: certificateApproval },
  { name: 'CertificateSigning', plugin: certificateSigning },
  { name: 'ClusterTrustBundleAttest' },
  { name: 'CertificateSubjectRestriction', plugin: certificateSubjectRestriction },
  { name: 'DefaultIngressClass' },
  { name: 'MutatingAdmissionWebhook' },
  { name: 'ValidatingAdmissionPolicy', plugin: validatingAdmissionPolicy },
  { name: 'ValidatingAdmissionWebhook', plugin: validatingAdmissionWebhook },
  { name: 'ResourceQuota', plugin: resourceQuota },
];

const PLUGINS = ADMISSION_ORDER.flatMap((p) => (p.plugin ? [p.plugin] : []));

/** The attributes of one write, shared by both phases. */
export function admissionAttributes(def: ResourceInfo, operation: Operation, namespace: string, object: KObject,
  oldObject: KObject | undefined, ctx: WriteContext, lookup: Lookup, subresource = ''): AdmissionAttributes {
  return {
    operation, def, subresource, namespace: def.namespaced ? namespace : '',
    get name() { return object.metadata?.name ?? oldObject?.metadata?.name ?? ''; },
    object, oldObject, ctx, lookup, memo: new Map(),
  };
}

/** The mutating phase: each plugin's Admit, in order. */
export async function admit(a: AdmissionAttributes): Promise<void> {
  for (const p of PLUGINS) if (p.admit) await p.admit(a);
}

/** The validating phase: each plugin's Validate, in order; the first refusal ends the request. */
export async function validate(a: AdmissionAttributes): Promise<void> {
  for (const p of PLUGINS) if (p.validate) await p.validate(a);
}

/** MutatingAdmissionWebhook's Admit, after every other mutating step; `redefault` defaults a patched object. */
export async function admitWebhooks(a: AdmissionAttributes, redefault?: (obj: KObject) => void): Promise<void> {
  await admitWithWebhooks(a, redefault);
}

/**
 * DELETE admission: the mutating webhooks (which see no object and, as upstream's delete handler
 * calls them, no old object either), then the validating plugins that handle deletes
 * (ValidatingAdmissionPolicy, ValidatingAdmissionWebhook) with the object being deleted.
 */
export async function admitDeleteWithWebhooks(a: Omit<WebhookAttributes, 'operation' | 'object' | 'oldObject'>, old: KObject,
  deleteOptions: Record<string, unknown>): Promise<void> {
  const withOptions = { ...a, deleteOptions };
  await admitWithWebhooks({ ...withOptions, operation: 'DELETE', object: null });
  await validateWithPolicies({ ...withOptions, operation: 'DELETE', object: null, oldObject: old });
  await validateWithWebhooks({ ...withOptions, operation: 'DELETE', object: null, oldObject: old });
}

/**
 * CONNECT admission (pods/exec, pods/attach): the mutating webhooks, which may change the options
 * object in place, then the validating ones; no built-in plugin of this chain handles CONNECT.
 */
export async function admitConnectWithWebhooks(a: Omit<WebhookAttributes, 'operation' | 'oldObject'> & { object: KObject }): Promise<void> {
  await admitWithWebhooks({ ...a, operation: 'CONNECT' });
  await validateWithWebhooks({ ...a, operation: 'CONNECT' });
}

/** A subresource POST's attributes (pods/binding, pods/eviction): a CREATE of the subresource's own kind. */
export type SubresourceCreate = Omit<WebhookAttributes, 'operation' | 'oldObject'> & { object: KObject };

/** The mutating phase of a subresource POST (createHandler's Admit, before the REST storage's Create). */
export async function mutateSubresourceCreate(a: SubresourceCreate): Promise<void> {
  await admitWithWebhooks({ ...a, operation: 'CREATE' });
}

/** The validating phase of a subresource POST (the createValidation the REST storage's Create calls). */
export async function validateSubresourceCreate(a: SubresourceCreate): Promise<void> {
  await validateWithPolicies({ ...a, operation: 'CREATE' });
  await validateWithWebhooks({ ...a, operation: 'CREATE' });
}

/**
 * apiextensions.k8s.io/v1 customresourcedefinitions (apiextensions-apiserver
 * pkg/registry/customresourcedefinition: strategy.go and etcd.go's Delete).
 */
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { ResourceDef, Stored } from '../types.js';
import { ALL_VERBS } from '../types.js';
import { statusSubresource } from '../groups/shared.js';
import { validateCRD, validateCRDUpdate, validateNames } from './crd-validation.js';
import { defaultPrinter } from '../printers/default.js';
import type { KObject } from '../../apimachinery/object.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { validateObjectMetaUpdate } from '../../validation/object-meta.js';

/** The finalizer the CRD's REST storage adds on the first delete; the finalizing controller removes it. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

type CRD = Stored<CustomResourceDefinition>;
export type CRDCondition = NonNullable<NonNullable<CustomResourceDefinition['status']>['conditions']>[number];

/** apiextensions.SetCRDCondition: replaces the condition of its type (keeping the transition time if the status is unchanged) or appends it. */
export function setCRDCondition(crd: KObject, cond: Omit<CRDCondition, 'lastTransitionTime'>, now: Date): void {
  const status = ((crd as CRD).status ??= { acceptedNames: { plural: '', kind: '' }, storedVersions: [] });
  const list = (status.conditions ??= []);
  const i = list.findIndex((c) => c.type === cond.type);
  const old = list[i];
  const next: CRDCondition = { type: cond.type, status: cond.status, lastTransitionTime: rfc3339(now), reason: cond.reason, message: cond.message };
  if (old && old.status === cond.status && old.lastTransitionTime) next.lastTransitionTime = old.lastTransitionTime;
  if (i < 0) list.push(next); else list[i] = next;
}

export function crdCondition(crd: KObject, type: string): CRDCondition | undefined {
  return ((crd as CRD).status?.conditions ?? []).find((c) => c.type === type);
}

/** The storage version's name, recorded in status.storedVersions if not yet there. */
function recordStorageVersion(crd: CRD): void {
  const storage = (crd.spec?.versions ?? []).find((v) => v.storage);
  if (!storage) return;
  const status = crd.status!;
  status.storedVersions ??= [];
  if (!status.storedVersions.includes(storage.name)) status.storedVersions.push(storage.name);
}

export const customresourcedefinitions: ResourceDef<CustomResourceDefinition> = {
  group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'],
  verbs: ALL_VERBS, storageVersionHash: 'M5uH+AlWATY=',
  subresources: [statusSubresource('CustomResourceDefinition')],
  storagePrefix: '/apiextensions.k8s.io/customresourcedefinitions',
  hasGeneration: true,
  hasStatusSubresource: true,
  // customresourcedefinition strategy and statusStrategy: AllowUnconditionalUpdate false.
  allowUnconditionalUpdate: false,
  printer: defaultPrinter,
  /** v1 SetDefaults_CustomResourceDefinitionSpec. */
  defaults(obj) {
    const spec = obj.spec;
    if (!spec || typeof spec !== 'object') return;
    const names = spec.names;
    if (names && typeof names === 'object') {
      if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
      if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
    }
    spec.conversion ??= { strategy: 'None' };
    const webhook = spec.conversion?.webhook;
    if (webhook?.clientConfig?.service && webhook.clientConfig.service.port === undefined) webhook.clientConfig.service.port = 443;
  },
  prepareForCreate(obj) {
    obj.status = { conditions: null as unknown as [], acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
    obj.metadata.generation = 1;
    recordStorageVersion(obj);
  },
  prepareForUpdate(obj, old) {
    obj.status = structuredClone(old.status);
    recordStorageVersion(obj);
  },
  validate: (obj) => validateCRD(obj),
  validateUpdate(obj, old, subresource) {
    if (subresource === 'status') {
      // ValidateUpdateCustomResourceDefinitionStatus: metadata, then the accepted names.
      return [...validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {}, true), ...validateNames(obj.status?.acceptedNames ?? {}, 'status.acceptedNames')];
    }
    return validateCRDUpdate(obj, old);
  },
  /**
   * etcd.go Delete: the first delete adds the cleanup finalizer and the Terminating condition;
   * the object stays until the finalizing controller has deleted every instance.
   */
  prepareForDelete(obj) {
    if (obj.metadata.deletionTimestamp) return false;
    obj.metadata.deletionTimestamp = rfc3339(new Date());
    const finalizers = (obj.metadata.finalizers ??= []);
    if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) finalizers.push(CUSTOM_RESOURCE_CLEANUP_FINALIZER);
    setCRDCondition(obj, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    }, new Date());
    return true;
  },
};

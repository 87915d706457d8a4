/** coordination.k8s.io/v1 leases (pkg/registry/coordination/lease). */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ResourceDef } from '../../types.js';
import { leaseValidation } from '../../../validation/lease.js';
import { ALL_VERBS } from '../shared.js';

/** CoordinatedLeaderElection is alpha (off) in v1.32: its spec fields are dropped unless already in use. */
function dropDisabled(obj: any, old: any): void {
  const spec = obj.spec;
  if (!spec) return;
  if (old?.spec?.strategy == null) delete spec.strategy;
  if (old?.spec?.preferredHolder == null) delete spec.preferredHolder;
}

export const leases: ResourceDef<Lease> = {
  group: 'coordination.k8s.io', version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease',
  namespaced: true, verbs: ALL_VERBS,
  storageVersionHash: 'gqkMMb/YqFM=',
  storagePrefix: '/coordination.k8s.io/leases',
  defaults(obj) {
    obj.spec ??= {}; // a struct: never omitted
  },
  prepareForCreate(obj) {
    dropDisabled(obj, undefined);
  },
  prepareForUpdate(obj, old) {
    dropDisabled(obj, old);
  },
  ...leaseValidation,
};

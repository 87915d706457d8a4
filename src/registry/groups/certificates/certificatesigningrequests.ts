/**
 * certificates.k8s.io/v1 certificatesigningrequests (pkg/registry/certificates/certificates,
 * v1.32). The requester is recorded from the request's user on create and
 * nobody may pre-approve; the main resource changes only metadata, the
 * approval subresource only the conditions, the status subresource the
 * rest of the status but never the Approved/Denied conditions it was given.
 */
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import { rfc3339 } from '../../../apimachinery/time.js';
import type { WriteContext } from '../../../apimachinery/write-context.js';
import { APPROVED, DENIED, certificateSigningRequestValidation } from '../../../validation/certificatesigningrequest.js';
import type { ResourceDef, Stored } from '../../types.js';
import { ALL_VERBS, statusSubresource } from '../shared.js';

type CSR = Stored<CertificateSigningRequest>;
type Condition = CertificateSigningRequestCondition;

/** preserveConditionInstances: the stored instances of a condition type stay as they were, unless instances were added or removed (validation refuses that). */
function preserveConditionInstances(csr: CSR, old: CSR, type: string): void {
  const conditions = csr.status?.conditions ?? [];
  const before = (old.status?.conditions ?? []).filter((c) => c.type === type);
  const at = conditions.flatMap((c, i) => (c.type === type ? [i] : []));
  if (at.length !== before.length) return;
  at.forEach((i, n) => { conditions[i] = before[n]!; });
}

/** populateConditionTimestamps: a condition without lastUpdateTime gets now; without lastTransitionTime, the stored one of the same type and status, else now. */
function populateConditionTimestamps(csr: CSR, old: CSR, ctx: WriteContext): void {
  const now = rfc3339(ctx.now);
  for (const c of csr.status?.conditions ?? []) {
    c.lastUpdateTime ??= now;
    if (c.lastTransitionTime) continue;
    const same = (old.status?.conditions ?? []).find((o: Condition) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
    c.lastTransitionTime = same?.lastTransitionTime ?? now;
  }
}

export const certificatesigningrequests: ResourceDef<CertificateSigningRequest> = {
  group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', singular: 'certificatesigningrequest',
  kind: 'CertificateSigningRequest', namespaced: false, verbs: ALL_VERBS, shortNames: ['csr'],
  subresources: [
    { name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'] },
    statusSubresource('CertificateSigningRequest'),
  ],
  storageVersionHash: '95fRKMXA+00=',
  storagePrefix: '/certificates.k8s.io/certificatesigningrequests',
  hasStatusSubresource: true,
  statusWritesMetadata: true,
  defaults(obj) {
    // request and signerName are written without omitempty; status is a struct.
    obj.spec ??= {};
    obj.spec.request ??= null;
    obj.spec.signerName ??= '';
    obj.status ??= {};
  },
  prepareForCreate(obj, ctx) {
    const { request, signerName, expirationSeconds, usages } = obj.spec;
    const user = ctx.user;
    // The requester is who sent the request, whatever the body says (in the Go struct's field order).
    obj.spec = { request, signerName, expirationSeconds, usages };
    if (expirationSeconds === undefined) delete obj.spec.expirationSeconds;
    if (usages === undefined) delete obj.spec.usages;
    if (user?.name) obj.spec.username = user.name;
    if (user?.uid) obj.spec.uid = user.uid;
    if (user?.groups.length) obj.spec.groups = [...user.groups];
    if (user?.extra && Object.keys(user.extra).length) obj.spec.extra = structuredClone(user.extra);
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    obj.spec = old.spec;
  },
  prepareForSubresourceUpdate(subresource, obj, old, ctx) {
    obj.spec = old.spec;
    if (subresource === 'status') {
      preserveConditionInstances(obj, old, APPROVED);
      preserveConditionInstances(obj, old, DENIED);
      populateConditionTimestamps(obj, old, ctx);
    } else if (subresource === 'approval') {
      populateConditionTimestamps(obj, old, ctx);
      const conditions = obj.status?.conditions;
      obj.status = { ...old.status };
      if (conditions?.length) obj.status.conditions = conditions; else delete obj.status.conditions;
    }
  },
  fieldSelectors: {
    'spec.signerName': (csr) => csr.spec.signerName,
  },
  ...certificateSigningRequestValidation,
};

/**
 * apiregistration.k8s.io/v1 APIService, which the recorded OpenAPI v2 document describes but no
 * recorded v3 document carries: its definitions in v3 form (checked against the recorded v2 ones by
 * test/unit/openapi-apiregistration.test.ts), its paths as the ValidatingAdmissionPolicy paths
 * (cluster-scoped with a status subresource, the same operations) under its own names, and its
 * group document as admissionregistration.k8s.io's.
 */
import type { OpenApiData, PathData, Schema } from '../src/openapi/data.js';

const AR = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

const ref = (name: string, nonPointer = false): Schema =>
  ({ ...(nonPointer ? { default: {} } : {}), allOf: [{ $ref: `#/components/schemas/${name}` }] });
const str = (): Schema => ({ type: 'string' });
const reqStr = (): Schema => ({ type: 'string', default: '' });
const int32 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int32', ...extra });
const obj = (properties: Record<string, Schema>, required?: string[], extra: Schema = {}): Schema =>
  ({ type: 'object', ...(required ? { required } : {}), properties, ...extra });
const gvk = (kind: string): Schema => ({ 'x-kubernetes-group-version-kind': [{ group: 'apiregistration.k8s.io', kind, version: 'v1' }] });

/** Written from kube-aggregator v0.32 pkg/apis/apiregistration/v1/types.go. */
export const APISERVICE_DEFS: Record<string, Schema> = {
  [`${AR}APIService`]: obj({
    apiVersion: str(), kind: str(), metadata: ref(`${META}ObjectMeta`, true),
    spec: ref(`${AR}APIServiceSpec`, true), status: ref(`${AR}APIServiceStatus`, true),
  }, undefined, gvk('APIService')),
  [`${AR}APIServiceCondition`]: obj({
    lastTransitionTime: ref(`${META}Time`), message: str(), reason: str(), status: reqStr(), type: reqStr(),
  }, ['type', 'status']),
  [`${AR}APIServiceList`]: obj({
    apiVersion: str(), items: { type: 'array', items: ref(`${AR}APIService`, true) }, kind: str(), metadata: ref(`${META}ListMeta`, true),
  }, ['items'], gvk('APIServiceList')),
  [`${AR}APIServiceSpec`]: obj({
    caBundle: { type: 'string', format: 'byte', 'x-kubernetes-list-type': 'atomic' },
    group: str(),
    groupPriorityMinimum: int32({ default: 0 }),
    insecureSkipTLSVerify: { type: 'boolean' },
    service: ref(`${AR}ServiceReference`),
    version: str(),
    versionPriority: int32({ default: 0 }),
  }, ['groupPriorityMinimum', 'versionPriority']),
  [`${AR}APIServiceStatus`]: obj({
    conditions: {
      type: 'array', items: ref(`${AR}APIServiceCondition`, true), 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-patch-strategy': 'merge',
    },
  }),
  [`${AR}ServiceReference`]: obj({ name: str(), namespace: str(), port: int32() }),
};

/** A ValidatingAdmissionPolicy name, operation id, tag or group-version-kind, as APIService's. */
function apiServiceText(text: string): string {
  return text
    .replaceAll('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy', `${AR}APIService`)
    .replaceAll('AdmissionregistrationV1ValidatingAdmissionPolicy', 'ApiregistrationV1APIService')
    .replaceAll('AdmissionregistrationV1', 'ApiregistrationV1')
    .replaceAll('AdmissionregistrationAPIGroup', 'ApiregistrationAPIGroup')
    .replaceAll('admissionregistration_v1', 'apiregistration_v1')
    .replaceAll('"admissionregistration"', '"apiregistration"')
    .replaceAll('"admissionregistration.k8s.io","v1","ValidatingAdmissionPolicy"', '"apiregistration.k8s.io","v1","APIService"')
    .replaceAll('validatingadmissionpolicies', 'apiservices')
    .replaceAll('admissionregistration.k8s.io', 'apiregistration.k8s.io')
    .replaceAll('ValidatingAdmissionPolicy', 'APIService');
}

/** Adds the definitions, the apiregistration.k8s.io/v1 document and the group's document. */
export function addAPIService(data: OpenApiData): void {
  for (const [name, schema] of Object.entries(APISERVICE_DEFS)) {
    if (data.defs[name]) throw new Error(`${name} already exists in the recorded documents`);
    data.defs[name] = schema;
  }
  const ar = data.docs['apis/admissionregistration.k8s.io/v1'];
  const group = data.docs['apis/admissionregistration.k8s.io'];
  if (!ar || !group) throw new Error('no admissionregistration.k8s.io documents to copy paths from');
  const base = '/apis/admissionregistration.k8s.io/v1';
  const doc: Record<string, PathData> = {};
  for (const suffix of ['/', '/validatingadmissionpolicies', '/validatingadmissionpolicies/{name}', '/validatingadmissionpolicies/{name}/status',
    '/watch/validatingadmissionpolicies', '/watch/validatingadmissionpolicies/{name}']) {
    const item = ar[`${base}${suffix}`];
    if (!item) throw new Error(`no ${base}${suffix} path to copy`);
    doc[apiServiceText(`${base}${suffix}`)] = JSON.parse(apiServiceText(JSON.stringify(item))) as PathData;
  }
  data.docs['apis/apiregistration.k8s.io/v1'] = doc;
  data.docs['apis/apiregistration.k8s.io'] = JSON.parse(apiServiceText(JSON.stringify(group))) as Record<string, PathData>;
}

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (GA in v1.30, after the recording): their definitions, written from k8s.io/api
 * admissionregistration/v1 types.go of v1.32 (list types, map types, enums, required fields;
 * structure only), and their paths, as the recorded ValidatingWebhookConfiguration paths
 * of the same group version under the new names, with a status subresource as FlowSchema's.
 */
import type { OpenApiData, PathData, Schema } from '../src/openapi/data.js';

const AR = 'io.k8s.api.admissionregistration.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

const ref = (name: string, nonPointer = false): Schema =>
  ({ ...(nonPointer ? { default: {} } : {}), allOf: [{ $ref: `#/components/schemas/${name}` }] });
const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const reqStr = (): Schema => ({ type: 'string', default: '' });
const atomicList = (items: Schema): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' });
const strings = (): Schema => atomicList({ type: 'string', default: '' });
const obj = (properties: Record<string, Schema>, required?: string[], extra: Schema = {}): Schema =>
  ({ type: 'object', ...(required ? { required } : {}), properties, ...extra });
const atomic = { 'x-kubernetes-map-type': 'atomic' };
const gvk = (kind: string): Schema => ({ 'x-kubernetes-group-version-kind': [{ group: 'admissionregistration.k8s.io', kind, version: 'v1' }] });

const topLevel = (kind: string, fields: Record<string, Schema>): Schema =>
  obj({ apiVersion: str(), kind: str(), metadata: ref(`${META}ObjectMeta`, true), ...fields }, undefined, gvk(kind));
const list = (kind: string): Schema => obj({
  apiVersion: str(), items: { type: 'array', items: ref(`${AR}${kind}`, true) }, kind: str(), metadata: ref(`${META}ListMeta`, true),
}, ['items'], gvk(`${kind}List`));

export const VALIDATING_ADMISSION_POLICY_DEFS: Record<string, Schema> = {
  [`${AR}AuditAnnotation`]: obj({ key: reqStr(), valueExpression: reqStr() }, ['key', 'valueExpression']),
  [`${AR}ExpressionWarning`]: obj({ fieldRef: reqStr(), warning: reqStr() }, ['fieldRef', 'warning']),
  [`${AR}MatchCondition`]: obj({ expression: reqStr(), name: reqStr() }, ['name', 'expression']),
  [`${AR}MatchResources`]: obj({
    excludeResourceRules: atomicList(ref(`${AR}NamedRuleWithOperations`, true)),
    matchPolicy: str({ enum: ['Equivalent', 'Exact'] }),
    namespaceSelector: ref(`${META}LabelSelector`),
    objectSelector: ref(`${META}LabelSelector`),
    resourceRules: atomicList(ref(`${AR}NamedRuleWithOperations`, true)),
  }, undefined, atomic),
  [`${AR}NamedRuleWithOperations`]: obj({
    apiGroups: strings(), apiVersions: strings(), operations: strings(), resourceNames: strings(), resources: strings(), scope: str(),
  }, undefined, atomic),
  [`${AR}ParamKind`]: obj({ apiVersion: str(), kind: str() }, undefined, atomic),
  [`${AR}ParamRef`]: obj({ name: str(), namespace: str(), parameterNotFoundAction: str(), selector: ref(`${META}LabelSelector`) }, undefined, atomic),
  [`${AR}TypeChecking`]: obj({ expressionWarnings: atomicList(ref(`${AR}ExpressionWarning`, true)) }),
  [`${AR}ValidatingAdmissionPolicy`]: topLevel('ValidatingAdmissionPolicy', {
    spec: ref(`${AR}ValidatingAdmissionPolicySpec`, true), status: ref(`${AR}ValidatingAdmissionPolicyStatus`, true),
  }),
  [`${AR}ValidatingAdmissionPolicyBinding`]: topLevel('ValidatingAdmissionPolicyBinding', { spec: ref(`${AR}ValidatingAdmissionPolicyBindingSpec`, true) }),
  [`${AR}ValidatingAdmissionPolicyBindingList`]: list('ValidatingAdmissionPolicyBinding'),
  [`${AR}ValidatingAdmissionPolicyBindingSpec`]: obj({
    matchResources: ref(`${AR}MatchResources`), paramRef: ref(`${AR}ParamRef`), policyName: str(),
    validationActions: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set' },
  }),
  [`${AR}ValidatingAdmissionPolicyList`]: list('ValidatingAdmissionPolicy'),
  [`${AR}ValidatingAdmissionPolicySpec`]: obj({
    auditAnnotations: atomicList(ref(`${AR}AuditAnnotation`, true)),
    failurePolicy: str({ enum: ['Fail', 'Ignore'] }),
    matchConditions: {
      type: 'array', items: ref(`${AR}MatchCondition`, true), 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
    },
    matchConstraints: ref(`${AR}MatchResources`),
    paramKind: ref(`${AR}ParamKind`),
    validations: atomicList(ref(`${AR}Validation`, true)),
    variables: atomicList(ref(`${AR}Variable`, true)),
  }),
  [`${AR}ValidatingAdmissionPolicyStatus`]: obj({
    conditions: { type: 'array', items: ref(`${META}Condition`, true), 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-list-type': 'map' },
    observedGeneration: { type: 'integer', format: 'int64' },
    typeChecking: ref(`${AR}TypeChecking`),
  }),
  [`${AR}Validation`]: obj({ expression: reqStr(), message: str(), messageExpression: str(), reason: str() }, ['expression']),
  [`${AR}Variable`]: obj({ expression: reqStr(), name: reqStr() }, ['name', 'expression'], atomic),
};

/** A recorded path item under the new kind's names. */
function renamed(item: PathData, from: { kind: string; plural: string }, to: { kind: string; plural: string }): PathData {
  return JSON.parse(JSON.stringify(item).replaceAll(from.kind, to.kind).replaceAll(from.plural, to.plural)) as PathData;
}

/** The two resources' paths in the admissionregistration.k8s.io/v1 document. */
export function addValidatingAdmissionPolicyPaths(data: OpenApiData): void {
  const doc = data.docs['apis/admissionregistration.k8s.io/v1'];
  const fc = data.docs['apis/flowcontrol.apiserver.k8s.io/v1'];
  if (!doc || !fc) throw new Error('no admissionregistration.k8s.io/v1 or flowcontrol.apiserver.k8s.io/v1 document to copy paths from');
  const base = '/apis/admissionregistration.k8s.io/v1';
  const webhook = { kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations' };
  for (const to of [{ kind: 'ValidatingAdmissionPolicy', plural: 'validatingadmissionpolicies' },
    { kind: 'ValidatingAdmissionPolicyBinding', plural: 'validatingadmissionpolicybindings' }]) {
    for (const suffix of ['', '/{name}']) {
      for (const prefix of ['', '/watch']) {
        const item = doc[`${base}${prefix}/${webhook.plural}${suffix}`];
        if (!item) throw new Error(`no ${prefix}/${webhook.plural}${suffix} path to copy`);
        doc[`${base}${prefix}/${to.plural}${suffix}`] = renamed(item, webhook, to);
      }
    }
  }
  const status = fc['/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/{name}/status'];
  if (!status) throw new Error('no flowschemas status path to copy');
  const text = JSON.stringify(status)
    .replaceAll('io.k8s.api.flowcontrol.v1.FlowSchema', `${AR}ValidatingAdmissionPolicy`)
    .replaceAll('FlowcontrolApiserverV1FlowSchema', 'AdmissionregistrationV1ValidatingAdmissionPolicy')
    .replaceAll('flowcontrolApiserver_v1', 'admissionregistration_v1')
    .replaceAll('"flowcontrol.apiserver.k8s.io","v1","FlowSchema"', '"admissionregistration.k8s.io","v1","ValidatingAdmissionPolicy"');
  doc[`${base}/validatingadmissionpolicies/{name}/status`] = JSON.parse(text) as PathData;
  data.docs['apis/admissionregistration.k8s.io/v1'] = Object.fromEntries(Object.entries(doc).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

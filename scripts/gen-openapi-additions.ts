/**
 * What changed in the served kinds' structure between the recorded documents
 * (v1.27.0-alpha, January 2023) and v1.32: fields, types and query parameters
 * added, fields removed. Written here by hand from the API changes of each
 * release (k8s.io/api types of v1.28 to v1.32, cross-checked against the field
 * lists of kubernetes-types 1.30 and @kubernetes/client-node 1.4); structure
 * only, no descriptions. gen-openapi.ts applies it to the compact data.
 */
import type { OpenApiData, ParamData, Schema } from '../src/openapi/data.js';
import { addFlowcontrolV1, flowcontrolV1Text } from './flowcontrol-v1.js';
import { addAPIService } from './apiservice-v1.js';
import { addValidatingAdmissionPolicyPaths, VALIDATING_ADMISSION_POLICY_DEFS } from './validating-admission-policy-v1.js';

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

const ref = (name: string, nonPointer = false): Schema =>
  ({ ...(nonPointer ? { default: {} } : {}), allOf: [{ $ref: `#/components/schemas/${name}` }] });
const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const reqStr = (): Schema => ({ type: 'string', default: '' });
const int32 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int32', ...extra });
const int64 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int64', ...extra });
const bool = (): Schema => ({ type: 'boolean' });
const quantities = (): Schema => ({ type: 'object', additionalProperties: ref(QUANTITY, true) });
const atomicList = (items: Schema): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' });
const strings = (): Schema => atomicList({ type: 'string', default: '' });
const obj = (properties: Record<string, Schema>, required?: string[]): Schema =>
  ({ type: 'object', ...(required ? { required } : {}), properties });

/** Definitions new since the recording. */
const NEW_DEFS: Record<string, Schema> = {
  [`${CORE}AppArmorProfile`]: {
    ...obj({ localhostProfile: str(), type: { type: 'string', default: '', enum: ['Localhost', 'RuntimeDefault', 'Unconfined'] } }, ['type']),
    'x-kubernetes-unions': [{ discriminator: 'type', 'fields-to-discriminateBy': { localhostProfile: 'LocalhostProfile' } }],
  },
  [`${CORE}ClusterTrustBundleProjection`]: obj({
    labelSelector: ref(`${META}LabelSelector`), name: str(), optional: bool(), path: reqStr(), signerName: str(),
  }, ['path']),
  [`${CORE}ContainerResizePolicy`]: obj({ resourceName: reqStr(), restartPolicy: reqStr() }, ['resourceName', 'restartPolicy']),
  [`${CORE}ContainerUser`]: obj({ linux: ref(`${CORE}LinuxContainerUser`) }),
  [`${CORE}HostIP`]: obj({ ip: reqStr() }, ['ip']),
  [`${CORE}ImageVolumeSource`]: obj({ pullPolicy: str({ enum: ['Always', 'IfNotPresent', 'Never'] }), reference: str() }),
  [`${CORE}LinuxContainerUser`]: obj({
    gid: int64({ default: 0 }), supplementalGroups: atomicList(int64({ default: 0 })), uid: int64({ default: 0 }),
  }, ['uid', 'gid']),
  [`${CORE}ModifyVolumeStatus`]: obj({
    status: { type: 'string', default: '', enum: ['InProgress', 'Infeasible', 'Pending'] }, targetVolumeAttributesClassName: str(),
  }, ['status']),
  [`${CORE}NodeFeatures`]: obj({ supplementalGroupsPolicy: bool() }),
  [`${CORE}NodeRuntimeHandler`]: obj({ features: ref(`${CORE}NodeRuntimeHandlerFeatures`), name: reqStr() }),
  [`${CORE}NodeRuntimeHandlerFeatures`]: obj({ recursiveReadOnlyMounts: bool(), userNamespaces: bool() }),
  [`${CORE}NodeSwapStatus`]: obj({ capacity: int64() }),
  [`${CORE}PodResourceClaimStatus`]: obj({ name: reqStr(), resourceClaimName: str() }, ['name']),
  [`${CORE}ResourceHealth`]: obj({ health: str(), resourceID: reqStr() }, ['resourceID']),
  [`${CORE}ResourceStatus`]: obj({
    name: reqStr(),
    resources: { type: 'array', items: ref(`${CORE}ResourceHealth`, true), 'x-kubernetes-list-map-keys': ['resourceID'], 'x-kubernetes-list-type': 'map' },
  }, ['name']),
  [`${CORE}SleepAction`]: obj({ seconds: int64({ default: 0 }) }, ['seconds']),
  [`${CORE}VolumeMountStatus`]: obj({ mountPath: reqStr(), name: reqStr(), readOnly: bool(), recursiveReadOnly: str() }, ['name', 'mountPath']),
  [`${CORE}VolumeResourceRequirements`]: obj({ limits: quantities(), requests: quantities() }),
  'io.k8s.api.batch.v1.SuccessPolicy': obj({ rules: atomicList(ref('io.k8s.api.batch.v1.SuccessPolicyRule', true)) }, ['rules']),
  'io.k8s.api.batch.v1.SuccessPolicyRule': obj({ succeededCount: int32(), succeededIndexes: str() }),
  [`${META}FieldSelectorRequirement`]: obj({ key: reqStr(), operator: reqStr(), values: strings() }, ['key', 'operator']),
  'io.k8s.api.authorization.v1.FieldSelectorAttributes': obj({
    rawSelector: str(), requirements: atomicList(ref(`${META}FieldSelectorRequirement`, true)),
  }),
  'io.k8s.api.authorization.v1.LabelSelectorAttributes': obj({
    rawSelector: str(), requirements: atomicList(ref(`${META}LabelSelectorRequirement`, true)),
  }),
  'io.k8s.api.authentication.v1.SelfSubjectReview': {
    ...obj({
      apiVersion: str(), kind: str(), metadata: ref(`${META}ObjectMeta`, true),
      status: ref('io.k8s.api.authentication.v1.SelfSubjectReviewStatus', true),
    }),
    'x-kubernetes-group-version-kind': [{ group: 'authentication.k8s.io', kind: 'SelfSubjectReview', version: 'v1' }],
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.SelectableField': obj({ jsonPath: reqStr() }, ['jsonPath']),
  'io.k8s.api.authentication.v1.SelfSubjectReviewStatus': obj({ userInfo: ref('io.k8s.api.authentication.v1.UserInfo', true) }),
  'io.k8s.api.admissionregistration.v1.MatchCondition': obj({ expression: reqStr(), name: reqStr() }, ['name', 'expression']),
};

/** Webhooks' CEL match conditions (v1.27 alpha, GA in v1.30): a list keyed by name. */
const matchConditions = (): Schema => ({
  type: 'array', items: ref('io.k8s.api.admissionregistration.v1.MatchCondition', true),
  'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map',
  'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
});

/** Properties added (a schema) or removed (null) per existing definition. */
const PROPS: Record<string, Record<string, Schema | null>> = {
  [`${CORE}Container`]: {
    resizePolicy: atomicList(ref(`${CORE}ContainerResizePolicy`, true)),
    restartPolicy: str(),
  },
  [`${CORE}EphemeralContainer`]: {
    resizePolicy: atomicList(ref(`${CORE}ContainerResizePolicy`, true)),
    restartPolicy: str(),
  },
  [`${CORE}ContainerStatus`]: {
    allocatedResources: quantities(),
    allocatedResourcesStatus: {
      type: 'array', items: ref(`${CORE}ResourceStatus`, true),
      'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
    },
    resources: ref(`${CORE}ResourceRequirements`),
    user: ref(`${CORE}ContainerUser`),
    volumeMounts: {
      type: 'array', items: ref(`${CORE}VolumeMountStatus`, true), 'x-kubernetes-list-type': 'atomic',
      'x-kubernetes-patch-merge-key': 'mountPath', 'x-kubernetes-patch-strategy': 'merge',
    },
  },
  [`${CORE}LifecycleHandler`]: { sleep: ref(`${CORE}SleepAction`) },
  [`${CORE}LoadBalancerIngress`]: { ipMode: str() },
  [`${CORE}NodeStatus`]: {
    features: ref(`${CORE}NodeFeatures`),
    runtimeHandlers: atomicList(ref(`${CORE}NodeRuntimeHandler`, true)),
  },
  [`${CORE}NodeSystemInfo`]: { swap: ref(`${CORE}NodeSwapStatus`) },
  [`${CORE}PersistentVolumeClaimSpec`]: {
    resources: ref(`${CORE}VolumeResourceRequirements`, true),
    volumeAttributesClassName: str(),
  },
  [`${CORE}PersistentVolumeClaimStatus`]: {
    allocatedResourceStatuses: { type: 'object', additionalProperties: { type: 'string', default: '' }, 'x-kubernetes-map-type': 'granular' },
    currentVolumeAttributesClassName: str(),
    modifyVolumeStatus: ref(`${CORE}ModifyVolumeStatus`),
    resizeStatus: null,
  },
  [`${CORE}PersistentVolumeSpec`]: { volumeAttributesClassName: str() },
  [`${CORE}PersistentVolumeStatus`]: { lastPhaseTransitionTime: ref(`${META}Time`) },
  [`${CORE}PodAffinityTerm`]: { matchLabelKeys: strings(), mismatchLabelKeys: strings() },
  [`${CORE}PodResourceClaim`]: { resourceClaimName: str(), resourceClaimTemplateName: str(), source: null },
  [`${CORE}PodSecurityContext`]: {
    appArmorProfile: ref(`${CORE}AppArmorProfile`),
    seLinuxChangePolicy: str(),
    supplementalGroupsPolicy: str({ enum: ['Merge', 'Strict'] }),
  },
  [`${CORE}PodSpec`]: { resources: ref(`${CORE}ResourceRequirements`) },
  [`${CORE}PodStatus`]: {
    hostIPs: {
      type: 'array', items: ref(`${CORE}HostIP`, true), 'x-kubernetes-list-type': 'atomic',
      'x-kubernetes-patch-merge-key': 'ip', 'x-kubernetes-patch-strategy': 'merge',
    },
    resize: str(),
    resourceClaimStatuses: {
      type: 'array', items: ref(`${CORE}PodResourceClaimStatus`, true),
      'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge,retainKeys',
    },
  },
  [`${CORE}ResourceClaim`]: { request: str() },
  [`${CORE}SecurityContext`]: { appArmorProfile: ref(`${CORE}AppArmorProfile`) },
  [`${CORE}ServiceSpec`]: { trafficDistribution: str() },
  [`${CORE}Volume`]: { image: ref(`${CORE}ImageVolumeSource`) },
  [`${CORE}VolumeMount`]: { recursiveReadOnly: str() },
  [`${CORE}VolumeProjection`]: { clusterTrustBundle: ref(`${CORE}ClusterTrustBundleProjection`) },
  'io.k8s.api.batch.v1.JobSpec': {
    backoffLimitPerIndex: int32(),
    managedBy: str(),
    maxFailedIndexes: int32(),
    podReplacementPolicy: str({ enum: ['Failed', 'TerminatingOrFailed'] }),
    successPolicy: ref('io.k8s.api.batch.v1.SuccessPolicy'),
  },
  'io.k8s.api.batch.v1.JobStatus': { failedIndexes: str(), terminating: int32() },
  'io.k8s.api.coordination.v1.LeaseSpec': { preferredHolder: str(), strategy: str() },
  'io.k8s.api.authorization.v1.ResourceAttributes': {
    fieldSelector: ref('io.k8s.api.authorization.v1.FieldSelectorAttributes'),
    labelSelector: ref('io.k8s.api.authorization.v1.LabelSelectorAttributes'),
  },
  [`${META}DeleteOptions`]: { ignoreStoreReadErrorWithClusterBreakingPotential: bool() },
  // CEL validation rules' messageExpression (v1.27), reason and fieldPath (v1.28), optionalOldSelf (v1.29); selectable fields (v1.30).
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ValidationRule': {
    fieldPath: str(), messageExpression: str(), optionalOldSelf: bool(),
    reason: str({ enum: ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'] }),
  },
  // v1.28 removed NetworkPolicyStatus (the alpha NetworkPolicyStatus gate).
  'io.k8s.api.networking.v1.NetworkPolicy': { status: null },
  'io.k8s.api.admissionregistration.v1.MutatingWebhook': { matchConditions: matchConditions() },
  'io.k8s.api.admissionregistration.v1.ValidatingWebhook': { matchConditions: matchConditions() },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion': {
    selectableFields: atomicList(ref('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.SelectableField', true)),
  },
};

/** networking.k8s.io/v1 lists marked +listType=atomic since the recording (k8s.io/api v0.27 to v0.32). */
const NETWORKING_ATOMIC_LISTS: [string, string][] = [
  ['NetworkPolicySpec', 'ingress'], ['NetworkPolicySpec', 'egress'], ['NetworkPolicySpec', 'policyTypes'],
  ['NetworkPolicyIngressRule', 'ports'], ['NetworkPolicyIngressRule', 'from'],
  ['NetworkPolicyEgressRule', 'ports'], ['NetworkPolicyEgressRule', 'to'], ['IPBlock', 'except'],
  ['IngressSpec', 'tls'], ['IngressSpec', 'rules'], ['IngressTLS', 'hosts'], ['IngressLoadBalancerStatus', 'ingress'],
  ['IngressLoadBalancerIngress', 'ports'], ['HTTPIngressRuleValue', 'paths'],
];

/** Other per-definition edits: required lists and enums that changed. */
function editDefs(defs: Record<string, Schema>): void {
  for (const [def, prop] of NETWORKING_ATOMIC_LISTS) {
    const props = (defs[`io.k8s.api.networking.v1.${def}`] as { properties?: Record<string, Schema> } | undefined)?.properties;
    const list = props?.[prop];
    if (!props || !list) throw new Error(`no networking.v1.${def}.${prop} to mark atomic`);
    props[prop] = { ...list, 'x-kubernetes-list-type': 'atomic' };
  }
  const rule = defs['io.k8s.api.batch.v1.PodFailurePolicyRule'] as { required?: string[]; properties: Record<string, Schema> };
  // v1.29: onPodConditions became optional; v1.28: the FailIndex action.
  rule.required = ['action'];
  rule.properties.action = { ...rule.properties.action, enum: ['Count', 'FailIndex', 'FailJob', 'Ignore'] };
  delete defs[`${CORE}ClaimSource`];
  delete defs['io.k8s.api.networking.v1.NetworkPolicyStatus'];
}

const sortObject = <T>(o: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function paramIndex(data: OpenApiData, p: ParamData): number {
  const key = JSON.stringify(p);
  let i = data.params.findIndex((x) => JSON.stringify(x) === key);
  if (i < 0) { i = data.params.length; data.params.push(p); }
  return i;
}

/**
 * List and watch operations gained sendInitialEvents (v1.27, after the
 * recording); selfsubjectreviews (authentication.k8s.io/v1, v1.28) answers
 * like tokenreviews.
 */
function editPaths(data: OpenApiData): void {
  const rvMatch = data.params.findIndex((p) => p.name === 'resourceVersionMatch');
  const sendInitialEvents = paramIndex(data, { name: 'sendInitialEvents', in: 'query', schema: { type: 'boolean', uniqueItems: true } });
  for (const paths of Object.values(data.docs)) {
    for (const item of Object.values(paths)) {
      for (const list of [item.params, ...Object.values(item.ops).map((o) => o.params)]) {
        const at = list?.indexOf(rvMatch) ?? -1;
        if (list && at >= 0 && !list.includes(sendInitialEvents)) list.splice(at + 1, 0, sendInitialEvents);
      }
    }
  }
  // networkpolicies/status went with NetworkPolicyStatus (v1.28).
  delete data.docs['apis/networking.k8s.io/v1']?.['/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/{name}/status'];
  const authn = data.docs['apis/authentication.k8s.io/v1'];
  const tokenReviews = authn?.['/apis/authentication.k8s.io/v1/tokenreviews'];
  const post = tokenReviews?.ops.post;
  if (tokenReviews && post) {
    const ssr = 'io.k8s.api.authentication.v1.SelfSubjectReview';
    const responses = Object.fromEntries(Object.entries(post.responses).map(([c, r]) => [c, r === null ? null : ssr]));
    authn['/apis/authentication.k8s.io/v1/selfsubjectreviews'] = {
      ...(tokenReviews.params ? { params: tokenReviews.params } : {}),
      ops: { post: { ...post, operationId: 'createAuthenticationV1SelfSubjectReview', gvk: ['authentication.k8s.io', 'v1', 'SelfSubjectReview'], body: ssr, responses } },
    };
    data.docs['apis/authentication.k8s.io/v1'] = sortObject(authn);
  }
}

/** flowcontrol.apiserver.k8s.io/v1 in place of the recorded v1beta3 (gone in v1.32). */
function promoteFlowcontrol(data: OpenApiData): void {
  const from = 'apis/flowcontrol.apiserver.k8s.io/v1beta3';
  data.docs['apis/flowcontrol.apiserver.k8s.io/v1'] = JSON.parse(flowcontrolV1Text(JSON.stringify(data.docs[from])));
  delete data.docs[from];
  addFlowcontrolV1(data.defs, false);
  addFlowcontrolV1Texts(data.defsV2);
}

/** defsV2 entries are few; any of v1beta3 are renamed. */
function addFlowcontrolV1Texts(defs: Record<string, Schema>): void {
  for (const name of Object.keys(defs).filter((n) => n.includes('flowcontrol.v1beta3.'))) {
    defs[flowcontrolV1Text(name)] = JSON.parse(flowcontrolV1Text(JSON.stringify(defs[name])));
    delete defs[name];
  }
}

export function applyAdditions(data: OpenApiData): void {
  promoteFlowcontrol(data);
  for (const [name, schema] of Object.entries({ ...NEW_DEFS, ...VALIDATING_ADMISSION_POLICY_DEFS })) {
    if (data.defs[name]) throw new Error(`${name} already exists in the recorded documents`);
    data.defs[name] = schema;
  }
  for (const [name, props] of Object.entries(PROPS)) {
    const def = data.defs[name] as { properties?: Record<string, Schema>; required?: string[] } | undefined;
    if (!def?.properties) throw new Error(`no definition ${name} to add fields to`);
    for (const [p, s] of Object.entries(props)) {
      if (s === null) {
        if (!def.properties[p]) throw new Error(`${name}.${p} does not exist`);
        delete def.properties[p];
        if (def.required) def.required = def.required.filter((r) => r !== p);
      } else {
        if (def.properties[p] && p !== 'resources') throw new Error(`${name}.${p} already exists`);
        def.properties[p] = s;
      }
    }
    def.properties = sortObject(def.properties);
  }
  editDefs(data.defs);
  editPaths(data);
  addValidatingAdmissionPolicyPaths(data);
  addAPIService(data);
  data.defs = sortObject(data.defs);
  data.version = 'v1.32.0';
}

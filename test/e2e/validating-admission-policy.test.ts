/**
 * ValidatingAdmissionPolicy with real kubectl: a policy requiring `kubernetes.io/os` in every
 * Windows pod's nodeSelector denies (Deny binding) and warns (Warn binding) with its message
 * expression; parameters from a ConfigMap through paramKind; a binding scoped by namespaceSelector;
 * policies and bindings that upstream refuses, refused with its texts.
 *
 * A pod is a Windows pod when `spec.os.name` is `windows`: the field a pod declares its OS with, which
 * the API server itself validates against (PodSecurity, the Windows-only fields), unlike an image
 * name or a node selector, which is what the policy asks for.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlFails, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

/** The policy of the issue; `ns` limits it to one namespace so that the tests do not see each other's policies. */
const windowsPolicy = (name: string, ns: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: ${ns}
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]
  validations:
  - expression: "!has(object.spec.os) || object.spec.os.name != 'windows' || (has(object.spec.nodeSelector) && 'kubernetes.io/os' in object.spec.nodeSelector && object.spec.nodeSelector['kubernetes.io/os'] == 'windows')"
    messageExpression: "'Windows pod ' + object.metadata.name + ' must set nodeSelector kubernetes.io/os=windows'"
`;

const binding = (name: string, policy: string, actions: string, extra = '') => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policy}
  validationActions: [${actions}]
${extra}`;

const pod = (name: string, ns: string, spec: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
${spec}`;

const WINDOWS = '  os:\n    name: windows\n';
const WINDOWS_SELECTED = `${WINDOWS}  nodeSelector:\n    kubernetes.io/os: windows\n`;

test('a Deny binding refuses a Windows pod without the OS nodeSelector with the policy\'s message expression', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'vap-deny']);
  await kubectlOk(cluster, ['apply', '-f', '-'], `${windowsPolicy('windows-os', 'vap-deny')}---\n${binding('windows-os-deny', 'windows-os', 'Deny')}`);
  const err = await kubectlFails(cluster, ['create', '-f', '-'], pod('web', 'vap-deny', WINDOWS));
  assert.equal(err.trim(), 'The pods "web" is invalid: : ValidatingAdmissionPolicy \'windows-os\' with binding \'windows-os-deny\' denied request: '
    + 'Windows pod web must set nodeSelector kubernetes.io/os=windows');
  await kubectlOk(cluster, ['create', '-f', '-'], pod('web', 'vap-deny', WINDOWS_SELECTED));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('linux', 'vap-deny', '  os:\n    name: linux\n'));

  // The Status: NewForbidden's message, the validation's reason (Invalid by default) and its code, the message as a cause.
  const r = await rawJSON(cluster, 'POST', '/api/v1/namespaces/vap-deny/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'raw' }, spec: { os: { name: 'windows' }, containers: [{ name: 'app', image: 'x' }] },
  });
  const message = 'ValidatingAdmissionPolicy \'windows-os\' with binding \'windows-os-deny\' denied request: Windows pod raw must set nodeSelector kubernetes.io/os=windows';
  assert.equal(r.status, 422);
  assert.deepEqual(r.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `pods "raw" is forbidden: ${message}`, reason: 'Invalid',
    details: { name: 'raw', kind: 'pods', causes: [{ message }] }, code: 422,
  });
});

test('a policy on DELETE sees the object being deleted as oldObject, and request.options is the DeleteOptions', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'vap-delete']);
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: protected-configmaps
spec:
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: vap-delete
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["DELETE"]
      resources: ["configmaps"]
  validations:
  - expression: "object == null && !(has(oldObject.metadata.labels) && 'protected' in oldObject.metadata.labels) || has(request.options.gracePeriodSeconds) && request.options.gracePeriodSeconds == 0"
    messageExpression: "'configmap ' + oldObject.metadata.name + ' is protected (' + request.operation + ', ' + request.options.kind + ')'"
---
${binding('protected-configmaps', 'protected-configmaps', 'Deny')}`);
  await kubectlOk(cluster, ['-n', 'vap-delete', 'create', 'configmap', 'keep']);
  await kubectlOk(cluster, ['-n', 'vap-delete', 'label', 'configmap', 'keep', 'protected=yes']);
  await kubectlOk(cluster, ['-n', 'vap-delete', 'create', 'configmap', 'scratch']);
  const refused = await kubectlFails(cluster, ['-n', 'vap-delete', 'delete', 'configmap', 'keep']);
  // kubectl prints a 422 by its causes, as for the pod above.
  assert.equal(refused.trim(), 'The configmaps "keep" is invalid: : ValidatingAdmissionPolicy \'protected-configmaps\' '
    + 'with binding \'protected-configmaps\' denied request: configmap keep is protected (DELETE, DeleteOptions)');
  await kubectlOk(cluster, ['-n', 'vap-delete', 'get', 'configmap', 'keep']);
  await kubectlOk(cluster, ['-n', 'vap-delete', 'delete', 'configmap', 'scratch']);
  // The DeleteOptions the request gave are what request.options holds.
  await kubectlOk(cluster, ['-n', 'vap-delete', 'delete', 'configmap', 'keep', '--grace-period=0', '--force']);
});

test('a Warn binding admits the pod and kubectl prints the policy\'s warning', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'vap-warn']);
  await kubectlOk(cluster, ['apply', '-f', '-'], `${windowsPolicy('windows-os-warn', 'vap-warn')}---\n${binding('windows-os-warn', 'windows-os-warn', 'Warn, Audit')}`);
  const r = await kubectl(cluster, ['create', '-f', '-'], { input: pod('web', 'vap-warn', WINDOWS) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'pod/web created');
  assert.equal(r.stderr.trim(), 'Warning: Validation failed for ValidatingAdmissionPolicy \'windows-os-warn\' with binding \'windows-os-warn\': '
    + 'Windows pod web must set nodeSelector kubernetes.io/os=windows');
});

const replicasPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: vap-params
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: max
    expression: "int(params.data.maxReplicas)"
  validations:
  - expression: "object.spec.replicas <= variables.max"
    messageExpression: "'replicas must be no greater than ' + string(variables.max)"
    reason: Forbidden
`;

test('params from a ConfigMap through paramKind and paramRef, a missing one refused with parameterNotFoundAction Deny', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'vap-params']);
  await kubectlOk(cluster, ['apply', '-f', '-'], `${replicasPolicy}---\n${binding('max-replicas', 'max-replicas', 'Deny',
    '  paramRef:\n    name: replica-limit\n    parameterNotFoundAction: Deny\n')}`);
  const missing = await kubectlFails(cluster, ['-n', 'vap-params', 'create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
  // kubectl create deployment prints the Status message (NewForbidden's), whatever the reason (Invalid here).
  assert.equal(missing.trim(), 'error: failed to create deployment: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy \'max-replicas\' '
    + 'with binding \'max-replicas\' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction');
  await kubectlOk(cluster, ['-n', 'vap-params', 'create', 'configmap', 'replica-limit', '--from-literal=maxReplicas=3']);
  const tooMany = await kubectlFails(cluster, ['-n', 'vap-params', 'create', 'deployment', 'web', '--image=nginx', '--replicas=5']);
  assert.equal(tooMany.trim(), 'error: failed to create deployment: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy \'max-replicas\' '
    + 'with binding \'max-replicas\' denied request: replicas must be no greater than 3');
  await kubectlOk(cluster, ['-n', 'vap-params', 'create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
  // A changed ConfigMap is read at the next write.
  await kubectlOk(cluster, ['-n', 'vap-params', 'patch', 'configmap', 'replica-limit', '-p', '{"data":{"maxReplicas":"1"}}']);
  const patched = await kubectlFails(cluster, ['-n', 'vap-params', 'patch', 'deployment', 'web', '-p', '{"spec":{"replicas":2}}']);
  assert.equal(patched.trim(), 'Error from server (Forbidden): deployments.apps "web" is forbidden: ValidatingAdmissionPolicy \'max-replicas\' '
    + 'with binding \'max-replicas\' denied request: replicas must be no greater than 1');
});

test('a binding scoped by namespaceSelector judges only the namespaces it selects', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'vap-prod']);
  await kubectlOk(cluster, ['label', 'namespace', 'vap-prod', 'env=prod']);
  await kubectlOk(cluster, ['create', 'namespace', 'vap-dev']);
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: windows-os-any
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "!has(object.spec.os) || object.spec.os.name != 'windows' || (has(object.spec.nodeSelector) && 'kubernetes.io/os' in object.spec.nodeSelector)"
    message: Windows pods must select their OS
---
${binding('windows-os-prod', 'windows-os-any', 'Deny', '  matchResources:\n    namespaceSelector:\n      matchLabels:\n        env: prod\n')}`);
  const err = await kubectlFails(cluster, ['create', '-f', '-'], pod('web', 'vap-prod', WINDOWS));
  assert.equal(err.trim(), 'The pods "web" is invalid: : ValidatingAdmissionPolicy \'windows-os-any\' with binding \'windows-os-prod\' denied request: '
    + 'Windows pods must select their OS');
  await kubectlOk(cluster, ['create', '-f', '-'], pod('web', 'vap-dev', WINDOWS));
  await kubectlOk(cluster, ['delete', 'validatingadmissionpolicybinding', 'windows-os-prod']);
  await kubectlOk(cluster, ['create', '-f', '-'], pod('web', 'vap-prod', WINDOWS));
});

test('the policy is served with upstream\'s defaults; the status controller observes each generation', async () => {
  const r = await rawJSON(cluster, 'GET', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/windows-os');
  assert.equal(r.status, 200);
  assert.equal(r.body.metadata.generation, 1);
  assert.equal(r.body.spec.failurePolicy, 'Fail');
  assert.deepEqual(r.body.spec.matchConstraints, {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'vap-deny' } },
    objectSelector: {}, matchPolicy: 'Equivalent',
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'], scope: '*' }],
  });
  const observed = (generation: number) => eventually(`observedGeneration ${generation}`, async () => {
    const p = await rawJSON(cluster, 'GET', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/windows-os');
    return p.body.status?.observedGeneration === generation ? p.body.status : undefined;
  });
  assert.deepEqual(await observed(1), { observedGeneration: 1, typeChecking: {} });
  await kubectlOk(cluster, ['patch', 'validatingadmissionpolicy', 'windows-os', '--type=json', '-p', '[{"op":"add","path":"/spec/validations/0/message","value":"m"}]']);
  assert.deepEqual(await observed(2), { observedGeneration: 2, typeChecking: {} });
  // matchConditions merge by name in a strategic merge patch (patchStrategy merge, patchMergeKey name).
  for (const name of ['first', 'second']) {
    await kubectlOk(cluster, ['patch', 'validatingadmissionpolicy', 'windows-os', '-p', JSON.stringify({ spec: { matchConditions: [{ name, expression: 'true' }] } })]);
  }
  const merged = await rawJSON(cluster, 'GET', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/windows-os');
  assert.deepEqual(merged.body.spec.matchConditions.map((m: { name: string }) => m.name).sort(), ['first', 'second']);
});

test('bad policies and bindings are refused with upstream\'s texts', async () => {
  const badPolicy = await kubectlFails(cluster, ['create', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: bad
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "params.maxReplicas > 1"
    messageExpression: "authorizer.group('') == null"
    reason: Bogus
`);
  assert.equal(badPolicy.trim(), `The ValidatingAdmissionPolicy "bad" is invalid: 
* spec.validations[0].expression: Invalid value: "params.maxReplicas > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')
 | params.maxReplicas > 1
 | ^
* spec.validations[0].messageExpression: Invalid value: "authorizer.group('') == null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')
 | authorizer.group('') == null
 | ^
* spec.validations[0].reason: Unsupported value: "Bogus": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`);

  const empty = await kubectlFails(cluster, ['create', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: empty
spec:
  failurePolicy: Sometimes
  matchConstraints: {}
`);
  assert.equal(empty.trim(), `The ValidatingAdmissionPolicy "empty" is invalid: 
* spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"
* spec.matchConstraints.resourceRules: Required value
* spec.validations: Required value: validations or auditAnnotations must contain at least one item
* spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item`);

  const both = await kubectlFails(cluster, ['create', '-f', '-'], binding('both', 'windows-os', 'Deny, Warn, Deny'));
  assert.equal(both.trim(), `The ValidatingAdmissionPolicyBinding "both" is invalid: 
* spec.validationActions[2]: Duplicate value: "Deny"
* spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`);

  const noActions = await kubectlFails(cluster, ['create', '-f', '-'], binding('none', 'windows-os', '',
    '  paramRef:\n    name: a\n    selector: {}\n'));
  assert.equal(noActions.trim(), `The ValidatingAdmissionPolicyBinding "none" is invalid: 
* spec.paramRef.name: Forbidden: name and selector are mutually exclusive
* spec.paramRef.selector: Forbidden: name and selector are mutually exclusive
* spec.paramRef.parameterNotFoundAction: Required value
* spec.validationActions: Required value: at least one validation action is required`);
});

test('kubectl get prints upstream\'s columns for policies and bindings', async () => {
  const policies = await kubectlOk(cluster, ['get', 'validatingadmissionpolicies', 'max-replicas', 'windows-os']);
  assert.match(policies, /^NAME +VALIDATIONS +PARAMKIND +AGE\nmax-replicas +1 +v1\/ConfigMap +\d+s\nwindows-os +1 +<unset> +\d+s\n$/);
  const bindings = await kubectlOk(cluster, ['get', 'validatingadmissionpolicybindings', 'max-replicas', 'windows-os-deny']);
  assert.match(bindings, /^NAME +POLICYNAME +PARAMREF +AGE\nmax-replicas +max-replicas +\*\/replica-limit +\d+s\nwindows-os-deny +windows-os +<unset> +\d+s\n$/);
});

test('authorizer checks the request\'s user and service accounts against the server\'s authorizer', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'vap-authz']);
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: authz
spec:
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: vap-authz
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  validations:
  - expression: "authorizer.serviceAccount(object.metadata.namespace, 'default').group('').resource('secrets').namespace(object.metadata.namespace).check('list').allowed()"
    message: the default service account may not list secrets
  - expression: "authorizer.requestResource.check('delete').allowed()"
    message: the writer may not delete what it writes
---
${binding('authz', 'authz', 'Warn')}`);
  const r = await kubectl(cluster, ['-n', 'vap-authz', 'create', 'configmap', 'c1', '--from-literal=a=b']);
  assert.equal(r.code, 0, r.stderr);
  // The admin may delete configmaps; the namespace's default service account may not list secrets.
  assert.equal(r.stderr.trim(), 'Warning: Validation failed for ValidatingAdmissionPolicy \'authz\' with binding \'authz\': the default service account may not list secrets');
});

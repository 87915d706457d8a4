/**
 * The ValidatingAdmissionPolicy plugin's parts: matching (matching.go Matches), evaluation
 * (validator.go Validate), and the plugin through the real Store (policies read from memory and
 * compiled again when they change).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MatchResources, ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceInfo } from '../../src/apimachinery/resource.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import type { AdmissionAttributes, Operation } from '../../src/admission/types.js';
import type { Lookup } from '../../src/admission/lookup.js';
import { matchResources } from '../../src/admission/validating-admission-policy-match.js';
import { compiledPolicy } from '../../src/admission/validating-admission-policy-compile.js';
import { validatePolicy } from '../../src/admission/validating-admission-policy-evaluate.js';

const defs = allResources();
const def = (group: string, version: string, resource: string) => defs.find((d) => d.group === group && d.version === version && d.resource === resource)!;
const ctx = (warnings: string[] = []): WriteContext => ({
  namespace: '', now: new Date(), dryRun: false, fieldManager: 'test', warn: (m) => warnings.push(m), user: { name: 'alice', groups: ['dev'] },
});

function lookup(namespaces: Record<string, Record<string, string>>): Lookup {
  return {
    defs: defs,
    equivalentResources: (group, version, resource) => defs.filter((d) => d.group === group && d.resource === resource && d.version !== version).map((d) => ({
      resource: { group: d.group, version: d.version, resource: d.resource }, kind: { group: d.group, version: d.version, kind: d.kind },
      fromRequested: (o) => o, toRequested: (o) => o,
    })),
    async get(group, resource, _ns, name) {
      if (group === '' && resource === 'namespaces' && namespaces[name]) return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: namespaces[name] } };
      return undefined;
    },
    async listAll() { return []; },
  };
}

function attrs(d: ResourceInfo, operation: Operation, namespace: string, object: KObject, oldObject?: KObject, l = lookup({ prod: { env: 'prod' }, dev: {} })): AdmissionAttributes {
  return {
    operation, def: d, subresource: '', namespace, name: object.metadata?.name ?? '', object, oldObject, ctx: ctx(), lookup: l, memo: new Map(),
  };
}

const pods = def('', 'v1', 'pods');
const hpaV1 = def('autoscaling', 'v1', 'horizontalpodautoscalers');
const podObj = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [] } });

/** kubernetes-types' NamedRuleWithOperations lacks the embedded Rule's resources and scope, hence the loose type. */
const mr = (m: Record<string, unknown>): MatchResources => ({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, ...m });
const podRule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' };

test('matching: rules, scope, operations, resourceNames and excluded rules', async () => {
  const a = attrs(pods, 'CREATE', 'dev', podObj('web'));
  assert.equal((await matchResources(mr({ resourceRules: [podRule] }), a)).matches, true);
  assert.equal((await matchResources(mr({ resourceRules: [{ ...podRule, operations: ['UPDATE'] }] }), a)).matches, false);
  assert.equal((await matchResources(mr({ resourceRules: [{ ...podRule, scope: 'Cluster' }] }), a)).matches, false);
  assert.equal((await matchResources(mr({ resourceRules: [{ ...podRule, scope: 'Namespaced', resourceNames: ['web'] }] }), a)).matches, true);
  assert.equal((await matchResources(mr({ resourceRules: [{ ...podRule, resourceNames: ['other'] }] }), a)).matches, false);
  assert.equal((await matchResources(mr({ resourceRules: [{ ...podRule, resources: ['pods/status'] }] }), a)).matches, false);
  assert.equal((await matchResources(mr({ resourceRules: [{ ...podRule, apiGroups: ['*'], resources: ['*'] }] }), a)).matches, true);
  assert.equal((await matchResources(mr({ resourceRules: [podRule], excludeResourceRules: [{ ...podRule, resourceNames: ['web'] }] }), a)).matches, false);
});

test('matching: namespace and object selectors (the old object\'s labels count too)', async () => {
  const prodSel = mr({ resourceRules: [podRule], namespaceSelector: { matchLabels: { env: 'prod' } } });
  assert.equal((await matchResources(prodSel, attrs(pods, 'CREATE', 'prod', podObj('web')))).matches, true);
  assert.equal((await matchResources(prodSel, attrs(pods, 'CREATE', 'dev', podObj('web')))).matches, false);
  const missing = await matchResources(prodSel, attrs(pods, 'CREATE', 'gone', podObj('web')));
  assert.ok(!missing.matches && missing.error instanceof StatusError);
  assert.equal(missing.error.message, 'namespaces "gone" not found');
  // A namespace lookup error counts only when the rules match.
  const otherRule = mr({ ...prodSel, resourceRules: [{ ...podRule, resources: ['configmaps'] }] });
  assert.deepEqual(await matchResources(otherRule, attrs(pods, 'CREATE', 'gone', podObj('web'))), { matches: false });

  const objSel = mr({ resourceRules: [{ ...podRule, operations: ['*'] }], objectSelector: { matchLabels: { app: 'web' } } });
  assert.equal((await matchResources(objSel, attrs(pods, 'CREATE', 'dev', podObj('web', { app: 'web' })))).matches, true);
  assert.equal((await matchResources(objSel, attrs(pods, 'UPDATE', 'dev', podObj('web'), podObj('web', { app: 'web' })))).matches, true);
  assert.equal((await matchResources(objSel, attrs(pods, 'UPDATE', 'dev', podObj('web'), podObj('web')))).matches, false);
});

test('matching: matchPolicy Equivalent matches another served version of the resource, Exact does not', async () => {
  const v2Rule = { apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'], scope: '*' };
  const a = attrs(hpaV1, 'CREATE', 'dev', { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' } });
  assert.deepEqual(await matchResources(mr({ resourceRules: [v2Rule] }), a), {
    matches: true, resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
    kind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
  });
  assert.equal((await matchResources(mr({ resourceRules: [v2Rule], matchPolicy: 'Exact' }), a)).matches, false);
});

const policy = (spec: Partial<NonNullable<ValidatingAdmissionPolicy['spec']>>): ValidatingAdmissionPolicy => ({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' },
  spec: { failurePolicy: 'Fail', matchConstraints: mr({ resourceRules: [podRule] }), ...spec },
});

function run(p: ValidatingAdmissionPolicy, object: KObject = podObj('web', { tier: 'db' }), param: KObject | null = null) {
  const a = attrs(pods, 'CREATE', 'dev', object);
  return validatePolicy(compiledPolicy(p), {
    attrs: a, resource: { group: '', version: 'v1', resource: 'pods' }, kind: { group: '', version: 'v1', kind: 'Pod' }, param,
    namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { team: 'a' } } },
  });
}

test('evaluation: the message is the message expression\'s, else the message, else the failed expression; reasons default to Invalid', () => {
  const r = run(policy({
    validations: [
      { expression: "object.metadata.name == 'db'", messageExpression: "'name ' + object.metadata.name + ' is not db'" },
      { expression: 'false', messageExpression: "'two\\nlines'", message: ' static message ' },
      { expression: ' 1 == 2 ', messageExpression: 'object.metadata.missing', reason: 'Forbidden' },
      { expression: "request.userInfo.username == 'alice' && request.operation == 'CREATE' && namespaceObject.metadata.labels.team == 'a'" },
    ],
  }));
  assert.deepEqual(r.decisions, [
    { action: 'deny', evaluation: 'deny', message: 'name web is not db', reason: 'Invalid' },
    { action: 'deny', evaluation: 'deny', message: 'static message', reason: 'Invalid' },
    { action: 'deny', evaluation: 'deny', message: 'failed expression: 1 == 2', reason: 'Forbidden' },
    { action: 'admit', evaluation: 'admit', message: '', reason: '' },
  ]);
});

test('evaluation: errors deny with failurePolicy Fail and admit with Ignore', () => {
  const validations = [{ expression: 'object.spec.nodeName == "n"' }];
  assert.deepEqual(run(policy({ validations })).decisions, [
    { action: 'deny', evaluation: 'error', message: 'expression \'object.spec.nodeName == "n"\' resulted in error: no such key: nodeName', reason: '' },
  ]);
  assert.equal(run(policy({ validations, failurePolicy: 'Ignore' })).decisions[0]!.action, 'admit');
});

test('evaluation: match conditions skip the policy when one is false; errors are aggregated', () => {
  const validations = [{ expression: 'false' }];
  assert.deepEqual(run(policy({ validations, matchConditions: [{ name: 'db', expression: "object.metadata.labels.tier == 'web'" }] })).decisions, []);
  assert.equal(run(policy({ validations, matchConditions: [{ name: 'db', expression: "object.metadata.labels.tier == 'db'" }] })).decisions.length, 1);
  assert.deepEqual(run(policy({ validations, matchConditions: [{ name: 'a', expression: 'object.x' }, { name: 'b', expression: 'object.y' }] })).decisions, [{
    action: 'deny', evaluation: 'error', reason: '',
    message: "[expression 'object.x' resulted in error: no such key: x, expression 'object.y' resulted in error: no such key: y]",
  }]);
});

test('evaluation: variables are evaluated when read, params are the parameter object, audit annotations must be strings', () => {
  const r = run(policy({
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    variables: [{ name: 'limit', expression: 'int(params.data.limit)' }, { name: 'broken', expression: 'object.nope' }],
    validations: [{ expression: 'variables.limit > 2' }, { expression: 'variables.broken' }],
    auditAnnotations: [{ key: 'limit', valueExpression: 'variables.limit' }, { key: 'name', valueExpression: 'object.metadata.name' }],
  }), podObj('web'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { limit: '3' } });
  assert.deepEqual(r.decisions, [
    { action: 'admit', evaluation: 'admit', message: '', reason: '' },
    { action: 'deny', evaluation: 'error', message: 'expression \'variables.broken\' resulted in error: composited variable "broken" fails to evaluate: no such key: nope', reason: '' },
  ]);
  assert.deepEqual(r.auditAnnotations, [
    { action: 'error', key: 'limit', value: '', error: "valueExpression 'variables.limit' resulted in unsupported return type: int. Return type must be either string or null." },
    { action: 'publish', key: 'name', value: 'web', error: '' },
  ]);
});

test('through the Store: policies are read from memory, and an updated policy is compiled again', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, defs);
  const vap = def('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies');
  const vapb = def('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings');
  const cms = def('', 'v1', 'configmaps');
  await store.create(def('', 'v1', 'namespaces'), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } }, ctx());
  await store.create(vap, '', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-x' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: "!('x' in object.data)", message: 'no x' }],
    },
  }, ctx());
  const warnings: string[] = [];
  await store.create(vapb, '', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-x' },
    spec: { policyName: 'no-x', validationActions: ['Warn'] },
  }, ctx());
  const cm = (name: string, key: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { [key]: '1' } });
  await store.create(cms, 'dev', cm('a', 'x'), ctx(warnings));
  assert.deepEqual(warnings, ["Validation failed for ValidatingAdmissionPolicy 'no-x' with binding 'no-x': no x"]);

  const listed: string[] = [];
  const list = storage.list.bind(storage);
  storage.list = (prefix, opts) => { listed.push(prefix); return list(prefix, opts); };
  await store.update(vap, '', 'no-x', (o) => ({ ...o, spec: { ...(o.spec as object), validations: [{ expression: "!('y' in object.data)", message: 'no y' }] } }), ctx());
  warnings.length = 0;
  await store.create(cms, 'dev', cm('b', 'x'), ctx(warnings));
  await store.create(cms, 'dev', cm('c', 'y'), ctx(warnings));
  assert.deepEqual(warnings, ["Validation failed for ValidatingAdmissionPolicy 'no-x' with binding 'no-x': no y"]);
  assert.deepEqual(listed.filter((p) => p.includes('admissionregistration')), []);
  assert.equal((await store.read(vap, '', 'no-x')).metadata.generation, 2);
  await storage.close();
});

test('evaluation: the authorizer library asks the server\'s authorizer for the request\'s user or a service account', () => {
  const asked: string[] = [];
  const authorizer = {
    authorize(attrs: { user: { name: string; groups: string[] }; verb: string; resourceRequest: boolean; path: string; apiGroup: string; apiVersion: string; resource: string; subresource: string; namespace: string; name: string }) {
      asked.push(attrs.resourceRequest
        ? `${attrs.user.name} [${attrs.user.groups.join(' ')}] ${attrs.verb} ${attrs.apiGroup}/${attrs.apiVersion}/${attrs.resource}/${attrs.subresource} ${attrs.namespace}/${attrs.name}`
        : `${attrs.user.name} ${attrs.verb} ${attrs.path}`);
      const allowed = attrs.user.name === 'alice' && attrs.verb === 'get';
      return { decision: allowed ? 'Allow' as const : 'NoOpinion' as const, reason: allowed ? 'alice may get' : '' };
    },
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
  };
  const l = { ...lookup({ dev: {} }), authorization: { authorizer } } as unknown as Lookup;
  const a = attrs(pods, 'CREATE', 'dev', podObj('web'), undefined, l);
  const p = policy({
    validations: [
      { expression: "authorizer.group('').resource('pods').namespace('dev').check('get').allowed()" },
      { expression: "authorizer.requestResource.check('create').allowed()", messageExpression: "'denied: ' + string(authorizer.requestResource.check('get').allowed())" },
      { expression: "authorizer.requestResource.check('get').reason() == 'alice may get' && !authorizer.path('/healthz').check('get').errored()" },
      { expression: "authorizer.serviceAccount('dev', 'builder').group('apps').resource('deployments').subresource('scale').name('web').check('get').allowed()" },
    ],
  });
  const r = validatePolicy(compiledPolicy(p), {
    attrs: a, resource: { group: '', version: 'v1', resource: 'pods' }, kind: { group: '', version: 'v1', kind: 'Pod' }, param: null, namespace: undefined,
  });
  assert.deepEqual(r.decisions.map((d) => d.action), ['admit', 'deny', 'admit', 'deny']);
  assert.equal(r.decisions[1]!.message, 'failed expression: authorizer.requestResource.check(\'create\').allowed()');
  assert.deepEqual(asked, [
    'alice [dev] get /*/pods/ dev/',
    'alice [dev] create /*/pods/ dev/web',
    'alice [dev] get /*/pods/ dev/web',
    'alice get /healthz',
    'system:serviceaccount:dev:builder [system:serviceaccounts system:serviceaccounts:dev] get apps/*/deployments/scale /web',
  ]);
});

test('matching: an object selector that does not parse is an internal error once the rules match, as for webhooks', async () => {
  const bad = mr({ resourceRules: [podRule], objectSelector: { matchLabels: { 'a b': 'x' } } });
  const res = await matchResources(bad, attrs(pods, 'CREATE', 'dev', podObj('web')));
  assert.equal(res.matches, false);
  assert.equal(res.matches === false && res.error?.status.message, 'Internal error occurred: invalid object selector');
  const other = mr({ resourceRules: [{ ...podRule, operations: ['DELETE'] }], objectSelector: { matchLabels: { 'a b': 'x' } } });
  assert.deepEqual(await matchResources(other, attrs(pods, 'CREATE', 'dev', podObj('web'))), { matches: false });
});

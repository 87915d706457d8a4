/**
 * Which webhooks a request reaches (apiserver predicates/rules Matcher and ShouldCallHook's
 * matchPolicy Equivalent), and the webhook configurations' own validation and cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchingInvocation, ruleMatches, type RuleRequest, type WebhookRule } from '../../src/admission/rule-matching.js';
import { verifyAdmissionResponse } from '../../src/admission/webhook-review.js';
import { deniedError } from '../../src/admission/webhook-errors.js';
import { webhooksOf } from '../../src/admission/webhook-source.js';
import { validateWithWebhooks } from '../../src/admission/webhook-validating.js';
import { resolveServiceEndpoint } from '../../src/network/service-endpoint.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { Lookup } from '../../src/admission/lookup.js';
import { webhookConfigurationValidation } from '../../src/validation/webhook-configuration.js';

const pods: RuleRequest = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' }, subresource: '', namespace: 'default' };
const rule = (r: Partial<WebhookRule>): WebhookRule => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], ...r });

test('operations, groups, versions and resources match exactly or by wildcard', () => {
  assert.ok(ruleMatches(rule({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }), pods));
  assert.ok(!ruleMatches(rule({ operations: ['UPDATE'] }), pods));
  assert.ok(!ruleMatches(rule({ apiGroups: ['apps'] }), pods));
  assert.ok(!ruleMatches(rule({ apiVersions: ['v2'] }), pods));
  assert.ok(!ruleMatches(rule({ resources: ['services'] }), pods));
});

test('a rule without a subresource does not match a subresource; pods/status and */status and pods/* do', () => {
  const status = { ...pods, operation: 'UPDATE', subresource: 'status' };
  assert.ok(!ruleMatches(rule({ resources: ['pods'] }), status));
  assert.ok(!ruleMatches(rule({ resources: ['*'] }), status));
  assert.ok(ruleMatches(rule({ resources: ['pods/status'] }), status));
  assert.ok(ruleMatches(rule({ resources: ['*/status'] }), status));
  assert.ok(ruleMatches(rule({ resources: ['pods/*'] }), status));
  assert.ok(ruleMatches(rule({ resources: ['*/*'] }), status));
  assert.ok(!ruleMatches(rule({ resources: ['pods/log'] }), status));
});

test('scope: Namespaced excludes cluster-scoped objects and Namespaces; Cluster takes both', () => {
  const ns: RuleRequest = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'namespaces' }, subresource: '', namespace: 'team' };
  const node: RuleRequest = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'nodes' }, subresource: '', namespace: '' };
  assert.ok(ruleMatches(rule({ scope: 'Namespaced' }), pods));
  assert.ok(!ruleMatches(rule({ scope: 'Namespaced' }), ns));
  assert.ok(!ruleMatches(rule({ scope: 'Namespaced' }), node));
  assert.ok(ruleMatches(rule({ scope: 'Cluster' }), ns));
  assert.ok(ruleMatches(rule({ scope: 'Cluster' }), node));
  assert.ok(!ruleMatches(rule({ scope: 'Cluster' }), pods));
});

test('matchPolicy Equivalent calls a webhook whose rule names another served version, with that version', () => {
  const hpaV2: RuleRequest = { operation: 'CREATE', resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' }, subresource: '', namespace: 'd' };
  const kindV2 = { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' };
  const v1 = { resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' }, kind: { ...kindV2, version: 'v1' } };
  const rules = [rule({ apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] })];
  assert.deepEqual(matchingInvocation(rules, 'Equivalent', hpaV2, kindV2, [v1]), { ...v1, subresource: '' });
  assert.equal(matchingInvocation(rules, 'Exact', hpaV2, kindV2, [v1]), undefined);
  // The request's own version wins when a rule matches it.
  const both = [...rules, rule({ apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] })];
  assert.deepEqual(matchingInvocation(both, 'Equivalent', hpaV2, kindV2, [v1])?.resource.version, 'v2');
});

test('VerifyAdmissionResponse: uid, kind and patch checks of a v1 answer, none of a v1beta1 one', () => {
  const ok = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true } };
  assert.deepEqual(verifyAdmissionResponse('v1', 'u', false, ok), { allowed: true });
  assert.deepEqual(verifyAdmissionResponse('v1', 'x', false, ok), { invalid: 'expected response.uid="x", got "u"' });
  assert.deepEqual(verifyAdmissionResponse('v1', 'u', false, { ...ok, apiVersion: 'admission.k8s.io/v1beta1' }),
    { invalid: 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview' });
  assert.deepEqual(verifyAdmissionResponse('v1', 'u', false, { ...ok, response: undefined }), { invalid: 'webhook response was absent' });
  assert.deepEqual(verifyAdmissionResponse('v1', 'u', true, { ...ok, response: { uid: 'u', allowed: true, patch: 'W10=' } }),
    { invalid: 'webhook returned response.patch but not response.patchType' });
  assert.deepEqual(verifyAdmissionResponse('v1', 'u', false, { ...ok, response: { uid: 'u', allowed: true, patch: 'W10=', patchType: 'JSONPatch' } }),
    { invalid: 'validating webhook may not return response.patch' });
  assert.deepEqual(verifyAdmissionResponse('v1beta1', 'u', true, { response: { allowed: true, patch: 'W10=' } }),
    { allowed: true, patch: 'W10=', patchType: 'JSONPatch' });
});

test('ToStatusErr: at least 400, the message prefixed, the reason when there is no message', () => {
  const e = (s: Record<string, unknown> | undefined) => deniedError('x.example.com', s).status;
  assert.deepEqual(e(undefined), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'admission webhook "x.example.com" denied the request without explanation', code: 400 });
  assert.equal(e({ code: 200, reason: 'NotAllowed' }).message, 'admission webhook "x.example.com" denied the request: NotAllowed');
  assert.equal(e({ code: 200, reason: 'NotAllowed' }).code, 400);
  assert.equal(e({ code: 422, message: 'no', status: 'Success' }).status, 'Failure');
});

const cfg = (webhooks: unknown[]) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' }, webhooks });
const hook = (extra: Record<string, unknown>) => ({
  name: 'a.example.com', clientConfig: { url: 'https://h/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
});

test('validation: service references, admissionReviewVersions, duplicate names, rules and match conditions', () => {
  const v = webhookConfigurationValidation('validating');
  const msgs = (w: unknown[]) => v.validate(cfg(w)).map((e) => `${e.field}: ${e.type}: ${e.detail ?? ''}`);
  assert.deepEqual(msgs([hook({ clientConfig: { service: { namespace: '', name: 's', path: 'x//y', port: 70000 } } })]), [
    'webhooks[0].clientConfig.service.namespace: FieldValueRequired: service namespace is required',
    'webhooks[0].clientConfig.service.port: FieldValueInvalid: port is not valid: must be between 1 and 65535, inclusive',
    "webhooks[0].clientConfig.service.path: FieldValueInvalid: must start with a '/'",
    // Upstream drops the first character whether or not it is a '/': "x//y" checks "//y".
    'webhooks[0].clientConfig.service.path: FieldValueInvalid: segment[0] may not be empty',
    'webhooks[0].clientConfig.service.path: FieldValueInvalid: segment[1] may not be empty',
  ]);
  assert.deepEqual(msgs([hook({ clientConfig: {} })]), ['webhooks[0].clientConfig: FieldValueRequired: exactly one of url or service is required']);
  assert.deepEqual(msgs([hook({ admissionReviewVersions: ['v2'] })]), ['webhooks[0].admissionReviewVersions: FieldValueInvalid: must include at least one of v1, v1beta1']);
  assert.deepEqual(msgs([hook({}), hook({})]), ['webhooks[1].name: FieldValueDuplicate: ']);
  assert.deepEqual(msgs([hook({ rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*', 'pods/status'], scope: 'X' }] })]), [
    "webhooks[0].rules[0].operations: FieldValueInvalid: if '*' is present, must not specify other operations",
    "webhooks[0].rules[0].resources[1]: FieldValueInvalid: if 'pods/*' is present, must not specify pods/status",
    'webhooks[0].rules[0].scope: FieldValueNotSupported: supported values: "*", "Cluster", "Namespaced"',
  ]);
  const mc = msgs([hook({ matchConditions: [{ name: 'a', expression: 'object.x ==' }, { name: 'a', expression: 'true' }] })]);
  assert.equal(mc.length, 2);
  assert.match(mc[0]!, /^webhooks\[0\]\.matchConditions\[0\]\.expression: FieldValueInvalid: compilation failed: ERROR: <input>:1:/);
  assert.equal(mc[1], 'webhooks[0].matchConditions[1].name: FieldValueDuplicate: ');
  // A stored configuration with a side effect class v1 no longer accepts may still be updated.
  const old = cfg([hook({ sideEffects: 'Some' })]);
  assert.deepEqual(v.validateUpdate(cfg([hook({ sideEffects: 'Some', timeoutSeconds: 5 })]), old), []);
  assert.equal(v.validate(old)[0]?.type, 'FieldValueNotSupported');
});

test('a service target resolves through the Service port to the Endpoints port of the same name, with upstream errors', async () => {
  const objects: Record<string, KObject> = {
    'services/s': { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'web', port: 443, targetPort: 8443 }] } },
    'endpoints/s': { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 's' },
      subsets: [{ addresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'web', port: 9443 }] }] },
    'services/x': { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: { type: 'ExternalName' } },
    'services/e': { apiVersion: 'v1', kind: 'Service', metadata: { name: 'e' }, spec: { ports: [{ port: 443 }] } },
    'endpoints/e': { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' } },
  };
  const get = async (r: string, _ns: string, n: string) => objects[`${r}/${n}`];
  assert.deepEqual(await resolveServiceEndpoint(get, 'd', 's', 443), { host: '10.0.0.9', port: 9443 });
  const message = async (name: string, port: number) => {
    try { await resolveServiceEndpoint(get, 'd', name, port); } catch (e) { return e instanceof StatusError ? e.status.message : (e as Error).message; }
    return 'resolved';
  };
  assert.equal(await message('s', 80), 'no service port 80 found for service "s"');
  assert.equal(await message('x', 443), 'unsupported service type "ExternalName"');
  assert.equal(await message('e', 443), 'no endpoints available for service "e"');
  assert.equal(await message('missing', 443), 'service "missing" not found');
});

test('the webhooks are built once per stored configuration and rebuilt when it changes', async () => {
  let stored: KObject[] = [cfg([hook({})])];
  const lookup: Lookup = { get: async () => undefined, listAll: async () => stored };
  const first = await webhooksOf(lookup, 'validating');
  assert.equal(first.length, 1);
  assert.equal((await webhooksOf(lookup, 'validating'))[0], first[0]);
  // The lister replaces the object on update: the next request sees the new webhooks.
  stored = [cfg([hook({ name: 'b.example.com' }), hook({ name: 'c.example.com' })])];
  const second = await webhooksOf(lookup, 'validating');
  assert.deepEqual(second.map((h) => h.hook.name), ['b.example.com', 'c.example.com']);
  stored = [];
  assert.deepEqual(await webhooksOf(lookup, 'validating'), []);
});

test('a dry run refuses webhooks whose side effects are not None or NoneOnDryRun, before calling them', async () => {
  // Only a configuration stored before v1 (or through v1beta1) can still say Some.
  const stored = [cfg([hook({ sideEffects: 'Some', clientConfig: { url: 'https://127.0.0.1:1/never' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })])] as KObject[];
  const lookup: Lookup = { get: async () => undefined, listAll: async () => stored };
  const write = (dryRun: boolean) => validateWithWebhooks({
    operation: 'CREATE', def: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    subresource: '', namespace: 'default', name: 'cm', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } },
    ctx: { namespace: 'default', now: new Date(), dryRun, fieldManager: 'test', warn: () => {} }, lookup,
  });
  await assert.rejects(write(true), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.deepEqual([e.status.code, e.status.reason, e.status.message], [400, 'BadRequest', 'admission webhook "a.example.com" does not support dry run']);
    return true;
  });
  // Without dry run the webhook is called (and, unreachable, fails closed).
  await assert.rejects(write(false), (e: unknown) => e instanceof StatusError && e.status.reason === 'InternalError' &&
    e.status.message === 'Internal error occurred: failed calling webhook "a.example.com": failed to call webhook: ' +
    'Post "https://127.0.0.1:1/never?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
});

/**
 * networking.k8s.io/v1 validation rules (kubernetes pkg/apis/networking/validation at v1.32):
 * ValidateNetworkPolicyPort, ValidateIPBlock, the Ingress path and backend rules, the
 * update options that let stored data stay, IngressClass parameters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { validateIPBlock, validateNetworkPolicyPort, validateNetworkPolicyUpdate } from '../../src/validation/networkpolicy.js';
import { isWildcardDNS1123Subdomain, validateIngressCreate, validateIngressUpdate } from '../../src/validation/ingress.js';
import { validateIngressClass } from '../../src/validation/ingressclass.js';

const messages = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

test('NetworkPolicyPort: endPort below port and out of range', () => {
  assert.deepEqual(messages(validateNetworkPolicyPort({ protocol: 'TCP', port: 100, endPort: 70000 }, 'p')), [
    'p.endPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
  ]);
  assert.deepEqual(messages(validateNetworkPolicyPort({ port: 100, endPort: 99 }, 'p')), [
    'p.endPort: Invalid value: 99: must be greater than or equal to `port`',
  ]);
  assert.deepEqual(messages(validateNetworkPolicyPort({ endPort: 99 }, 'p')), [
    'p.endPort: Invalid value: 99: may not be specified when `port` is not specified',
  ]);
});

test('IPBlock: required cidr, strict subsets, IPv6, IsValidCIDR\'s message for an unparsable entry', () => {
  assert.deepEqual(messages(validateIPBlock({}, 'b')), ['b.cidr: Required value']);
  assert.deepEqual(validateIPBlock({ cidr: '10.0.0.0/8', except: ['10.1.0.0/16', '10.255.255.0/24'] }, 'b'), []);
  assert.deepEqual(messages(validateIPBlock({ cidr: '10.0.0.0/16', except: ['10.0.0.0/16', '11.0.0.0/24'] }, 'b')), [
    'b.except[0]: Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`',
    'b.except[1]: Invalid value: "11.0.0.0/24": must be a strict subset of `cidr`',
  ]);
  assert.deepEqual(validateIPBlock({ cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] }, 'b'), []);
  assert.deepEqual(messages(validateIPBlock({ cidr: '10.0.0.0/8', except: ['x', '11.0.0.0/24'] }, 'b')), [
    'b.except[0]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    'b.except[1]: Invalid value: "11.0.0.0/24": must be a strict subset of `cidr`',
  ]);
});

test('policyTypes: more than two is refused before each is checked', () => {
  const np = { metadata: { name: 'n', namespace: 'd', resourceVersion: '1' }, spec: { policyTypes: ['Ingress', 'Egress', 'Ingress'] } };
  assert.deepEqual(messages(validateNetworkPolicyUpdate(np, np)).slice(0, 1), [
    'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
  ]);
});

test('an old NetworkPolicy with an invalid pod selector value lets such values through on update', () => {
  const bad = { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] };
  const old = { metadata: { name: 'n', namespace: 'd', resourceVersion: '1' }, spec: { podSelector: bad } };
  assert.deepEqual(validateNetworkPolicyUpdate(old, old), []);
  const fresh = { metadata: { name: 'n', namespace: 'd', resourceVersion: '1' }, spec: { podSelector: {} } };
  assert.equal(validateNetworkPolicyUpdate(old, fresh).length, 2);
});

test('wildcard hosts: IsWildcardDNS1123Subdomain', () => {
  assert.deepEqual(isWildcardDNS1123Subdomain('*.example.com'), []);
  assert.deepEqual(isWildcardDNS1123Subdomain('a.*.com'), [
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
});

const ingress = (spec: object) => ({ metadata: { name: 'i', namespace: 'd', resourceVersion: '1' }, spec });
const svc = { service: { name: 'web', port: { number: 80 } } };

test('Ingress paths: Exact/Prefix absolute without bad sequences; ImplementationSpecific may be empty', () => {
  const rules = (paths: object[]) => [{ http: { paths } }];
  assert.deepEqual(messages(validateIngressCreate(ingress({ rules: rules([
    { path: '/a/..', pathType: 'Exact', backend: svc },
    { path: '', pathType: 'ImplementationSpecific', backend: svc },
    { path: '/x%2Fy', pathType: 'Prefix', backend: svc },
  ]) }))), [
    'spec.rules[0].http.paths[0].path: Invalid value: "/a/..": cannot end with \'/..\'',
    'spec.rules[0].http.paths[2].path: Invalid value: "/x%2Fy": must not contain \'%2F\'',
  ]);
  assert.deepEqual(messages(validateIngressCreate(ingress({ rules: [{ host: 'a.example', http: { paths: [] } }] }))), [
    'spec.rules[0].http.paths: Required value',
  ]);
});

test('Ingress update keeps stored invalid TLS secret names and wildcard-host rules', () => {
  const old = ingress({ defaultBackend: svc, tls: [{ secretName: 'Bad_Name' }], rules: [{ host: '*.example.com', http: { paths: [{ path: 'x', pathType: 'Exact', backend: svc }] } }] });
  assert.equal(validateIngressCreate(old).length, 2);
  assert.deepEqual(validateIngressUpdate(old, old), []);
});

test('Ingress resource backends: TypedLocalObjectReference rules', () => {
  assert.deepEqual(messages(validateIngressCreate(ingress({ defaultBackend: { resource: { apiGroup: 'Bad', kind: '', name: 'a/b' } } }))), [
    'spec.defaultBackend.resource.apiGroup: Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.defaultBackend.resource.kind: Required value: kind is required',
    'spec.defaultBackend.resource.name: Invalid value: "a/b": may not contain \'/\'',
  ]);
});

test('IngressClass: controller length and parameters scope', () => {
  const ic = (spec: object) => ({ metadata: { name: 'c' }, spec });
  assert.deepEqual(messages(validateIngressClass(ic({ controller: `example.com/${'x'.repeat(250)}` }))), [
    'spec.controller: Too long: may not be more than 250 bytes',
  ]);
  assert.deepEqual(messages(validateIngressClass(ic({ controller: 'example.com/c', parameters: { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'ns' } }))), [
    "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
  ]);
  assert.deepEqual(messages(validateIngressClass(ic({ controller: 'example.com/c', parameters: { scope: 'Cluster' } }))), [
    'spec.parameters.kind: Required value: kind is required', 'spec.parameters.name: Required value: name is required',
  ]);
  assert.deepEqual(messages(validateIngressClass(ic({ controller: 'example.com/c', parameters: { kind: 'K', name: 'n', scope: 'Global' } }))), [
    'spec.parameters.scope: Unsupported value: "Global": supported values: "Cluster", "Namespace"',
  ]);
});

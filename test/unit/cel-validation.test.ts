/**
 * x-kubernetes-validations evaluation and upstream's messages (apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go validateExpressions, fieldErrorForReason).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { validateCustomResourceRules } from '../../src/registry/apiextensions/cel-validation.js';
import type { Schema } from '../../src/openapi/crd-schema.js';

const messages = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

function specSchema(spec: Schema): Schema {
  return { type: 'object', properties: { spec } };
}

test('a failing rule with a message: Invalid value with the node type', () => {
  const s = specSchema({ type: 'object', properties: { replicas: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'too many' }] });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { replicas: 11 } })), ['spec: Invalid value: "object": too many']);
  assert.deepEqual(validateCustomResourceRules(s, { spec: { replicas: 10 } }), []);
});

test('matches in both standard forms, the global and the method, with RE2 partial matching', () => {
  const s = specSchema({ type: 'object', properties: { v: { type: 'string' } }, 'x-kubernetes-validations': [
    { rule: "!matches(self.v, 'v1.[0-3].\\\\d+') && !matches(self.v, 'v0')", message: 'global' },
    { rule: "!self.v.matches('^v0')", message: 'method' },
  ] });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { v: 'v0.0.0-dev' } })), ['spec: Invalid value: "object": global', 'spec: Invalid value: "object": method']);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { v: 'v1.2.3' } })), ['spec: Invalid value: "object": global']);
  assert.deepEqual(validateCustomResourceRules(s, { spec: { v: 'v1.5.0' } }), []);
});

test('without a message: failed rule: <rule>', () => {
  const s = specSchema({ type: 'object', properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.startsWith('a')" }] } } });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { name: 'b' } })), [`spec.name: Invalid value: "string": failed rule: self.startsWith('a')`]);
});

test('messageExpression, fieldPath and reason', () => {
  const s = specSchema({
    type: 'object', properties: { a: { type: 'integer' }, m: { type: 'object', properties: { 'x.y': { type: 'string' } } } },
    'x-kubernetes-validations': [
      { rule: 'self.a > 1', messageExpression: "'a is ' + string(self.a)", fieldPath: '.a' },
      { rule: 'self.a > 2', message: 'need a', reason: 'FieldValueRequired', fieldPath: ".m['x.y']" },
      { rule: 'self.a > 3', message: 'no', reason: 'FieldValueForbidden' },
      { rule: 'self.a > 4', reason: 'FieldValueDuplicate' },
      { rule: 'self.a > 5', message: 'fallback', messageExpression: "''" },
    ],
  });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { a: 1 } })), [
    'spec.a: Invalid value: "object": a is 1',
    'spec.m.x.y: Required value: need a',
    'spec: Forbidden: no',
    'spec: Duplicate value: "object"',
    'spec: Invalid value: "object": fallback',
  ]);
});

test('oldSelf: transition rules run on updates only, when the old value exists', () => {
  const s = specSchema({ type: 'object', properties: { id: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } } });
  assert.deepEqual(validateCustomResourceRules(s, { spec: { id: 'a' } }), []);
  assert.deepEqual(validateCustomResourceRules(s, { spec: { id: 'b' } }, { spec: {} }), []);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { id: 'b' } }, { spec: { id: 'a' } })), ['spec.id: Invalid value: "string": Value is immutable']);
});

test('ratcheting: an unchanged invalid value is let through on update', () => {
  const s = specSchema({ type: 'object', properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 5' }] }, other: { type: 'string' } } });
  assert.deepEqual(validateCustomResourceRules(s, { spec: { n: 7, other: 'b' } }, { spec: { n: 7, other: 'a' } }), []);
  assert.equal(validateCustomResourceRules(s, { spec: { n: 8 } }, { spec: { n: 7 } }).length, 1);
});

test('integers are int, lists and maps with macros, has()', () => {
  const s = specSchema({
    type: 'object',
    properties: {
      ports: { type: 'array', items: { type: 'integer' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      opt: { type: 'string' },
    },
    'x-kubernetes-validations': [
      { rule: 'self.ports.all(p, p > 0) && self.ports.exists_one(p, p == 80)' },
      { rule: "self.ports.map(p, p * 2).filter(p, p > 1000).size() == 1" },
      { rule: "self.labels.exists(k, k == 'app')" },
      { rule: '!has(self.opt)' },
      { rule: 'self.ports.isSorted() && self.ports.sum() == 3080 && self.ports.indexOf(3000) == 1' },
    ],
  });
  assert.deepEqual(validateCustomResourceRules(s, { spec: { ports: [80, 3000], labels: { app: 'x' } } }), []);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { ports: [80, 3000], labels: {}, opt: 'x' } })), [
    `spec: Invalid value: "object": failed rule: self.labels.exists(k, k == 'app')`,
    'spec: Invalid value: "object": failed rule: !has(self.opt)',
  ]);
});

test('a missing field: no such key evaluating rule', () => {
  const s = specSchema({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: "self.a == 'x'" }] });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: {} })), [`spec: Invalid value: "object": no such key: a evaluating rule: self.a == 'x'`]);
});

test('rules at the resource root see metadata.name', () => {
  const s: Schema = { type: 'object', properties: { spec: { type: 'object' } }, 'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('ok-')", message: 'bad name' }] };
  assert.deepEqual(messages(validateCustomResourceRules(s, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'x' }, spec: {} })), ['<nil>: Invalid value: "object": bad name']);
  assert.deepEqual(validateCustomResourceRules(s, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'ok-x' }, spec: {} }), []);
});

test('int-or-string and preserve-unknown-fields values', () => {
  const s = specSchema({
    type: 'object', 'x-kubernetes-preserve-unknown-fields': true,
    properties: { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: "type(self) == int ? self > 0 : self.endsWith('%')" }] } },
    'x-kubernetes-validations': [{ rule: 'self.extra.count == 2' }],
  });
  assert.deepEqual(validateCustomResourceRules(s, { spec: { port: 3, extra: { count: 2 } } }), []);
  assert.deepEqual(validateCustomResourceRules(s, { spec: { port: '50%', extra: { count: 2 } } }), []);
  assert.equal(validateCustomResourceRules(s, { spec: { port: '50', extra: { count: 2 } } }).length, 1);
});

test('Gateway API: string extension and isIP', () => {
  const s = specSchema({ type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(h, !isIP(h))', message: 'ip' }, { rule: "self.all(k, k.split('/')[0].size() < 5)" }] });
  assert.deepEqual(validateCustomResourceRules(s, { spec: ['a/b'] }), []);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: ['10.0.0.1'] })), ['spec: Invalid value: "array": ip', `spec: Invalid value: "array": failed rule: self.all(k, k.split('/')[0].size() < 5)`]);
});

test("Calico's IP pool rules: ip and cidr values", () => {
  const s = specSchema({
    type: 'object', properties: { cidr: { type: 'string' }, blockSize: { type: 'integer' }, nat: { type: 'string' } },
    'x-kubernetes-validations': [
      { rule: 'cidr(self.cidr) == cidr(self.cidr).masked()', message: 'masked' },
      { rule: "!cidr('169.254.0.0/16').containsIP(cidr(self.cidr).ip()) && !cidr(self.cidr).containsIP('169.254.0.0')", message: 'link local' },
      { rule: "!has(self.blockSize) || (cidr(self.cidr).ip().family() == 4 ? self.blockSize >= 20 && self.blockSize <= 32 : self.blockSize >= 116 && self.blockSize <= 128)", message: 'block' },
      { rule: "!has(self.nat) || (isIP(self.nat) && ip(self.nat).family() == 4)", message: 'nat' },
      { rule: "cidr(self.cidr).prefixLength() <= 26 && isCIDR(self.cidr) && cidr('fd00::/8').containsCIDR('fd00:0:0::1/64')", message: 'len' },
    ],
  });
  assert.deepEqual(validateCustomResourceRules(s, { spec: { cidr: '10.244.0.0/16', blockSize: 26, nat: '10.0.0.1' } }), []);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { cidr: '10.244.0.1/16', blockSize: 120, nat: '::1' } })).map((m) => m.split(': ').pop()), ['masked', 'block', 'nat']);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { cidr: '169.254.0.0/16' } })).map((m) => m.split(': ').pop()), ['link local']);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { cidr: 'fe80:0:0::/27' } })).map((m) => m.split(': ').pop()), ['len']);
  assert.deepEqual(validateCustomResourceRules(s, { spec: { cidr: 'fd00:0:0:0:0::/20', blockSize: 122 } }), []);
});

test('optionalOldSelf: oldSelf is an optional, so the rule runs on create too', () => {
  const s = specSchema({ type: 'object', properties: { n: { type: 'integer', 'x-kubernetes-validations': [
    { rule: '!oldSelf.hasValue() ? self < 10 : self >= oldSelf.value()', message: 'may only grow, from below 10', optionalOldSelf: true },
    { rule: 'self >= oldSelf.orValue(0)', optionalOldSelf: true },
  ] } } });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { n: 12 } })), ['spec.n: Invalid value: "integer": may only grow, from below 10']);
  assert.deepEqual(validateCustomResourceRules(s, { spec: { n: 12 } }, { spec: { n: 5 } }), []);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { n: 4 } }, { spec: { n: 5 } })), [
    'spec.n: Invalid value: "integer": may only grow, from below 10',
    'spec.n: Invalid value: "integer": failed rule: self >= oldSelf.orValue(0)',
  ]);
});

test('the sets extension', () => {
  const s = specSchema({ type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [
    { rule: "sets.contains(['a', 'b', 'c'], self)", message: 'unknown' },
    { rule: "!sets.intersects(self, ['x'])", message: 'x' },
    { rule: "sets.equivalent(self, self) && sets.contains([1, 2.0], [2])" },
  ] });
  assert.deepEqual(validateCustomResourceRules(s, { spec: ['a', 'c'] }), []);
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: ['a', 'x'] })), ['spec: Invalid value: "array": unknown', 'spec: Invalid value: "array": x']);
});

test('an embedded resource shows apiVersion, kind and metadata.name only', () => {
  const s = specSchema({ type: 'object', properties: { template: {
    type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true,
    properties: { metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    'x-kubernetes-validations': [{ rule: "self.kind == 'Pod' && self.metadata.name == 'p'" }, { rule: "has(self.metadata.labels)", message: 'no labels' }],
  } } });
  assert.deepEqual(messages(validateCustomResourceRules(s, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } } } } })), ['spec.template: Invalid value: "object": no labels']);
});

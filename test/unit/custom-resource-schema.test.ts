/**
 * A CRD schema applied to custom resources: kube-openapi's validation messages as
 * apiextensions-apiserver reports them, pruning with the paths it reports, defaults, and the
 * client-go JSONPath subset printer columns use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, prune, validateCustomResource } from '../../src/registry/apiextensions/custom-resource-schema.js';
import type { Schema } from '../../src/openapi/crd-schema.js';
import { JSONPath } from '../../src/registry/apiextensions/jsonpath.js';
import { compareKubeAwareVersions } from '../../src/apimachinery/kube-version-order.js';
import { formatFieldErrors } from '../../src/apimachinery/field-errors.js';

const schema: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        name: { type: 'string', minLength: 2, maxLength: 4 },
        ratio: { type: 'number', exclusiveMinimum: true, minimum: 0, multipleOf: 0.5 },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        items: { type: 'array', minItems: 1, items: { type: 'object', properties: { k: { type: 'string', default: 'x' } } } },
        maybe: { type: 'string', nullable: true },
        mode: { type: 'string', default: 'auto' },
      },
    },
  },
};

const errorsOf = (spec: unknown) => formatFieldErrors(validateCustomResource(schema, { apiVersion: 'a/v1', kind: 'K', metadata: {}, spec }));

test('int-or-string takes integers and strings', () => {
  assert.equal(validateCustomResource(schema, { spec: { port: 80 } }).length, 0);
  assert.equal(validateCustomResource(schema, { spec: { port: 'http' } }).length, 0);
});

test('string lengths, exclusive minimum, multipleOf, minItems and nullable as kube-openapi words them', () => {
  assert.equal(errorsOf({ name: 'a' }), 'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long');
  assert.equal(errorsOf({ name: 'abcde' }), 'spec.name: Too long: may not be more than 4 bytes');
  assert.equal(errorsOf({ ratio: 0 }), 'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0');
  assert.equal(errorsOf({ ratio: 0.7 }), 'spec.ratio: Invalid value: 0.7: spec.ratio in body should be a multiple of 0.5');
  assert.equal(errorsOf({ items: [] }), 'spec.items: Invalid value: 0: spec.items in body should have at least 1 items');
  assert.equal(errorsOf({ maybe: null }), '[]');
  assert.equal(errorsOf({ mode: null }), 'spec.mode: Invalid value: "null": spec.mode in body must be of type string: "null"');
  assert.equal(errorsOf({ labels: { a: 1 } }), 'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"');
});

test('pruning drops undeclared fields (reporting their paths) and keeps type meta, metadata and additionalProperties', () => {
  const obj = { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n' }, top: 1, spec: { labels: { any: 'v' }, items: [{ k: 'a', z: 1 }], nope: {} } };
  assert.deepEqual(prune(obj, schema), ['spec.items[0].z', 'spec.nope', 'top']);
  assert.deepEqual(obj, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n' }, spec: { labels: { any: 'v' }, items: [{ k: 'a' }] } });
});

test('defaults fill absent fields, also inside list items', () => {
  const obj = { spec: { items: [{}, { k: 'y' }] } };
  applyDefaults(obj, schema);
  assert.deepEqual(obj, { spec: { items: [{ k: 'x' }, { k: 'y' }], mode: 'auto' } });
});

test('JSONPath: keys, indexes, wildcards and filters', () => {
  const o = { status: { conditions: [{ type: 'A', status: 'False' }, { type: 'Ready', status: 'True' }], addresses: [{ value: '1' }, { value: '2' }] } };
  assert.deepEqual(new JSONPath('.status.conditions[?(@.type == "Ready")].status').find(o), ['True']);
  assert.deepEqual(new JSONPath('.status.conditions[0].type').find(o), ['A']);
  assert.deepEqual(new JSONPath('.status.addresses[*].value').find(o), ['1', '2']);
  assert.deepEqual(new JSONPath(".status['conditions'][-1].type").find(o), ['Ready']);
  assert.deepEqual(new JSONPath('.spec.missing').find(o), []);
});

test('kube-aware version order: GA, then beta, then alpha, higher numbers first, others last', () => {
  assert.deepEqual(['v1alpha1', 'foo', 'v2beta1', 'v1', 'v2', 'v1beta2', 'v11alpha2'].sort(compareKubeAwareVersions),
    ['v2', 'v1', 'v2beta1', 'v1beta2', 'v11alpha2', 'v1alpha1', 'foo']);
});

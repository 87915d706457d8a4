import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiate, negotiateShape, NOT_ACCEPTABLE } from '../../src/api/negotiate.js';

const TABLE_ONLY = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

test('a Table is served where the endpoint can convert to one', () => {
  assert.deepEqual(negotiateShape(TABLE_ONLY, { table: true }), { kind: 'table' });
  assert.deepEqual(negotiate(KUBECTL_GET), { kind: 'table' });
});

test('an endpoint without a Table convertor skips the Table ranges and takes the next one', () => {
  assert.deepEqual(negotiateShape(KUBECTL_GET, { table: false }), { kind: 'object', format: 'json' });
});

test('an endpoint without a Table convertor asked only for a Table has nothing to offer (406)', () => {
  assert.equal(negotiateShape(TABLE_ONLY, { table: false }), undefined);
  assert.equal(NOT_ACCEPTABLE,
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
});

test('PartialObjectMetadata is a transform every endpoint allows', () => {
  assert.deepEqual(negotiateShape('application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', { table: false }), { kind: 'partial' });
});

test('plain media types, and the unserved ones the general endpoints still answer in JSON', () => {
  assert.deepEqual(negotiateShape('application/yaml', { table: false }), { kind: 'object', format: 'yaml' });
  assert.deepEqual(negotiateShape(undefined, { table: false }), { kind: 'object', format: 'json' });
  assert.equal(negotiateShape('text/html', { table: false }), undefined);
  assert.deepEqual(negotiate('text/html'), { kind: 'object', format: 'json' });
});

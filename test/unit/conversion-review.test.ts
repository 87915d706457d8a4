/**
 * The ConversionReview checks of apiextensions-apiserver's webhook converter
 * (webhook_converter.go): the request's review version and objects, the answer's kind, uid and
 * result, the count and identity of the converted objects, and the metadata restored from the
 * original but for labels and annotations, with upstream's texts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyConvertedObjects, conversionReviewRequest, convertedObjectsFromResponse, gvkString, restoreObjectMeta,
} from '../../src/registry/apiextensions/conversion-review.js';
import type { KObject } from '../../src/apimachinery/object.js';

const stored = (name: string, extra: Partial<KObject['metadata']> = {}): KObject => ({
  apiVersion: 'stable.example.com/v1', kind: 'CronTab',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, generation: 1, creationTimestamp: '2026-01-01T00:00:00Z', ...extra },
  spec: { hostPort: 'h:1' },
});
const converted = (o: KObject, meta: Partial<KObject['metadata']> = {}): KObject => ({
  apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { ...o.metadata, ...meta }, spec: { host: 'h', port: 1 },
});
const LIST = 'stable.example.com/v1, Kind=CronTabList';

test('the review is sent in the first review version the server supports', () => {
  assert.equal(conversionReviewRequest(['v2', 'v1beta1', 'v1'], [], 'g/v2', 'u').version, 'v1beta1');
  const r = conversionReviewRequest(['v1'], [stored('a')], 'stable.example.com/v2', 'u1');
  assert.equal(r.body.apiVersion, 'apiextensions.k8s.io/v1');
  assert.deepEqual((r.body.request as { uid: string; desiredAPIVersion: string }).uid, 'u1');
  assert.throws(() => conversionReviewRequest(['v2'], [], 'g/v2', 'u'), { message: 'no supported conversion review versions' });
});

test('a v1 answer must be a v1 ConversionReview with the request uid and a Success result', () => {
  const ok = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'u1', result: { status: 'Success' }, convertedObjects: [1] } };
  assert.deepEqual(convertedObjectsFromResponse('v1', 'u1', ok), [1]);
  assert.throws(() => convertedObjectsFromResponse('v1', 'u1', { ...ok, apiVersion: 'apiextensions.k8s.io/v1beta1' }),
    { message: 'expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview' });
  assert.throws(() => convertedObjectsFromResponse('v1', 'u1', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }),
    { message: 'no response provided' });
  assert.throws(() => convertedObjectsFromResponse('v1', 'u1', { ...ok, response: { ...ok.response, uid: 'other' } }),
    { message: 'expected response.uid="u1", got "other"' });
  assert.throws(() => convertedObjectsFromResponse('v1', 'u1', { ...ok, response: { uid: 'u1', result: { status: 'Failure', message: 'custom webhook conversion error' } } }),
    { message: 'custom webhook conversion error' });
  assert.throws(() => convertedObjectsFromResponse('v1', 'u1', { ...ok, response: { uid: 'u1', result: {} } }),
    { message: "response.result.status was '', not 'Success'" });
  // v1beta1 answers are checked for neither kind nor uid.
  assert.deepEqual(convertedObjectsFromResponse('v1beta1', 'u1', { response: { uid: 'x', result: { status: 'Success' }, convertedObjects: [2] } }), [2]);
});

test('the answer must hold one object per object sent', () => {
  const objs = [stored('a'), stored('b')];
  assert.throws(() => applyConvertedObjects(objs, 'stable.example.com/v2', [converted(objs[0]!)], LIST),
    { message: `conversion webhook for ${LIST} returned 1 objects, expected 2` });
  assert.throws(() => applyConvertedObjects([stored('a')], 'stable.example.com/v2', [], undefined),
    { message: 'conversion webhook for stable.example.com/v1, Kind=CronTab returned 0 objects, expected 1' });
});

test('objects already in the desired version are not sent and keep their place in a list', () => {
  const a = stored('a');
  const b = { ...stored('b'), apiVersion: 'stable.example.com/v2' };
  const out = applyConvertedObjects([a, b], 'stable.example.com/v2', [converted(a)], LIST);
  assert.deepEqual(out.map((o) => [o.metadata.name, o.apiVersion, o.spec]), [
    ['a', 'stable.example.com/v2', { host: 'h', port: 1 }], ['b', 'stable.example.com/v2', { hostPort: 'h:1' }]]);
  assert.equal(out[1], b);
});

test('a converted object keeps name, namespace, uid, kind and version, in upstream words', () => {
  const a = stored('a');
  const b = stored('b');
  const at = `conversion webhook for ${LIST} returned invalid converted object at index 1`;
  assert.throws(() => applyConvertedObjects([a, b], 'stable.example.com/v2', [converted(a), converted(b, { name: 'renamed' })], LIST),
    { message: `${at}: must have the same name: b != renamed` });
  assert.throws(() => applyConvertedObjects([a, b], 'stable.example.com/v2', [converted(a), converted(b, { uid: 'x' })], LIST),
    { message: `${at}: must have the same UID: uid-b != x` });
  assert.throws(() => applyConvertedObjects([a, b], 'stable.example.com/v2', [converted(a), { ...converted(b), apiVersion: 'stable.example.com/v3' }], LIST),
    { message: `${at}: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v3)` });
  assert.throws(() => applyConvertedObjects([a, b], 'stable.example.com/v2', [converted(a), { ...converted(b), kind: 'Other' }], LIST),
    { message: `${at}: invalid kind (expected CronTab, received Other)` });
  assert.throws(() => applyConvertedObjects([a, b], 'stable.example.com/v2', [converted(a), { apiVersion: 'stable.example.com/v2', metadata: {} }], LIST),
    { message: `${at}: Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v2","metadata":{}}'` });
  const one = 'conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid object';
  assert.throws(() => applyConvertedObjects([a], 'stable.example.com/v2', [converted(a, { namespace: 'other' })], undefined),
    { message: `${one}: must have the same namespace: default != other` });
  assert.throws(() => applyConvertedObjects([a], 'stable.example.com/v2', [{ ...converted(a), apiVersion: 'v2' }], undefined),
    { message: `${one} at index 0: invalid groupVersion (expected stable.example.com/v2, received v2)` });
});

test('only labels and annotations of the converted metadata are kept; they must be valid', () => {
  const a = stored('a', { labels: { app: 'x' }, annotations: { note: 'n' }, finalizers: ['f'] });
  const out = restoreObjectMeta(a, converted(a, { labels: { app: 'y', added: 'z' }, generation: 42, finalizers: ['foo'] }));
  assert.deepEqual(out.metadata, { ...a.metadata, labels: { app: 'y', added: 'z' } });
  assert.deepEqual(out.spec, { host: 'h', port: 1 });
  // Labels absent from the answer are gone.
  const { labels: _l, ...noLabels } = a.metadata;
  assert.deepEqual(restoreObjectMeta(a, { ...converted(a), metadata: noLabels }).metadata.labels, undefined);
  assert.throws(() => restoreObjectMeta(a, { ...converted(a), metadata: undefined as unknown as KObject['metadata'] }),
    { message: 'invalid metadata of type <nil> in converted object' });
  const { metadata: _m, ...bare } = converted(a);
  assert.throws(() => restoreObjectMeta(a, bare as KObject), { message: 'missing metadata in converted object' });
  assert.throws(() => restoreObjectMeta(a, converted(a, { labels: { app: 1 as unknown as string } })),
    { message: 'metadata.labels[app] must be a string, but is float64 in converted object' });
  assert.throws(() => restoreObjectMeta(a, converted(a, { labels: { 'bad key!': 'v' } })), {
    message: 'metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', ' +
      'and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', ' +
      'regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
  });
  assert.throws(() => applyConvertedObjects([a], 'stable.example.com/v2', [converted(a, { annotations: 'x' as unknown as Record<string, string> })], LIST),
    { message: `conversion webhook for ${LIST} returned invalid metadata in object at index 0: invalid metadata.annotations of type string in converted object` });
});

test('GroupVersionKind strings are written as Go writes them', () => {
  assert.equal(gvkString('stable.example.com/v1', 'CronTab'), 'stable.example.com/v1, Kind=CronTab');
  assert.equal(gvkString('v1', 'Pod'), '/v1, Kind=Pod');
});

/**
 * String formats as kube-openapi's strfmt validates them; examples from strfmt's own tests
 * (default_test.go, time_test.go, duration_test.go) where they exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkStringFormat, isDateTime, isDuration, isSupportedFormat } from '../../src/registry/apiextensions/schema-formats.js';
import { validateCustomResource } from '../../src/registry/apiextensions/custom-resource-schema.js';

const ok = (format: string, v: string): boolean => checkStringFormat(format, v, 'x') === undefined;

test('date-time: strfmt.IsDateTime examples', () => {
  for (const v of ['2014-12-15T08:00:00.000Z', '2011-08-18T19:03:37.000+01:00', '2014-12-15T19:30:20.000Z', '2014-12-15t19:30:20z']) {
    assert.ok(isDateTime(v), v);
  }
  for (const v of ['2014-12-15T08:00:00', '2014-12-15', '2014-13-15T08:00:00Z', '2014-12-15T24:00:00Z', 'yada', '2014-02-30T08:00:00Z']) assert.ok(!isDateTime(v), v);
});

test('duration: strfmt.ParseDuration examples', () => {
  for (const v of ['0ms', '2ms', '1ns', '1us', '1µs', '1h', '1hr', '1d', '1w', '1wk', '1nanoseconds', '1nanos', '1microseconds', '3 weeks', '1.5h']) assert.ok(isDuration(v), v);
  for (const v of ['yada', '45 wekk', '45 weeekks', '12 parsecs', '12 y', '9999999999999999999999999999999999999999999999999999999 weeks']) assert.ok(!isDuration(v), v);
});

test('the other supported formats', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['uri', ['http://somewhere.com', '/path'], ['somewhere.com', '']],
    ['email', ['somebody@somewhere.com', 'Some Body <some@where.com>'], ['somebody@somewhere@com', 'no at']],
    ['hostname', ['somewhere.com', 'a.b.cd'], ['somewhere.com!', '-a.com', `${'a'.repeat(64)}.com`]],
    ['ipv4', ['192.168.254.1', '010.1.1.1'], ['192.168.254.256', '::1']],
    ['ipv6', ['::1', '2001:db8::1', '::ffff:1.2.3.4'], ['127.0.0.1', '1:2:3:4:5:6:7:8:9']],
    ['cidr', ['192.168.254.1/24', '2001:db8::/48'], ['192.168.254.1', '10.0.0.0/33']],
    ['mac', ['01:02:03:04:05:06', '01-02-03-04-05-06', '0102.0304.0506'], ['01:02:03:04:05', '01:02-03:04:05:06']],
    ['uuid', ['a8098c1a-f86e-11da-bd1a-00112444be1e', 'A8098C1AF86E11DABD1A00112444BE1E'], ['zzz']],
    ['uuid3', ['bcd02e22-68f0-3046-a512-327cca9def8f'], ['a8098c1a-f86e-11da-bd1a-00112444be1e']],
    ['uuid4', ['025b0d74-00a2-4048-bf57-227c5111bb34'], ['a8098c1a-f86e-11da-bd1a-00112444be1e']],
    ['uuid5', ['886313e1-3b8a-5372-9b90-0c9aee199e5d'], ['a8098c1a-f86e-11da-bd1a-00112444be1e']],
    ['isbn', ['0321751043', '978-0321751041'], ['836217463']],
    ['isbn10', ['0321751043', '3-8362-2119-5'], ['3836221191']],
    ['isbn13', ['978-3-8362-2119-1', '9780321751041'], ['978-3-8362-2119-2']],
    ['creditcard', ['4111-1111-1111-1111', '4111111111111111'], ['4111-1111-1111-1112', '2221000000000009']],
    ['ssn', ['111-11-1111', '111 11 1111'], ['11-11-1111', '111111111']],
    ['hexcolor', ['#FFFFFF', 'fff'], ['#FFFFFG']],
    ['rgbcolor', ['rgb(255,255,255)', 'rgb( 0 , 10 , 200 )'], ['rgb(256,0,0)']],
    ['byte', ['ZWxpemFiZXRocG9zZXk='], ['ZWxpemFiZXRocG9zZXk']],
    ['bsonobjectid', ['507f1f77bcf86cd799439011'], ['507f1f77bcf86cd79943901']],
    ['date', ['2012-01-01', '2016-02-29'], ['2012-1-1', '2015-02-29']],
    ['password', ['anything'], []],
  ];
  for (const [format, good, bad] of cases) {
    for (const v of good) assert.ok(ok(format, v), `${format} ${v}`);
    for (const v of bad) assert.ok(!ok(format, v), `${format} ${v}`);
  }
});

test('names are normalised by removing "-"; unknown formats are not checked', () => {
  assert.ok(isSupportedFormat('date-time') && isSupportedFormat('uu-id'));
  assert.ok(!ok('date-time', 'x') && !ok('datetime', 'x'));
  assert.ok(ok('int32', 'x') && ok('foo', 'x'));
});

test('message and place: after pattern, before enum, with the format as written', () => {
  const errs = validateCustomResource({ type: 'object', properties: { spec: { type: 'object', properties: {
    when: { type: 'string', format: 'date-time', pattern: '^a', enum: ['b'] },
  } } } }, { spec: { when: 'x\n' } });
  assert.deepEqual(errs.map((e) => [e.type, e.field, e.detail]), [
    ['FieldValueInvalid', 'spec.when', "spec.when in body should match '^a'"],
    ['FieldValueTypeInvalid', 'spec.when', 'spec.when in body must be of type date-time: "x\\n"'],
    ['FieldValueNotSupported', 'spec.when', 'supported values: "b"'],
  ]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJSONSyntaxError } from '../../src/registry/go-json-check.js';
import { decodeContinue, encodeContinue } from '../../src/registry/continue-token.js';

test('JSON syntax errors in encoding/json words', () => {
  const cases: Array<[string, string | undefined]> = [
    ['{"v":"x","rv":1}', undefined],
    ['  [1, 2.5e-3, true, null, "a\\u00e9"]  ', undefined],
    ['', 'unexpected end of JSON input'],
    ['{"v":', 'unexpected end of JSON input'],
    ['tru', 'unexpected end of JSON input'],
    ['hello', "invalid character 'h' looking for beginning of value"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['{1:2}', "invalid character '1' looking for beginning of object key string"],
    ['[1 2]', "invalid character '2' after array element"],
    ['01', "invalid character '1' after top-level value"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['"a\\qb"', "invalid character 'q' in string escape code"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
  ];
  for (const [text, want] of cases) assert.equal(goJSONSyntaxError(Buffer.from(text)), want, text);
  assert.equal(goJSONSyntaxError(Buffer.from([0xff])), "invalid character 'ÿ' looking for beginning of value");
});

test('continue tokens round-trip as unpadded base64url', () => {
  const t = encodeContinue(42, 'ns/name\u0000');
  assert.match(t, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(JSON.parse(Buffer.from(t, 'base64url').toString()), { v: 'meta.k8s.io/v1', rv: 42, start: 'ns/name\u0000' });
  assert.deepEqual(decodeContinue(t), { startKey: 'ns/name\u0000', revision: 42 });
});

test('continue token errors as DecodeContinue words them', () => {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const cases: Array<[string, string]> = [
    ['a=b', 'continue key is not valid: illegal base64 data at input byte 1'],
    [enc([1]), 'continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken'],
    [enc({ v: 'meta.k8s.io/v1', rv: 1.5, start: 'a' }), 'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64'],
    [enc({ v: 1, rv: 1, start: 'a' }), 'continue key is not valid: json: cannot unmarshal number 1 into Go struct field continueToken.v of type string'],
    [enc(null), 'continue key is not valid: server does not recognize this encoded version '],
    [enc({ V: 'meta.k8s.io/v1', RV: 3, Start: 'a/../../b' }), 'continue key is not valid: a/../../b'],
  ];
  for (const [token, want] of cases) assert.throws(() => decodeContinue(token), { message: want }, token);
  assert.deepEqual(decodeContinue(enc({ V: 'meta.k8s.io/v1', RV: -1, Start: '/a' })), { startKey: 'a', revision: -1 });
});

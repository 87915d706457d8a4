import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedRequestURI, requestPath } from '../../src/api/request-path.js';
import { parseResourcePath } from '../../src/api/request-info.js';
import { pathSegmentNameProblems } from '../../src/api/path-segment.js';

test('the path is decoded once and never resolved, as Go\'s URL.Path', () => {
  assert.equal(requestPath('/api/v1/namespaces/default/secrets/%2e%2e'), '/api/v1/namespaces/default/secrets/..');
  assert.equal(requestPath('/api/v1/namespaces/p/configmaps/..'), '/api/v1/namespaces/p/configmaps/..');
  assert.equal(requestPath('/a/b%2Fc/%25?x=%ZZ&y=..'), '/a/b/c/%');
  assert.equal(requestPath('/caf%C3%A9'), '/café');
  assert.equal(requestPath('https://localhost:6443/api/v1/%2e'), '/api/v1/.');
});

test('a broken escape is Go\'s "invalid URL escape"', () => {
  for (const p of ['/api/v1/namespaces/%ZZ/configmaps', '/x/%E0%A4%A', '/x%', '/x%2', '/%g0']) {
    assert.throws(() => requestPath(p), MalformedRequestURI, p);
  }
  assert.throws(() => requestPath('/x/%zz1'), { message: 'invalid URL escape "%zz"' });
});

test('RequestInfo splits at every slash: empty segments stay', () => {
  assert.deepEqual(parseResourcePath('/api/v1/namespaces/default/configmaps/..'),
    { group: '', version: 'v1', namespace: 'default', resource: 'configmaps', name: '..', subresource: '', watchPath: false });
  // `configmaps/%2F` trims to the collection.
  assert.equal(parseResourcePath('/api/v1/namespaces/default/configmaps//')?.name, '');
  // `namespaces/%2F/configmaps/x`: namespace "" and no resource.
  assert.deepEqual(parseResourcePath('/api/v1/namespaces///configmaps/x'),
    { group: '', version: 'v1', namespace: '', resource: '', name: 'configmaps', subresource: 'x', watchPath: false });
  assert.equal(parseResourcePath('/api/v1/namespaces/p/configmaps/../secrets/keep'), undefined);
});

test('IsValidPathSegmentName', () => {
  assert.deepEqual(pathSegmentNameProblems('.'), ["may not be '.'"]);
  assert.deepEqual(pathSegmentNameProblems('..'), ["may not be '..'"]);
  assert.deepEqual(pathSegmentNameProblems('a/%'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(pathSegmentNameProblems('...'), []);
  assert.deepEqual(pathSegmentNameProblems('a.b'), []);
});

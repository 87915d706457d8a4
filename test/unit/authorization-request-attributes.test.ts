/** The request attributes the authorizer sees: upstream's requestinfo_test.go TestGetAPIRequestInfo and TestGetNonAPIRequestInfo. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestAttributes } from '../../src/api/request-attributes.js';

const u = { name: 'u', groups: [] };

function info(method: string, url: string) {
  const q = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const a = requestAttributes(u, method, url.replace(/\?.*/, ''), new URLSearchParams(q));
  return [a.verb, a.apiGroup, a.apiVersion, a.namespace, a.resource, a.subresource, a.name, a.resourceRequest];
}

test('resource requests: verb, group, version, namespace, resource, subresource and name', () => {
  const cases: [string, string, string, string, string, string, string, string, string][] = [
    ['GET', '/api/v1/namespaces', 'list', '', 'v1', '', 'namespaces', '', ''],
    ['GET', '/api/v1/namespaces/other', 'get', '', 'v1', 'other', 'namespaces', '', 'other'],
    ['GET', '/api/v1/namespaces/other/pods', 'list', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', '', 'v1', 'other', 'pods', '', 'foo'],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/pods', 'list', '', 'v1', '', 'pods', '', ''],
    ['HEAD', '/api/v1/pods', 'list', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource', 'proxy', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/watch/pods', 'watch', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/pods?watch=true', 'watch', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/pods?watch=false', 'list', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', '', 'v1', 'other', 'pods', 'status', 'foo'],
    ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', '', 'v1', 'other', 'pods', 'proxy', 'foo'],
    ['PUT', '/api/v1/namespaces/other/finalize', 'update', '', 'v1', 'other', 'namespaces', 'finalize', 'other'],
    ['PUT', '/api/v1/namespaces/other/status', 'update', '', 'v1', 'other', 'namespaces', 'status', 'other'],
    ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', '', 'v1', 'other', 'pods', '', 'foo'],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', '', 'v1', 'other', 'pods', '', 'foo'],
    ['POST', '/api/v1/namespaces/other/pods', 'create', '', 'v1', 'other', 'pods', '', ''],
    ['DELETE', '/api/v1/nodes', 'deletecollection', '', 'v1', '', 'nodes', '', ''],
    ['DELETE', '/api/v1/namespaces', 'deletecollection', '', 'v1', '', 'namespaces', '', ''],
    ['DELETE', '/apis/extensions/v1/namespaces/other/pods', 'deletecollection', 'extensions', 'v1', 'other', 'pods', '', ''],
    ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'extensions', 'v1beta3', 'other', 'pods', '', ''],
    // A list pinned to one name by its field selector names it (so resourceNames rules can allow it).
    ['GET', '/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo', 'list', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/nodes?fieldSelector=metadata.name%3D%3Dn1&watch=true', 'watch', '', 'v1', '', 'nodes', '', 'n1'],
    ['GET', '/api/v1/nodes?fieldSelector=metadata.name!%3Dn1', 'list', '', 'v1', '', 'nodes', '', ''],
    // Options that do not decode: a list, or a watch when asked for.
    ['GET', '/api/v1/pods?limit=x&watch=yes', 'watch', '', 'v1', '', 'pods', '', ''],
  ];
  for (const [method, url, ...want] of cases) assert.deepEqual(info(method, url), [...want, true], `${method} ${url}`);
});

test('non-resource requests keep the path and take the method as verb', () => {
  for (const [method, url] of [['GET', '/api'], ['GET', '/api/v1'], ['GET', '/apis/apps/v1'], ['GET', '/healthz/etcd'], ['POST', '/foo'], ['GET', '/openapi/v2'], ['GET', '/']]) {
    const a = requestAttributes(u, method!, url!, new URLSearchParams());
    assert.equal(a.resourceRequest, false, url);
    assert.equal(a.verb, method!.toLowerCase());
    assert.equal(a.path, url);
  }
});

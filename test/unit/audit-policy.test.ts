import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluatePolicy, parseAuditPolicy } from '../../src/api/audit/policy.js';
import { nonResourceAttributes, resourceAttributes } from '../../src/authorization/types.js';

const policy = parseAuditPolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: RequestResponse
    omitStages: [ResponseStarted]
    omitManagedFields: true
    resources:
      - group: ""
        resources: ["pods/log", "*/status"]
  - level: Request
    namespaces: ["kube-system"]
    resources:
      - group: "apps"
        resources: ["deployments/*"]
        resourceNames: ["coredns"]
  - level: Metadata
    userGroups: ["system:nodes"]
  - level: Metadata
    nonResourceURLs: ["/healthz*", "/version"]
`);

const user = (name: string, groups: string[] = []) => ({ name, groups });
const pods = (verb: string, subresource = '', u = user('alice')) =>
  resourceAttributes(u, { verb, apiVersion: 'v1', resource: 'pods', subresource, namespace: 'default', name: 'p' });

test('the first matching rule decides; stages are the union of the policy\'s and the rule\'s', () => {
  assert.deepEqual(evaluatePolicy(policy, pods('get', 'log')), { level: 'RequestResponse', omitStages: ['RequestReceived', 'ResponseStarted'], omitManagedFields: true });
  assert.equal(evaluatePolicy(policy, pods('update', 'status')).level, 'RequestResponse');
  assert.equal(evaluatePolicy(policy, pods('get')).level, 'None');
  assert.equal(evaluatePolicy(policy, pods('watch', '', user('system:kube-proxy', ['system:nodes']))).level, 'None');
  assert.equal(evaluatePolicy(policy, pods('get', '', user('system:node:n1', ['system:nodes']))).level, 'Metadata');
});

test('resources match by group, resource/* and resourceNames within the listed namespaces', () => {
  const dep = (namespace: string, name: string, subresource = '') =>
    resourceAttributes(user('bob'), { verb: 'patch', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', subresource, namespace, name });
  assert.deepEqual(evaluatePolicy(policy, dep('kube-system', 'coredns', 'scale')), { level: 'Request', omitStages: ['RequestReceived'], omitManagedFields: false });
  assert.equal(evaluatePolicy(policy, dep('kube-system', 'other', 'scale')).level, 'None');
  assert.equal(evaluatePolicy(policy, dep('default', 'coredns', 'scale')).level, 'None');
});

test('non-resource URLs match exactly or by a trailing *', () => {
  assert.equal(evaluatePolicy(policy, nonResourceAttributes(user('x'), 'get', '/healthz/etcd')).level, 'Metadata');
  assert.equal(evaluatePolicy(policy, nonResourceAttributes(user('x'), 'get', '/version')).level, 'Metadata');
  assert.equal(evaluatePolicy(policy, nonResourceAttributes(user('x'), 'get', '/versions')).level, 'None');
});

test('an invalid policy is refused with upstream\'s messages', () => {
  assert.throws(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Everything\n'),
    { message: 'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"' });
  assert.throws(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n'), { message: 'loaded illegal policy with 0 rules' });
});

/** Malformed access reviews and impersonation headers: upstream's answers (pkg/apis/authorization/validation, the impersonation filter). */
import { after, before, test } from 'node:test';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only', '--authorization-mode=RBAC']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const AZ = '/apis/authorization.k8s.io/v1';
const review = (kind: string, spec: unknown, metadata?: unknown) =>
  JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind, ...(metadata ? { metadata } : {}), spec });
/**
 * NewInvalid(authorizationapi.Kind(obj.Kind), ...) of the internal object the decoder converted into: its
 * kind is empty, whatever review was sent (`kind` names the review only for the reader).
 */
const invalid = (_kind: string, causes: string) => `.authorization.k8s.io "" is invalid: ${causes}`;

const cases: MalformedCase[] = [
  {
    name: 'SubjectAccessReview without attributes or subject', method: 'POST', path: `${AZ}/subjectaccessreviews`,
    body: review('SubjectAccessReview', {}), status: 422, reason: 'Invalid',
    message: invalid('SubjectAccessReview', '[spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, '
      + 'spec.user: Invalid value: "": at least one of user or group must be specified]'),
  },
  {
    name: 'SubjectAccessReview with both kinds of attributes', method: 'POST', path: `${AZ}/subjectaccessreviews`,
    body: review('SubjectAccessReview', { user: 'u', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } }),
    status: 422, reason: 'Invalid',
    message: invalid('SubjectAccessReview', 'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: '
      + 'cannot be specified in combination with resourceAttributes'),
  },
  {
    name: 'SelfSubjectAccessReview without attributes', method: 'POST', path: `${AZ}/selfsubjectaccessreviews`,
    body: review('SelfSubjectAccessReview', {}), status: 422, reason: 'Invalid',
    message: invalid('SelfSubjectAccessReview', 'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'),
  },
  {
    name: 'LocalSubjectAccessReview of another namespace', method: 'POST', path: `${AZ}/namespaces/default/localsubjectaccessreviews`,
    body: review('LocalSubjectAccessReview', { user: 'u', resourceAttributes: { verb: 'get', namespace: 'kube-system' } }), status: 422, reason: 'Invalid',
    message: invalid('LocalSubjectAccessReview', 'spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace'),
  },
  {
    name: 'LocalSubjectAccessReview of a path', method: 'POST', path: `${AZ}/namespaces/default/localsubjectaccessreviews`,
    body: review('LocalSubjectAccessReview', { user: 'u', nonResourceAttributes: { path: '/x', verb: 'get' } }), status: 422, reason: 'Invalid',
    message: invalid('LocalSubjectAccessReview', 'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request'),
  },
  {
    name: 'SelfSubjectRulesReview without a namespace', method: 'POST', path: `${AZ}/selfsubjectrulesreviews`,
    body: review('SelfSubjectRulesReview', {}), status: 400, reason: 'BadRequest', message: 'no namespace on request',
  },
  {
    name: 'Impersonate-Uid without Impersonate-User', method: 'GET', path: '/api/v1/namespaces', headers: { 'Impersonate-Uid': '1234' },
    status: 500, text: 'Internal Server Error: "/api/v1/namespaces": requested [{UID  1234  authentication.k8s.io/v1  }] without impersonating a user\n',
  },
  {
    name: 'Impersonate-Extra without Impersonate-User', method: 'GET', path: '/api/v1/namespaces', headers: { 'Impersonate-Extra-Scopes': 'view' },
    status: 500, text: 'Internal Server Error: "/api/v1/namespaces": requested [{UserExtra  view  authentication.k8s.io/v1  scopes}] without impersonating a user\n',
  },
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));

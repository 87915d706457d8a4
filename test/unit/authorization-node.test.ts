/**
 * The Node authorizer's decisions and reasons (node_authorizer.go, v1.32 with
 * AuthorizeNodeWithSelectors), on a graph that relates named objects to
 * nodes, and the pod references the graph is made of.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { NodeAuthorizer, nodeIdentity, type RelatedKind } from '../../src/authorization/node-authorizer.js';
import { resourceAttributes, type Attributes } from '../../src/authorization/types.js';
import { podClaimNames, podConfigMapNames, podSecretNames } from '../../src/component-helpers/pod-references.js';
import { nodeRules } from '../../src/registry/rbac/bootstrap-policy.js';
import { parseFieldSelector } from '../../src/selectors/fields.js';

const related = new Set(['n1/secret/ns/s1', 'n1/pod/ns/p1', 'n1/serviceAccount/ns/default', 'n1/pv//pv1']);
const authorizer = new NodeAuthorizer({
  hasPathFrom: (node: string, kind: RelatedKind, ns: string, name: string) => related.has(`${node}/${kind}/${ns}/${name}`),
}, nodeRules());
const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const decide = (a: Partial<Attributes>, selector?: string) => {
  const r = authorizer.authorize(resourceAttributes(n1, { apiVersion: 'v1', ...a, fieldSelector: selector ? parseFieldSelector(selector).terms : undefined }));
  return r.decision === 'Allow' ? 'Allow' : `NoOpinion: ${r.reason}`;
};

test('a node is a system:node:<name> user in system:nodes; others get no opinion', () => {
  assert.equal(nodeIdentity(n1), 'n1');
  assert.equal(nodeIdentity({ name: 'system:node:n1', groups: [] }), undefined);
  assert.equal(nodeIdentity({ name: 'alice', groups: ['system:nodes'] }), undefined);
  assert.equal(authorizer.authorize(resourceAttributes({ name: 'system:node:', groups: ['system:nodes'] }, { verb: 'get', resource: 'pods' })).reason,
    'unknown node for user "system:node:"');
  assert.deepEqual(authorizer.authorize(resourceAttributes({ name: 'alice', groups: [] }, { verb: 'get', resource: 'secrets', name: 's1', namespace: 'ns' })),
    { decision: 'NoOpinion', reason: '' });
});

test('secrets, configmaps, volumes and claims: what the graph relates, with upstream reasons otherwise', () => {
  assert.equal(decide({ verb: 'get', resource: 'secrets', namespace: 'ns', name: 's1' }), 'Allow');
  assert.equal(decide({ verb: 'watch', resource: 'secrets', namespace: 'ns', name: 's1' }), 'Allow');
  assert.equal(decide({ verb: 'get', resource: 'secrets', namespace: 'ns', name: 's2' }), "NoOpinion: no relationship found between node 'n1' and this object");
  assert.equal(decide({ verb: 'list', resource: 'secrets', namespace: 'ns' }), 'NoOpinion: No Object name found');
  assert.equal(decide({ verb: 'update', resource: 'secrets', namespace: 'ns', name: 's1' }), 'NoOpinion: can only read resources of this type');
  assert.equal(decide({ verb: 'list', resource: 'configmaps' }), 'NoOpinion: can only read namespaced object of this type');
  assert.equal(decide({ verb: 'get', resource: 'persistentvolumes', name: 'pv1' }), 'Allow');
  assert.equal(decide({ verb: 'list', resource: 'persistentvolumes' }), 'NoOpinion: can only get individual resources of this type');
  assert.equal(decide({ verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c', subresource: 'status' }),
    'NoOpinion: can only get/update/patch this type');
  assert.equal(decide({ verb: 'create', resource: 'serviceaccounts', namespace: 'ns', name: 'default', subresource: 'token' }), 'Allow');
  assert.equal(decide({ verb: 'create', resource: 'serviceaccounts', namespace: 'ns', name: 'default' }),
    'NoOpinion: can only create token subresource of serviceaccount');
  assert.equal(decide({ verb: 'get', resource: 'serviceaccounts', namespace: 'ns', name: 'default' }),
    'NoOpinion: can only create tokens for individual service accounts');
});

test('pods and nodes: field-selected lists, its own Node by name, writes left to NodeRestriction', () => {
  assert.equal(decide({ verb: 'list', resource: 'pods' }, 'spec.nodeName=n1'), 'Allow');
  assert.equal(decide({ verb: 'watch', resource: 'pods' }, 'spec.nodeName==n1,status.phase=Running'), 'Allow');
  assert.equal(decide({ verb: 'list', resource: 'pods' }, 'spec.nodeName!=n1'), 'NoOpinion: can only list/watch pods with spec.nodeName field selector');
  assert.equal(decide({ verb: 'list', resource: 'pods' }, 'spec.nodeName=n2'), 'NoOpinion: can only list/watch pods with spec.nodeName field selector');
  assert.equal(decide({ verb: 'get', resource: 'pods', namespace: 'ns', name: 'p1' }), 'Allow');
  assert.equal(decide({ verb: 'get', resource: 'pods', namespace: 'ns', name: 'p2' }), "NoOpinion: no relationship found between node 'n1' and this object");
  assert.equal(decide({ verb: 'update', resource: 'pods', namespace: 'ns', name: 'p2', subresource: 'status' }), 'Allow');
  assert.equal(decide({ verb: 'update', resource: 'pods', namespace: 'ns', name: 'p2' }), 'NoOpinion: ');
  assert.equal(decide({ verb: 'get', resource: 'nodes', name: 'n1' }), 'Allow');
  assert.equal(decide({ verb: 'get', resource: 'nodes', name: 'n2' }), "NoOpinion: node 'n1' cannot read 'n2', only its own Node object");
  assert.equal(decide({ verb: 'patch', resource: 'nodes', name: 'n2' }), 'Allow');
  assert.equal(decide({ verb: 'delete', resource: 'nodes', name: 'n1' }), 'NoOpinion: ');
  assert.equal(decide({ verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n1' }), 'Allow');
  assert.equal(decide({ verb: 'list', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease' }),
    'NoOpinion: can only get, create, update, patch, or delete a node lease');
  assert.equal(decide({ verb: 'get', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'default', name: 'n1' }),
    'NoOpinion: can only access leases in the "kube-node-lease" system namespace');
  // The static node rules: services readable, deployments not.
  assert.equal(decide({ verb: 'list', resource: 'services' }), 'Allow');
  assert.equal(decide({ verb: 'list', apiGroup: 'apps', resource: 'deployments' }), 'NoOpinion: ');
});

test('the Secrets, ConfigMaps and claims a pod names, as VisitPodSecretNames and VisitPodConfigmapNames visit them', () => {
  const spec: PodSpec = {
    imagePullSecrets: [{ name: 'pull' }, { name: '' }],
    initContainers: [{ name: 'i', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'init-env', key: 'k' } } }] }],
    containers: [{
      name: 'c',
      envFrom: [{ secretRef: { name: 'env-from' } }, { configMapRef: { name: 'cm-from' } }],
      env: [{ name: 'B', valueFrom: { configMapKeyRef: { name: 'cm-env', key: 'k' } } }],
    }],
    volumes: [
      { name: 'v1', secret: { secretName: 'vol' } },
      { name: 'v2', projected: { sources: [{ secret: { name: 'proj' } }, { configMap: { name: 'cm-proj' } }] } },
      { name: 'v3', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi' } } },
      { name: 'v4', configMap: { name: 'cm-vol' } },
      { name: 'v5', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    ],
  };
  assert.deepEqual(podSecretNames(spec), ['pull', 'init-env', 'env-from', 'vol', 'proj', 'csi']);
  assert.deepEqual(podConfigMapNames(spec), ['cm-from', 'cm-env', 'cm-proj', 'cm-vol']);
  assert.deepEqual(podClaimNames('web', spec), ['data', 'web-scratch']);
});

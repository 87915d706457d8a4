/**
 * Each controller acts as its own identity, as kube-controller-manager with
 * --use-service-account-credentials (cmd/kube-controller-manager/app/*.go:
 * ClientBuilder.ClientOrDie("<service account>")): the controller manager
 * gives each a client and an event recorder as
 * system:serviceaccount:kube-system:<name>, keeping the manager's field
 * manager unless the controller's writes named their own before the
 * controllers moved onto the client; the informers stay shared.
 */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import type { Client, UserInfo } from '../../src/client/types.js';
import { startControllers } from '../../src/controllers/manager.js';
import { controllerRegistry } from '../../src/controllers/registry.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { LBPool } from '../../src/network/lb-pool.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { eventually, fixture } from './service-fixture.js';

const UPSTREAM_SERVICE_ACCOUNTS: Record<string, string> = {
  'namespace-controller': 'namespace-controller',
  'garbage-collector-controller': 'generic-garbage-collector',
  'resourcequota-controller': 'resourcequota-controller',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation-controller',
  'validatingadmissionpolicy-status-controller': 'validatingadmissionpolicy-status-controller',
  'certificatesigningrequest-signing-controller': 'certificate-controller',
  'certificatesigningrequest-approving-controller': 'certificate-controller',
  'certificatesigningrequest-cleaner-controller': 'certificate-controller',
  'endpoints-controller': 'endpoint-controller',
  'endpointslice-controller': 'endpointslice-controller',
  'endpointslice-mirroring-controller': 'endpointslicemirroring-controller',
  'node-lifecycle-controller': 'node-controller',
  'taint-eviction-controller': 'node-controller',
  'disruption-controller': 'disruption-controller',
  'pod-garbage-collector-controller': 'pod-garbage-collector',
  'service-lb-controller': 'service-controller',
  'replicaset-controller': 'replicaset-controller',
  'replicationcontroller-controller': 'replication-controller',
  'deployment-controller': 'deployment-controller',
  'job-controller': 'job-controller',
  'cronjob-controller': 'cronjob-controller',
  'ttl-after-finished-controller': 'ttl-after-finished-controller',
  'statefulset-controller': 'statefulset-controller',
  'daemonset-controller': 'daemon-set-controller',
  'horizontal-pod-autoscaler-controller': 'horizontal-pod-autoscaler',
  'persistentvolume-binder-controller': 'persistent-volume-binder',
  'winkube-local-provisioner': 'winkube-local-provisioner',
};

/** The controllers whose writes name a field manager other than the manager's. */
const OWN_FIELD_MANAGERS: Record<string, string> = {
  'validatingadmissionpolicy-status-controller': 'validatingadmissionpolicy-status',
  'disruption-controller': 'disruption-controller',
  'job-controller': 'job-controller',
  'cronjob-controller': 'cronjob-controller',
  'statefulset-controller': 'statefulset-controller',
  'daemonset-controller': 'daemonset-controller',
};

test('the controller manager runs each controller as its upstream service account: its client and its events', async () => {
  const f = await fixture();
  const root = new LoopbackClient(f.store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager');
  const ctx = newControllerContext({ client: root });
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  try {
    const seen: Record<string, string> = {};
    for (const c of controllerRegistry({ ca: { cert: 'CA', key: '' }, workloads: { lbPool: LBPool.parse('192.0.2.0/29'), hpa: { metrics: { resourceMetric: () => Promise.reject(new Error('metrics are not read here')) }, scales: { get: () => Promise.reject(new Error('scales are not read here')), update: () => Promise.reject(new Error('scales are not written here')) } } } })) {
      const given: { user: string; groups: string[]; fieldManager: string }[] = [];
      const manager: Client = Object.create(root);
      manager.as = (user: UserInfo, fieldManager: string) => {
        given.push({ user: user.name, groups: user.groups, fieldManager });
        return root.as(user, fieldManager);
      };
      // The recorder on the manager's client, so that the one the controller derives from it is seen too.
      await c.run(newControllerContext({ client: manager, informers: ctx.informers }), abort.signal);
      const user = given[0]?.user ?? '';
      const groups = ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'];
      assert.deepEqual(given, [
        { user, groups, fieldManager: OWN_FIELD_MANAGERS[c.name] ?? 'kube-controller-manager' },
        { user, groups, fieldManager: 'event-recorder' },
      ], c.name);
      seen[c.name] = user;
    }
    assert.deepEqual(seen, Object.fromEntries(Object.entries(UPSTREAM_SERVICE_ACCOUNTS)
      .map(([name, sa]) => [name, `system:serviceaccount:kube-system:${sa}`])));
  } finally {
    abort.abort();
    ctx.informers.stop();
    await f.close();
  }
});

test('a controller\'s writes reach the registry as its service account: a namespace\'s ServiceAccount and root CA ConfigMap', async () => {
  const f = await fixture();
  const writers: string[] = [];
  const create = f.store.create.bind(f.store);
  f.store.create = (def, ns, obj, c: WriteContext) => {
    if (ns === 'fresh') writers.push(`${def.resource} ${c.user?.name} ${c.fieldManager}`);
    return create(def, ns, obj, c);
  };
  const client = new LoopbackClient(f.store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager');
  const events = new EventRecorder(loopback(f.store));
  const running = await startControllers({
    client, events, log: () => {}, ca: { cert: 'CA', key: '' }, newContext: () => newControllerContext({ client, events }),
  });
  try {
    await f.store.create(f.def('', 'namespaces'), '', { metadata: { name: 'fresh' } }, f.ctx());
    await eventually(() => (writers.length >= 2 ? true : undefined), 'the namespace controller writes');
    assert.deepEqual(writers.sort(), [
      'configmaps system:serviceaccount:kube-system:root-ca-cert-publisher kube-controller-manager',
      'serviceaccounts system:serviceaccount:kube-system:service-account-controller kube-controller-manager',
    ]);
  } finally {
    running.stop();
    await f.close();
  }
});

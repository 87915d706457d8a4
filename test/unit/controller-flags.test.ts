/**
 * `winkube up --controllers`, with kube-controller-manager v1.32's
 * semantics (options/generic.go Validate, IsControllerEnabled): `*` for
 * the controllers on by default, `name` and `-name` (the first entry
 * naming a controller decides), aliases, and the error for unknown names;
 * and the controller manager starts exactly the enabled controllers, on
 * one informer per resource.
 */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventRecorder } from '../../src/events/recorder.js';
import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { parseControllersFlag, startControllers, type ControllerManagerOptions } from '../../src/controllers/manager.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { isControllerEnabled, parseControllers } from '../../src/controllers/runtime/controller-flags.js';
import { LBPool } from '../../src/network/lb-pool.js';
import type { Store } from '../../src/registry/store.js';
import type { ResourceDef } from '../../src/registry/types.js';
import { fixture } from './service-fixture.js';

/** What winkube up gives the controller manager: its client as system:kube-controller-manager, and a context per term. */
function managerOptions(store: Store): Pick<ControllerManagerOptions, 'client' | 'newContext' | 'events' | 'log'> {
  const client = new LoopbackClient(store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager');
  const events = new EventRecorder(loopback(store));
  return { client, events, log: () => {}, newContext: () => newControllerContext({ client, events }) };
}

test('--controllers: * enables what is on by default; name enables; -name disables; the first entry naming a controller decides', () => {
  const star = parseControllers(['*']);
  assert.equal(star.enabled('deployment-controller'), true);
  assert.equal(star.enabled('bootstrap-signer-controller'), false, 'disabled by default');
  assert.equal(star.enabled('token-cleaner-controller'), false, 'disabled by default');
  const minus = parseControllers(['*,-deployment-controller']);
  assert.equal(minus.enabled('deployment-controller'), false);
  assert.equal(minus.enabled('replicaset-controller'), true);
  const explicit = parseControllers(['bootstrap-signer-controller,job-controller']);
  assert.equal(explicit.enabled('bootstrap-signer-controller'), true, 'named, so on even though off by default');
  assert.equal(explicit.enabled('deployment-controller'), false, 'no * : only the named ones');
  assert.equal(isControllerEnabled('job-controller', ['-job-controller', 'job-controller', '*']), false);
  assert.equal(isControllerEnabled('job-controller', ['job-controller', '-job-controller']), true);
  assert.equal(isControllerEnabled('job-controller', []), false);
});

test('--controllers: repeated flags add up; aliases map to the canonical names, minus kept', () => {
  const s = parseControllers(['*', '-deployment,replicaset']);
  assert.deepEqual(s.controllers, ['*', '-deployment-controller', 'replicaset-controller']);
  assert.equal(s.enabled('deployment-controller'), false);
});

test('--controllers: an unknown name is upstream\'s validation error; several are aggregated', () => {
  assert.throws(() => parseControllers(['*,-no-such-controller']), { message: '"no-such-controller" is not in the list of known controllers' });
  assert.throws(() => parseControllers(['foo,-bar']), { message: '["foo" is not in the list of known controllers, "bar" is not in the list of known controllers]' });
  assert.throws(() => parseControllers(['winkube-local-provisioner']), { message: '"winkube-local-provisioner" is not in the list of known controllers' });
  assert.equal(parseControllersFlag(['*,-winkube-local-provisioner']).enabled('winkube-local-provisioner'), false, "winkube's own controller is known to winkube up");
});

/** Counts the lists and watches of each resource made through the store. */
function counting(store: Store): { lists: Map<string, number>; watches: Map<string, number> } {
  const lists = new Map<string, number>();
  const watches = new Map<string, number>();
  const bump = (m: Map<string, number>, def: ResourceDef) => m.set(def.resource, (m.get(def.resource) ?? 0) + 1);
  const list = store.list.bind(store);
  const watch = store.watch.bind(store);
  store.list = (def, ...rest) => { bump(lists, def); return list(def, ...rest); };
  store.watch = (def, ...rest) => { bump(watches, def); return watch(def, ...rest); };
  return { lists, watches };
}

test('the controller manager starts the enabled controllers only, and lists and watches pods once for all of them', async () => {
  const f = await fixture();
  const { lists, watches } = counting(f.store);
  const running = await startControllers({
    ...managerOptions(f.store), ca: { cert: 'CA', key: '' },
    workloads: { lbPool: LBPool.parse('192.0.2.0/29') },
    controllers: parseControllersFlag(['*,-deployment-controller,-cronjob-controller']),
  });
  try {
    assert.ok(running.started.includes('replicaset-controller'));
    assert.ok(running.started.includes('job-controller'));
    assert.ok(!running.started.includes('deployment-controller'));
    assert.ok(!running.started.includes('cronjob-controller'));
    assert.equal(running.started.length, 24);
    assert.deepEqual({ lists: lists.get('pods'), watches: watches.get('pods') }, { lists: 1, watches: 1 });
    assert.deepEqual({ lists: lists.get('nodes'), watches: watches.get('nodes') }, { lists: 1, watches: 1 });
  } finally {
    running.stop();
    await f.close();
  }
});

test('with --api-only only the namespace, garbage collector, resource quota, ClusterRole aggregation, admission policy status and certificate controllers start', async () => {
  const f = await fixture();
  const running = await startControllers({ ...managerOptions(f.store), ca: { cert: 'CA', key: '' } });
  try {
    assert.deepEqual(running.started, ['namespace-controller', 'garbage-collector-controller', 'resourcequota-controller',
      'clusterrole-aggregation-controller', 'validatingadmissionpolicy-status-controller', 'certificatesigningrequest-signing-controller',
      'certificatesigningrequest-approving-controller', 'certificatesigningrequest-cleaner-controller']);
  } finally {
    running.stop();
    await f.close();
  }
});

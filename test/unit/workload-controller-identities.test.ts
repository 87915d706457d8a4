/**
 * Each workload controller acts as its own service account, as
 * kube-controller-manager does with --use-service-account-credentials
 * (the names its ClientBuilder.ClientOrDie calls use), and its writes name
 * the field manager they named before the controllers moved onto the client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { KUBE_CONTROLLER_MANAGER, controllerServiceAccount } from '../../src/client/identities.js';
import type { Client, UserInfo } from '../../src/client/types.js';
import { newControllerContext, type ControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { JobController } from '../../src/controllers/job/job-controller.js';
import { CronJobController } from '../../src/controllers/cronjob/cronjob-controller.js';
import { StatefulSetController } from '../../src/controllers/statefulset/statefulset-controller.js';
import { DaemonSetController } from '../../src/controllers/daemonset/daemonset-controller.js';
import { DeploymentController } from '../../src/controllers/deployment/controller.js';
import { ReplicaSetController } from '../../src/controllers/replicaset.js';
import { DisruptionController } from '../../src/controllers/disruption.js';

/** The controller manager's client, noting whom each controller derives from it. */
class RecordingClient extends LoopbackClient {
  readonly derived: { user: string; groups: string[]; fieldManager: string }[] = [];

  override as(user: UserInfo, fieldManager: string): Client {
    this.derived.push({ user: user.name, groups: user.groups, fieldManager });
    return super.as(user, fieldManager);
  }
}

const cases: [string, (ctx: ControllerContext) => unknown, string, string][] = [
  ['job', (ctx) => new JobController(ctx), 'job-controller', 'job-controller'],
  ['cronjob', (ctx) => new CronJobController(ctx), 'cronjob-controller', 'cronjob-controller'],
  ['statefulset', (ctx) => new StatefulSetController(ctx), 'statefulset-controller', 'statefulset-controller'],
  ['daemonset', (ctx) => new DaemonSetController(ctx), 'daemon-set-controller', 'daemonset-controller'],
  ['deployment', (ctx) => new DeploymentController(ctx), 'deployment-controller', 'kube-controller-manager'],
  ['replicaset', (ctx) => new ReplicaSetController(ctx, 'ReplicaSet'), 'replicaset-controller', 'kube-controller-manager'],
  ['replicationcontroller', (ctx) => new ReplicaSetController(ctx, 'ReplicationController'), 'replication-controller', 'kube-controller-manager'],
  ['disruption', (ctx) => new DisruptionController(ctx), 'disruption-controller', 'disruption-controller'],
];

for (const [name, make, serviceAccount, fieldManager] of cases) {
  test(`${name}: acts as system:serviceaccount:kube-system:${serviceAccount}, field manager ${fieldManager}`, async () => {
    const storage = new SqliteStorage(':memory:');
    const store = new Store(storage, allResources());
    const client = new RecordingClient(store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager');
    make(newControllerContext({ client }));
    const sa = controllerServiceAccount(serviceAccount);
    assert.deepEqual(client.derived, [{ user: `system:serviceaccount:kube-system:${serviceAccount}`, groups: sa.groups, fieldManager }]);
    assert.deepEqual(sa.groups, ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']);
    await storage.close();
  });
}

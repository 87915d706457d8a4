/**
 * Client.resources() is client-go's ServerPreferredResources over either
 * client: each group's resources once, in the preferred version when served
 * there. The loopback client and the HTTPS client (of `winkube agent` and the
 * CLI) must give the components the same list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { credentials, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { HttpsClient } from '../../src/client/https.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import type { ResourceRef } from '../../src/client/types.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const key = (r: ResourceRef) => `${r.group}/${r.version}/${r.resource} ${r.kind} ${r.namespaced ? 'namespaced' : 'cluster'}`;

test('the HTTPS and loopback clients discover the same resources, each group and resource once', async () => {
  const https = new HttpsClient({ server: new URL(`https://127.0.0.1:${cluster.port}`), ...credentials(cluster) }, KUBE_CONTROLLER_MANAGER, 'test');
  const loopback = new LoopbackClient(new Store(new SqliteStorage(':memory:'), allResources()), KUBE_CONTROLLER_MANAGER, 'test');
  try {
    const remote = (await https.resources()).map(key).sort();
    const local = (await loopback.resources()).map(key).sort();
    assert.deepEqual(local, remote);
    // Served in two versions: the preferred one only.
    assert.ok(remote.includes('autoscaling/v2/horizontalpodautoscalers HorizontalPodAutoscaler namespaced'));
    assert.ok(!remote.some((r) => r.startsWith('autoscaling/v1/horizontalpodautoscalers')));
    // Two groups serving one storage: both, as upstream's discovery lists both.
    assert.ok(remote.includes('/v1/events Event namespaced'));
    assert.ok(remote.includes('events.k8s.io/v1/events Event namespaced'));
    // Subresources are not resources of their own.
    assert.ok(!remote.some((r) => r.includes('/status ')));
  } finally {
    https.close();
  }
});

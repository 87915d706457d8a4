/**
 * cronJobStatusStrategy against a real Store: a write through cronjobs/status keeps the
 * stored spec and takes the rest, metadata included (the conformance test "should support
 * CronJob API operations" patches an annotation through status).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { CronJob } from 'kubernetes-types/batch/v1.js';

test('a status write of a CronJob applies its annotations and status but not its spec', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cronjob-status-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  try {
    const store = new Store(storage, allResources());
    const ctx = inProcessWriteContext('test');
    await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cron' } }, ctx);
    const cronjobs = store.find('batch', 'v1', 'cronjobs') as ResourceDef<CronJob>;
    await store.create(cronjobs, 'cron', {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' },
      spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    }, { ...ctx, namespace: 'cron' });
    const out = await store.update(cronjobs, 'cron', 'cj', (cur) => ({
      ...cur,
      metadata: { ...cur.metadata, annotations: { patchedstatus: 'true' } },
      spec: { ...cur.spec, schedule: '*/5 * * * *' },
      status: { lastScheduleTime: '2026-01-01T00:00:00Z' },
    }), { ...ctx, namespace: 'cron' }, 'status');
    assert.deepEqual(out.metadata.annotations, { patchedstatus: 'true' });
    assert.equal(out.spec?.schedule, '*/1 * * * *');
    assert.equal(out.status?.lastScheduleTime, '2026-01-01T00:00:00Z');
    assert.equal(out.metadata.generation, 1);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

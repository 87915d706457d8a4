import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rawJSON, removeDir, startCluster } from '../helpers/cluster.js';

/**
 * Writes under load, kills the server with SIGKILL mid-stream, restarts it on
 * the same data directory: every write that was acknowledged must be there.
 */
test('every acknowledged write survives kill -9', async () => {
  const first = await startCluster();
  const dataDir = first.dataDir;
  try {
    await rawJSON(first, 'POST', '/api/v1/namespaces', { metadata: { name: 'crash' } });
    const acknowledged = new Set<string>();
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        try {
          const r = await rawJSON(first, 'POST', '/api/v1/namespaces/crash/configmaps', { metadata: { name }, data: { i: String(i) } });
          if (r.status === 201) acknowledged.add(name);
        } catch { return; }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    // Kill once enough writes are acknowledged (a busy machine gets there later), not after a fixed time.
    for (const deadline = Date.now() + 30_000; acknowledged.size < 200 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.stop('SIGKILL');
    stop = true;
    await Promise.all(writers);
    assert.ok(acknowledged.size > 50, `only ${acknowledged.size} writes acknowledged`);

    const second = await startCluster(dataDir);
    try {
      const list = await rawJSON(second, 'GET', '/api/v1/namespaces/crash/configmaps');
      const stored = new Set<string>(list.body.items.map((i: any) => i.metadata.name));
      const lost = [...acknowledged].filter((n) => !stored.has(n));
      assert.deepEqual(lost, []);
      // Revisions keep increasing after the restart.
      const next = await rawJSON(second, 'POST', '/api/v1/namespaces/crash/configmaps', { metadata: { name: 'after' } });
      assert.ok(Number(next.body.metadata.resourceVersion) > Number(list.body.metadata.resourceVersion) - 1);
    } finally {
      await second.stop();
    }
  } finally {
    removeDir(dataDir);
  }
});

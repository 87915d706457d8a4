import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { goldenCases, normalize, type GoldenRequest } from '../helpers/golden.js';

/**
 * Replays the golden cases recorded against upstream (see ../shared/golden/README.md)
 * that this server's scope covers: errors, defaulting, reads, dry runs and Tables.
 */
const PREFIXES = ['gen-err-', 'gen-default-', 'gen-get-', 'gen-dryrun-', 'gen-table-', 'gen-svcval-', 'gen-cmval-', 'gen-secretval-', 'win-', 'gen-podval-'];

let cluster: TestCluster;
// The cases were recorded from a bare API server (no scheduler or controllers acting on what they create).
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

function send(r: GoldenRequest) {
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  return raw(cluster, r.method, r.path, { body, headers: r.headers });
}

for (const prefix of PREFIXES) {
  describe(prefix, () => {
    for (const c of goldenCases(prefix)) {
      test(`${c.name}: ${c.description}`, async () => {
        for (const s of c.setup) await send(s);
        try {
          const res = await send(c.request);
          let body: unknown = res.body;
          if (typeof c.response.body !== 'string') {
            try { body = JSON.parse(res.body); } catch { assert.fail(`not JSON (${res.status}): ${res.body}`); }
          }
          assert.deepEqual({ status: res.status, body: normalize(body) }, { status: c.response.status, body: normalize(c.response.body) });
          assert.equal(res.headers.warning, c.response.headers.Warning);
        } finally {
          for (const t of [...c.teardown].reverse()) await send(t);
        }
      });
    }
  });
}

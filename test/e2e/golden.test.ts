import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { goldenCases, LOCAL_GOLDEN_DIR, normalize, type GoldenCase, type GoldenRequest } from '../helpers/golden.js';
import { userCertificate } from '../helpers/user-certificate.js';

/**
 * Replays the golden cases recorded against upstream (see ../shared/golden/README.md)
 * that this server's scope covers: errors, defaulting, reads, dry runs and Tables;
 * then the repository's own cases (test/golden/cases), whose answers are derived
 * from upstream source: who may do what (403 texts, escalation, access reviews,
 * the Node authorizer and NodeRestriction), CustomResourceDefinitions and custom
 * resources (validation messages, pruning and defaulting, CEL validation rules).
 */
const PREFIXES = ['gen-err-', 'gen-default-', 'gen-get-', 'gen-dryrun-', 'gen-table-', 'gen-svcval-', 'gen-cmval-', 'gen-secretval-', 'win-', 'gen-podval-'];
const LOCAL_PREFIXES = ['auth-', 'cel-', 'crd-'];

let cluster: TestCluster;
// The cases were recorded from a bare API server (no scheduler or controllers acting on what they create),
// with kubeadm's authorization modes (Node,RBAC: the default).
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function send(r: GoldenRequest) {
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const clientCertificate = r.credential ? await userCertificate(cluster.dataDir, r.credential.user, r.credential.groups) : undefined;
  return raw(cluster, r.method, r.path, { body, headers: r.headers, clientCertificate });
}

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A CRD created in a setup step serves its resource once Established, which happens shortly after. */
async function untilEstablished(s: GoldenRequest): Promise<void> {
  if (s.method !== 'POST' || s.path !== CRDS_PATH) return;
  const name = (s.body as { metadata: { name: string } }).metadata.name;
  await eventually(`${name} Established`, async () => {
    const r = await raw(cluster, 'GET', `${CRDS_PATH}/${name}`);
    const crd = JSON.parse(r.body) as { status?: { conditions?: { type: string; status: string }[] } };
    return crd.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ? true : undefined;
  });
}

async function replay(c: GoldenCase): Promise<void> {
  for (const s of c.setup) { await send(s); await untilEstablished(s); }
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
}

for (const prefix of PREFIXES) {
  describe(prefix, () => {
    for (const c of goldenCases(prefix)) test(`${c.name}: ${c.description}`, () => replay(c));
  });
}

for (const prefix of LOCAL_PREFIXES) {
  describe(`derived ${prefix}`, () => {
    const cases = goldenCases(prefix, LOCAL_GOLDEN_DIR);
    test('every derived case names the upstream source of its answer', () => {
      assert.ok(cases.length > 0, `no cases in ${LOCAL_GOLDEN_DIR}`);
      for (const c of cases) assert.ok(c.derived, `${c.name} has no derived field`);
    });
    for (const c of cases) test(`${c.name}: ${c.description}`, () => replay(c));
  });
}

/**
 * A bounded, seeded fuzz pass over request bodies of every served kind that
 * can be created: each kind's valid example has one value replaced by a value
 * of another JSON type, a number past int32/int64/float64, or a deep nesting,
 * and is sent as a create and as a JSON merge patch of the stored example.
 * The server must never answer 5xx, and whatever it stores must decode
 * against the kind's Go type. Fixed seed and count: the same requests every run.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { goTypes } from '../../src/openapi/go-types.js';
import { goDecodeError } from '../../src/openapi/go-decode.js';

let cluster: TestCluster;
const NS = 'fuzz';
const SEED = 20241127;
const ITERATIONS_PER_KIND = 12;

interface Served { group: string; version: string; kind: string; resource: string; namespaced: boolean }

const LABELS = { app: 'fuzz' };
const podSpec = () => ({ containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '1', memory: '1Gi' } }, env: [{ name: 'A', value: 'b' }] }] });
const template = () => ({ metadata: { labels: LABELS }, spec: podSpec() });
const jobSpec = () => ({ parallelism: 1, backoffLimit: 2, activeDeadlineSeconds: 60, template: { spec: { ...podSpec(), restartPolicy: 'Never' } } });

/** A valid example of each kind, by kind (kinds not listed get metadata only). */
const EXAMPLES: Record<string, () => Record<string, unknown>> = {
  ConfigMap: () => ({ data: { a: 'b' }, binaryData: { b: 'aGVsbG8=' }, immutable: false }),
  Secret: () => ({ data: { a: 'aGVsbG8=' }, stringData: { b: 'c' }, type: 'Opaque' }),
  Pod: () => ({ spec: { ...podSpec(), terminationGracePeriodSeconds: 30, nodeSelector: { a: 'b' }, securityContext: { runAsUser: 1000 } } }),
  Service: () => ({ spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], selector: LABELS } }),
  ReplicationController: () => ({ spec: { replicas: 1, selector: LABELS, template: template() } }),
  Deployment: () => ({ spec: { replicas: 1, revisionHistoryLimit: 5, selector: { matchLabels: LABELS }, template: template() } }),
  ReplicaSet: () => ({ spec: { replicas: 1, selector: { matchLabels: LABELS }, template: template() } }),
  StatefulSet: () => ({ spec: { replicas: 1, serviceName: 's', selector: { matchLabels: LABELS }, template: template() } }),
  DaemonSet: () => ({ spec: { minReadySeconds: 1, selector: { matchLabels: LABELS }, template: template() } }),
  Job: () => ({ spec: jobSpec() }),
  CronJob: () => ({ spec: { schedule: '* * * * *', successfulJobsHistoryLimit: 3, jobTemplate: { spec: jobSpec() } } }),
  PodDisruptionBudget: () => ({ spec: { minAvailable: 1, selector: { matchLabels: LABELS } } }),
  HorizontalPodAutoscaler: () => ({ spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3 } }),
  Lease: () => ({ spec: { holderIdentity: 'h', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.000000Z' } }),
  PriorityClass: () => ({ value: 1000, globalDefault: false }),
  ResourceQuota: () => ({ spec: { hard: { pods: '10', 'requests.cpu': '2' } } }),
  LimitRange: () => ({ spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, max: { cpu: '2' } }] } }),
  PersistentVolumeClaim: () => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
  PersistentVolume: () => ({ spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } }),
  ServiceAccount: () => ({ automountServiceAccountToken: true, secrets: [{ name: 's' }] }),
  StorageClass: () => ({ provisioner: 'example.com/p', allowVolumeExpansion: true, parameters: { a: 'b' } }),
  RuntimeClass: () => ({ handler: 'runc', overhead: { podFixed: { cpu: '10m' } } }),
  EndpointSlice: () => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'p', port: 80, protocol: 'TCP' }] }),
  Endpoints: () => ({ subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] }),
  ControllerRevision: () => ({ revision: 1, data: { a: [1, 2] } }),
  Event: () => ({ involvedObject: { kind: 'Pod', name: 'p', namespace: NS }, reason: 'R', message: 'm', count: 1, type: 'Normal' }),
};

/** Values of every other JSON type, numbers no Go number type holds, and nesting past the decoder's limit. */
const REPLACEMENTS = [
  '"x"', '""', '1.5', '1.0', '1e3', '-1', '2147483648', '-2147483649', '9223372036854775808', '1e400', '100000000000000000000',
  'true', 'false', 'null', '[]', '["a"]', '[1]', '{}', '{"a":1}', '{"a":"b"}', '{"a":{"b":[]}}',
  '['.repeat(10001) + ']'.repeat(10001), '{"a":'.repeat(40) + '1' + '}'.repeat(40),
];

/** mulberry32: a small seeded generator, so every run sends the same bodies. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every path to a value of the example, [] being the example itself. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

/** The example's JSON text with the value at `path` replaced by the literal text. */
function replaced(example: Record<string, unknown>, path: (string | number)[], literal: string): string {
  const last = path.at(-1);
  if (last === undefined) return literal;
  const copy = structuredClone(example);
  let parent: Record<string | number, unknown> = copy;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
  parent[last] = '\u0000FUZZ\u0000';
  return JSON.stringify(copy).replace('"\\u0000FUZZ\\u0000"', literal);
}

let served: Served[] = [];

before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
  const groups: { group: string; version: string; path: string }[] = [{ group: '', version: 'v1', path: '/api/v1' }];
  const apis = await rawJSON(cluster, 'GET', '/apis');
  for (const g of apis.body.groups) groups.push({ group: g.name, version: g.preferredVersion.version, path: `/apis/${g.preferredVersion.groupVersion}` });
  for (const g of groups) {
    const list = await rawJSON(cluster, 'GET', g.path);
    for (const r of list.body.resources) {
      if (r.name.includes('/') || !r.verbs.includes('create') || !r.verbs.includes('get')) continue;
      if (r.name === 'namespaces' || r.name === 'nodes' || r.name === 'csinodes' || r.name === 'volumeattachments') continue;
      served.push({ group: g.group, version: g.version, kind: r.kind, resource: r.name, namespaced: r.namespaced });
    }
  }
  served = served.sort((a, b) => `${a.group}/${a.kind}`.localeCompare(`${b.group}/${b.kind}`));
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

function collectionPath(s: Served): string {
  const base = s.group ? `/apis/${s.group}/${s.version}` : '/api/v1';
  return s.namespaced ? `${base}/namespaces/${NS}/${s.resource}` : `${base}/${s.resource}`;
}

/** Asserts that what the server stores under `path` decodes into the kind's Go type. */
async function assertStoredDecodes(s: Served, path: string, what: string): Promise<void> {
  const got = await raw(cluster, 'GET', path);
  assert.equal(got.status, 200, `${what}: GET ${path}: ${got.body.slice(0, 300)}`);
  const t = goTypes().forKind(s.group, s.version, s.kind);
  assert.ok(t, `no Go type for ${s.kind}`);
  assert.equal(goDecodeError(got.body, t), undefined, `${what}: stored ${got.body.slice(0, 500)}`);
}

test('fuzzed create and merge patch bodies of every served kind: no 5xx, nothing stored that does not decode', async () => {
  assert.ok(served.length >= 20, `only ${served.length} kinds served`);
  const random = generator(SEED);
  const pick = <T>(xs: readonly T[]): T => {
  const x = xs[Math.floor(random() * xs.length)];
  if (x === undefined) throw new Error('nothing to pick from');
  return x;
};
  let requests = 0;
  for (const s of served) {
    const col = collectionPath(s);
    const example = (n: string) => ({ metadata: { name: n, labels: LABELS }, ...(EXAMPLES[s.kind]?.() ?? {}) });
    const baseName = `fuzz-${s.resource}`;
    const base = await raw(cluster, 'POST', col, { body: JSON.stringify(example(baseName)) });
    assert.ok(base.status < 500, `${s.kind} example: ${base.status} ${base.body.slice(0, 300)}`);
    const reviews = base.status === 201 && !JSON.parse(base.body).metadata?.uid;
    for (let i = 0; i < ITERATIONS_PER_KIND; i++) {
      const name = `${baseName}-${i}`;
      const ex = example(name);
      const candidates = paths(ex).filter((p) => !(p.length === 2 && p[0] === 'metadata' && p[1] === 'name'));
      const path = pick(candidates);
      const literal = pick(REPLACEMENTS);
      const what = `${s.kind} ${JSON.stringify(path)} = ${literal.slice(0, 40)}`;
      const body = replaced(ex, path, literal);
      const created = await raw(cluster, 'POST', col, { body });
      requests++;
      assert.ok(created.status < 500, `create ${what}: ${created.status} ${created.body.slice(0, 300)}`);
      if (created.status === 201 && !reviews) await assertStoredDecodes(s, `${col}/${name}`, `create ${what}`);
      if (base.status !== 201 || reviews || path.length === 0) continue;
      // The same value as a merge patch of the stored example.
      const patchPath = path.filter((p) => typeof p === 'string');
      if (patchPath.length !== path.length) continue;
      const patch = patchPath.reduceRight<string>((inner, key) => `{${JSON.stringify(key)}:${inner}}`, literal);
      const patched = await raw(cluster, 'PATCH', `${col}/${baseName}`, { body: patch, headers: { 'Content-Type': 'application/merge-patch+json' } });
      requests++;
      if (patched.status >= 500) {
        const current = await raw(cluster, 'GET', `${col}/${baseName}`);
        assert.fail(`merge patch ${what}: ${patched.status} ${patched.body.slice(0, 300)}; patched object ${current.body}`);
      }
      await assertStoredDecodes(s, `${col}/${baseName}`, `merge patch ${what}`);
    }
  }
  assert.ok(requests >= 200, `only ${requests} requests sent`);
});

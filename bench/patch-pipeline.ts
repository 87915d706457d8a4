/**
 * CPU per strategic-merge PATCH of a 3-container Deployment, in process: the
 * handler's pipeline (store.update with the patch, field validation,
 * managedFields, validation, storage, the watchers of an API-only server,
 * response encoding) without HTTP and TLS. The figure is process CPU time per
 * patch, the minimum over rounds, which other load on the machine disturbs
 * far less than latency. Run: node dist/bench/patch-pipeline.js
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../src/cluster/start.js';
import { applyPatchRequest } from '../src/api/patch.js';
import { checkPatchedFields, hasUnknownFieldsOf } from '../src/openapi/field-validation.js';
import type { KObject } from '../src/apimachinery/object.js';
import type { WriteContext } from '../src/apimachinery/write-context.js';

const DEPLOYMENTS = 1000;
const CONCURRENCY = 32;
const PER_ROUND = Number(process.env.BENCH_PATCHES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SMP = 'application/strategic-merge-patch+json';

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'winkube-patch-bench-'));
  const cluster = await startCluster({ port: 0, dataDir, bindAddress: '127.0.0.1', log: () => {}, apiOnly: true });
  const store = cluster.store;
  const ctx = (): WriteContext => ({ namespace: 'bench', now: new Date(), dryRun: false, fieldManager: 'unknown', warn: () => {},
    user: { name: 'winkube-admin', groups: ['system:masters', 'system:authenticated'] } });
  const nsDef = store.find('', 'v1', 'namespaces')!;
  const def = store.find('apps', 'v1', 'deployments')!;
  await store.create(nsDef, '', { metadata: { name: 'bench' } } as KObject, { ...ctx(), namespace: '' });
  const containers = ['web', 'sidecar', 'metrics'].map((name) => ({ name, image: 'nginx:1.25', env: [{ name: 'N', value: '0' }] }));
  for (let i = 0; i < DEPLOYMENTS; i++) {
    await store.create(def, 'bench', { metadata: { name: `d-${i}` }, spec: { replicas: 1, selector: { matchLabels: { app: `d-${i}` } },
      template: { metadata: { labels: { app: `d-${i}` } }, spec: { containers } } } } as unknown as KObject, ctx());
  }
  let next = 0;
  const patchOne = async (i: number) => {
    const body = JSON.stringify({ spec: { template: { spec: {
      '$setElementOrder/containers': containers.map((c) => ({ name: c.name })),
      containers: [{ name: 'sidecar', image: `nginx:1.${26 + (i % 3)}`, env: [{ name: 'N', value: String(i) }] }],
    } } } });
    const c = ctx();
    // As ResourceHandlers.patch does it.
    const obj = await store.update(def, 'bench', `d-${i % DEPLOYMENTS}`, (current) => {
      const before = hasUnknownFieldsOf(def, current) ? structuredClone(current) : undefined;
      return checkPatchedFields(def, SMP, body, before, applyPatchRequest(SMP, current, body, def, true), 'Strict', c.warn);
    }, c);
    // The answer's body, as the handler writes it (handlers.ts respondWritten).
    return (store.writtenJSON(obj) ?? JSON.stringify(obj)).length;
  };
  const perPatch: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const end = next + PER_ROUND;
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < end) await patchOne(next++);
    }));
    const cpu = process.cpuUsage(cpu0);
    perPatch.push((cpu.user + cpu.system) / PER_ROUND);
  }
  console.log(`patch pipeline CPU per patch: min ${Math.min(...perPatch).toFixed(0)} µs, rounds ${perPatch.map((x) => x.toFixed(0)).join(' ')}`);
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });

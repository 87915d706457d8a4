/**
 * Every lint rule on its positive fixture (exactly the findings listed in
 * test/fixtures/lint/expected-positive.json, reviewed by hand) and on its
 * negative fixture (none), with only that rule enabled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseManifests } from '../../src/lint/parse-manifests.js';
import { lint } from '../../src/lint/engine.js';
import { describeCluster } from '../../src/lint/run.js';
import { RULES } from '../../src/lint/rules/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'lint');
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'expected-positive.json'), 'utf8')) as Record<string, string[]>;

/** The cluster each fixture is checked against when not the default one (and why). */
const CLUSTERS: Record<string, { pos?: { cluster?: string; gmsa?: boolean }; neg?: { cluster?: string; gmsa?: boolean } }> = {
  WK110: { pos: { cluster: 'cluster-docker.yaml' }, neg: { cluster: 'cluster-docker.yaml' } }, // Docker on Windows
  WK112: { pos: { cluster: 'cluster-docker.yaml' }, neg: { cluster: 'cluster-docker.yaml' } },
  WK114: { neg: {} },
  WK115: { neg: { cluster: 'cluster-dsr.yaml' } }, // the same Service with DSR on
  WK120: { neg: { gmsa: true } }, // the same pod with the GMSA webhook
};

async function findings(id: string, kind: 'pos' | 'neg'): Promise<string[]> {
  const file = `test/fixtures/lint/${id}.${kind}.yaml`;
  const parsed = parseManifests(readFileSync(join(ROOT, file), 'utf8'), file);
  const c = CLUSTERS[id]?.[kind];
  const cluster = await describeCluster({ cluster: c?.cluster ? join(FIXTURES, c.cluster) : undefined, gmsa: c?.gmsa });
  return lint(parsed.manifests, parsed.problems, cluster, { enable: [id] }).map((f) => `${f.source.line} ${f.severity} ${f.path} | ${f.message}`);
}

test('there are at least 20 rules, each with a positive and a negative fixture', () => {
  assert.ok(RULES.length >= 20);
  assert.deepEqual(Object.keys(EXPECTED).sort(), RULES.map((r) => r.id));
});

for (const rule of RULES) {
  test(`${rule.id} (${rule.title}): positive fixture`, async () => {
    assert.deepEqual(await findings(rule.id, 'pos'), EXPECTED[rule.id]);
  });
  test(`${rule.id}: negative fixture`, async () => {
    assert.deepEqual(await findings(rule.id, 'neg'), []);
  });
}

test('WK114 is quiet on an l2bridge network, WK102 on tainted Windows nodes', async () => {
  for (const [id, cluster] of [['WK114', 'cluster-l2bridge.yaml'], ['WK102', 'cluster-tainted.yaml']] as const) {
    const file = `test/fixtures/lint/${id}.pos.yaml`;
    const parsed = parseManifests(readFileSync(join(ROOT, file), 'utf8'), file);
    const c = await describeCluster({ cluster: join(FIXTURES, cluster) });
    assert.deepEqual(lint(parsed.manifests, parsed.problems, c, { enable: [id] }), [], id);
  }
});

/**
 * The CI-sized subset of the upstream conformance suite: the api-machinery and apps tests
 * listed in conformance-subset.txt, run by upstream's own e2e.test (../shared/conformance,
 * beside the clone) against a fresh `winkube up`, as ../shared/conformance/run.sh runs the
 * whole suite. Every listed test must PASS; the failures are printed with ginkgo's summary.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SUITE = resolve(REPO, '..', 'shared', 'conformance');
const LIST = join(REPO, 'test', 'e2e', 'conformance-subset.txt');

/** The listed test names: one a line, `#` lines are comments. */
function listedTests(): string[] {
  return readFileSync(LIST, 'utf8').split('\n').map((l) => l.trimEnd()).filter((l) => l && !l.startsWith('#'));
}

/** A ginkgo focus matching exactly the listed names (ginkgo v1 matches the text after `[Top Level] `). */
function focusOf(names: string[]): string {
  const escape = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
  return `(${names.map(escape).join('|')})$`;
}

/** Unpacks name.gz of the suite once per version of it (size and time), as run.sh does into its bin directory. */
async function unpacked(name: string): Promise<string> {
  const gz = join(SUITE, `${name}.gz`);
  const st = statSync(gz);
  const dir = join(tmpdir(), `winkube-conformance-subset-${st.size}-${Math.floor(st.mtimeMs)}`);
  const out = join(dir, name);
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const partial = `${out}.${process.pid}.partial`;
  await pipeline(createReadStream(gz), createGunzip(), createWriteStream(partial));
  chmodSync(partial, 0o755);
  renameSync(partial, out);
  return out;
}

interface GinkgoRun { log: string; passed: Set<string>; failed: Set<string> }

function runGinkgo(ginkgo: string, e2e: string, kubeconfig: string, focus: string, reportDir: string): Promise<GinkgoRun> {
  const args = ['-nodes=2', '-noColor', `-focus=${focus}`, '-skip=\\[Serial\\]|\\[Disruptive\\]', e2e, '--',
    `--kubeconfig=${kubeconfig}`, '--provider=skeleton', '--e2e-verify-service-account=false',
    '--non-blocking-taints=node-role.kubernetes.io/control-plane,os',
    '--system-pods-startup-timeout=3m', '--node-schedulable-timeout=2m', `--report-dir=${reportDir}`];
  return new Promise((done, fail) => {
    const proc = spawn(ginkgo, args, { cwd: reportDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    proc.stdout.on('data', (d) => { log += d; });
    proc.stderr.on('data', (d) => { log += d; });
    proc.once('error', fail);
    proc.once('close', () => {
      const passed = new Set<string>();
      const failed = new Set<string>();
      for (const m of log.matchAll(/^\{"msg":"(PASSED|FAILED) ((?:[^"\\]|\\.)*)"/gm)) {
        const name = JSON.parse(`"${m[2]!}"`) as string;
        (m[1] === 'PASSED' ? passed : failed).add(name);
      }
      done({ log, passed, failed });
    });
  });
}

/** ginkgo's `• Failure` blocks: what failed and where. */
function failureBlocks(log: string): string {
  return [...log.matchAll(/^• Failure[\s\S]*?^-{30}$/gm)].map((m) => m[0]).join('\n');
}

let cluster: TestCluster | undefined;
before(async () => {
  if (!existsSync(join(SUITE, 'e2e.test.gz')) || !existsSync(join(SUITE, 'ginkgo.gz'))) return;
  cluster = await startCluster();
});
after(async () => {
  if (!cluster) return;
  await cluster.stop();
  removeDir(cluster.dataDir);
});

test('the CI-sized subset of the upstream conformance suite passes', { timeout: 20 * 60_000 }, async () => {
  assert.ok(cluster, `the conformance suite is missing: expected e2e.test.gz and ginkgo.gz in ${SUITE} (../shared/conformance beside the clone)`);
  const names = listedTests();
  // Linux test images: the Windows nodes are tainted as the upstream docs ask for conformance on mixed clusters.
  const windows = (await kubectlOk(cluster, ['get', 'nodes', '-l', 'kubernetes.io/os=windows', '-o', 'name'])).split('\n').filter(Boolean);
  for (const node of windows) await kubectlOk(cluster, ['taint', 'nodes', node.replace(/^node\//, ''), 'os=windows:NoSchedule', '--overwrite']);
  const [ginkgo, e2e] = [await unpacked('ginkgo'), await unpacked('e2e.test')];
  const reportDir = mkdtempSync(join(tmpdir(), 'winkube-conformance-subset-report-'));
  try {
    const run = await runGinkgo(ginkgo, e2e, cluster.kubeconfig, focusOf(names), reportDir);
    const notPassed = names.filter((n) => !run.passed.has(n));
    assert.deepEqual(notPassed, [], [
      `${notPassed.length} of the ${names.length} listed conformance tests did not pass:`,
      ...notPassed.map((n) => `  ${run.failed.has(n) ? 'FAILED' : 'NOT RUN'} ${n}`),
      failureBlocks(run.log),
    ].join('\n'));
  } finally {
    removeDir(reportDir);
  }
});

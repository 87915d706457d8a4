/**
 * `winkube webhook` as users run it: the built CLI as its own process, with
 * a certificate from deploy/webhook/gen-certs.sh, reading a started winkube
 * through --kubeconfig; webhook configurations pointing at it by url, and
 * real kubectl creating pods: an error denies with the rules' text, a
 * warning prints `Warning: ...`, --warn-only admits, an UPDATE of an object
 * admitted before is not blocked, --mutate places Windows-image pods. And the
 * deploy manifests: `winkube lint` finds nothing in them and the server
 * accepts them (server-side dry run).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPLOY = join(ROOT, 'deploy', 'webhook');

interface Webhook { proc: ChildProcess; port: number; output(): string; stop(): Promise<void> }

let cluster: TestCluster;
let certs: string;
let caBundle: string;
let strict: Webhook;
let relaxed: Webhook;

/** `winkube webhook` on an ephemeral port, ready once it prints where it serves. */
async function startWebhook(extra: string[]): Promise<Webhook> {
  const proc = spawn(process.execPath, [MAIN, 'webhook', '--tls-cert-file', join(certs, 'tls.crt'), '--tls-private-key-file', join(certs, 'tls.key'),
    '--port', '0', '--bind-address', '127.0.0.1', '--kubeconfig', cluster.kubeconfig, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`webhook did not start:\n${out}`)), 30_000);
    proc.stdout.on('data', () => {
      const m = /^winkube webhook serving .* on https:\/\/127\.0\.0\.1:(\d+) \(cluster: (.*)\)$/m.exec(out);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`webhook exited with ${code}:\n${out}`)); });
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, port, output: () => out, stop: async () => { if (proc.exitCode === null) proc.kill('SIGTERM'); await exited; } };
}

function configuration(kind: 'Validating' | 'Mutating', name: string, hook: Webhook, path: string, namespace: string): string {
  return JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name },
    webhooks: [{
      name: `${name}.winkube.io`, clientConfig: { url: `https://127.0.0.1:${hook.port}${path}`, caBundle },
      rules: [{ operations: kind === 'Validating' ? ['CREATE', 'UPDATE'] : ['CREATE'], apiGroups: ['', 'apps'], apiVersions: ['v1'], resources: ['pods', 'deployments'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
      failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'],
    }],
  });
}

const WIN = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';

/** WK103 (error): a Linux image in a pod for Windows nodes. */
const mixedPod = (name: string, ns: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns },
  spec: { nodeSelector: { 'kubernetes.io/os': 'windows' }, containers: [{ name: 'app', image: WIN }, { name: 'proxy', image: 'nginx:1.27' }] },
});

/** WK108 (warning): a numeric user on Windows. */
const numericUserPod = (name: string, ns: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns },
  spec: { nodeSelector: { 'kubernetes.io/os': 'windows' }, securityContext: { runAsUser: 1000 }, containers: [{ name: 'app', image: WIN }] },
});

const WK103 = '[WK103] spec.containers[1].image: image nginx:1.27 has no windows platform, and the pod targets Windows nodes';
const WK108 = '[WK108] spec.securityContext.runAsUser: securityContext.runAsUser is not supported on Windows (no numeric user IDs)';

before(async () => {
  cluster = await startCluster();
  certs = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
  execFileSync(join(DEPLOY, 'gen-certs.sh'), ['-o', certs, '--ip', '127.0.0.1'], { stdio: 'pipe' });
  caBundle = readFileSync(join(certs, 'ca-bundle.b64'), 'utf8');
  strict = await startWebhook(['--mutate']);
  relaxed = await startWebhook(['--warn-only']);
  for (const ns of ['lint-strict', 'lint-relaxed', 'lint-mutate']) await kubectlOk(cluster, ['create', 'namespace', ns]);
  // Admitted before any webhook: its UPDATEs must not be blocked for what it already was.
  await kubectlOk(cluster, ['create', '-f', '-'], mixedPod('before', 'lint-strict'));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'strict', strict, '/validate', 'lint-strict'));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'relaxed', relaxed, '/validate', 'lint-relaxed'));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'placement', strict, '/mutate', 'lint-mutate'));
});

after(async () => {
  await strict?.stop();
  await relaxed?.stop();
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
  if (certs) removeDir(certs);
});

test('the webhook reads the cluster it was given', () => {
  assert.match(strict.output(), new RegExp(`^winkube webhook serving /validate, /mutate on https://127\\.0\\.0\\.1:${strict.port} \\(cluster: https://127\\.0\\.0\\.1:${cluster.port}\\)$`, 'm'));
  assert.match(relaxed.output(), new RegExp(`^winkube webhook serving /validate on https://127\\.0\\.0\\.1:${relaxed.port} \\(cluster: https://127\\.0\\.0\\.1:${cluster.port}, warn-only\\)$`, 'm'));
});

test('kubectl apply of a Windows pod with a Linux image is denied with the rules\' message', async () => {
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: mixedPod('mixed', 'lint-strict') });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'Error from server (Forbidden): error when creating "STDIN": admission webhook "strict.winkube.io" denied the request: '
    + `winkube lint found 1 error:\n${WK103}\n`);
  const got = await kubectl(cluster, ['get', 'pod', 'mixed', '-n', 'lint-strict']);
  assert.equal(got.stderr, 'Error from server (NotFound): pods "mixed" not found\n');
});

test('a warning-level finding admits the pod and kubectl prints Warning: ...', async () => {
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: numericUserPod('uid', 'lint-strict') });
  assert.deepEqual(r, { code: 0, stdout: 'pod/uid created\n', stderr: `Warning: ${WK108}\n` });
});

test('an UPDATE of an object admitted before is not blocked for what it already had', async () => {
  const r = await kubectl(cluster, ['label', 'pod', 'before', '-n', 'lint-strict', 'team=web']);
  assert.deepEqual(r, { code: 0, stdout: 'pod/before labeled\n', stderr: '' });
});

test('a Deployment\'s template is checked as its pods would be', async () => {
  const deployment = JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'lint-strict' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: JSON.parse(mixedPod('x', 'y')).spec } },
  });
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: deployment });
  assert.equal(r.stderr, 'Error from server (Forbidden): error when creating "STDIN": admission webhook "strict.winkube.io" denied the request: '
    + 'winkube lint found 1 error:\n[WK103] spec.template.spec.containers[1].image: image nginx:1.27 has no windows platform, and the pod targets Windows nodes\n');
});

test('--warn-only admits what would be denied, with the findings as warnings', async () => {
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: mixedPod('mixed', 'lint-relaxed') });
  assert.deepEqual(r, { code: 0, stdout: 'pod/mixed created\n', stderr: `Warning: ${WK103}\n` });
});

test('--mutate: a Windows-image pod without an OS selector gets the Windows nodeSelector and toleration', async () => {
  await kubectlOk(cluster, ['run', 'iis', '-n', 'lint-mutate', `--image=${WIN}`]);
  const spec = JSON.parse(await kubectlOk(cluster, ['get', 'pod', 'iis', '-n', 'lint-mutate', '-o', 'jsonpath={.spec}'])) as { nodeSelector: unknown; tolerations: unknown[] };
  assert.deepEqual(spec.nodeSelector, { 'kubernetes.io/os': 'windows' });
  // Appended after the tolerations DefaultTolerationSeconds added: the built-in admission plugins run before the webhooks.
  assert.deepEqual(spec.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
  ]);
  await kubectlOk(cluster, ['run', 'web', '-n', 'lint-mutate', '--image=nginx:1.27']);
  assert.equal(await kubectlOk(cluster, ['get', 'pod', 'web', '-n', 'lint-mutate', '-o', 'jsonpath={.spec.nodeSelector}']), '');
});

test('the deploy manifests: winkube lint finds nothing, and the server accepts them (server-side dry run)', async () => {
  const lint = execFileSync(process.execPath, [MAIN, 'lint', DEPLOY], { encoding: 'utf8' });
  assert.equal(lint, '0 findings: 0 errors, 0 warnings, 0 info\n');
  // The namespace for real: a dry-run namespace does not exist for the objects inside it.
  await kubectlOk(cluster, ['create', 'namespace', 'winkube-webhook', '--save-config']);
  const files = ['webhook.yaml', 'validating-webhook.yaml', 'mutating-webhook.yaml'].flatMap((f) => ['-f', join(DEPLOY, f)]);
  const r = await kubectl(cluster, ['apply', '--dry-run=server', ...files]);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, [
    'namespace/winkube-webhook configured (server dry run)',
    'serviceaccount/winkube-webhook created (server dry run)',
    'clusterrole.rbac.authorization.k8s.io/winkube-webhook created (server dry run)',
    'clusterrolebinding.rbac.authorization.k8s.io/winkube-webhook created (server dry run)',
    'deployment.apps/winkube-webhook created (server dry run)',
    'service/winkube-webhook created (server dry run)',
    'validatingwebhookconfiguration.admissionregistration.k8s.io/winkube-lint created (server dry run)',
    'mutatingwebhookconfiguration.admissionregistration.k8s.io/winkube-lint created (server dry run)',
    '',
  ].join('\n'));
});

test('gen-certs.sh --install: the TLS Secret created and the caBundle of the webhook configuration set', async () => {
  await kubectlOk(cluster, ['apply', '-f', join(DEPLOY, 'validating-webhook.yaml')]);
  const out = mkdtempSync(join(tmpdir(), 'webhook-install-'));
  try {
    const stdout = execFileSync(join(DEPLOY, 'gen-certs.sh'), ['-o', out, '--install'], {
      encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: join(cluster.dataDir, 'home-default'), KUBECONFIG: cluster.kubeconfig },
    });
    assert.equal(stdout, `wrote ${out}/ca.crt, ${out}/tls.crt, ${out}/tls.key and ${out}/ca-bundle.b64 for winkube-webhook.winkube-webhook.svc\n`
      + 'secret/winkube-webhook-tls created\n'
      + 'validatingwebhookconfiguration.admissionregistration.k8s.io/winkube-lint patched\n');
    const secret = JSON.parse(await kubectlOk(cluster, ['get', 'secret', 'winkube-webhook-tls', '-n', 'winkube-webhook', '-o', 'json'])) as { type: string; data: Record<string, string> };
    assert.equal(secret.type, 'kubernetes.io/tls');
    assert.equal(Buffer.from(secret.data['tls.crt']!, 'base64').toString(), readFileSync(join(out, 'tls.crt'), 'utf8'));
    assert.equal(await kubectlOk(cluster, ['get', 'validatingwebhookconfiguration', 'winkube-lint', '-o', 'jsonpath={.webhooks[0].clientConfig.caBundle}']),
      readFileSync(join(out, 'ca-bundle.b64'), 'utf8'));
  } finally {
    removeDir(out);
    await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'winkube-lint']);
  }
});

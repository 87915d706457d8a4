/**
 * PodSecurity admission: the v1.32 checks with upstream's reasons and
 * details, the level/version registry, the namespace labels, and the
 * plugin's answers (refusal, warnings) through the real Store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  evaluatePod, forbiddenDetail, forbiddenReason, MAX_POLICY_MINOR, type Level, type LevelVersion,
} from '../../src/admission/pod-security-policy.js';
import { isSignificantPodUpdate, parseVersion, policyToEvaluate } from '../../src/admission/pod-security.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';

serviceAccountLookup.defaultAttempts = 1;

const lv = (level: Level, version = 'latest'): LevelVersion => ({ level, version: parseVersion(version).version });
const detail = (level: Level, spec: any, meta: any = {}, version = 'latest') => forbiddenDetail(evaluatePod(lv(level, version), meta, spec));
const bare = (name = 'app', extra: any = {}) => ({ containers: [{ name, image: 'nginx', ...extra }] });
const restrictedContainer = (name = 'app') => ({
  name, image: 'nginx',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
});

test('restricted: a bare pod gets the four restricted violations, in upstream order', () => {
  assert.equal(detail('restricted', bare('nginx')),
    'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), ' +
    'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
  assert.equal(evaluatePod(lv('restricted'), {}, { containers: [restrictedContainer()] }).allowed, true);
  assert.equal(evaluatePod(lv('baseline'), {}, bare()).allowed, true);
  assert.equal(evaluatePod(lv('privileged'), {}, { hostPID: true, ...bare('x', { securityContext: { privileged: true } }) }).allowed, true);
});

test('restricted:v1.32 with seLinuxOptions user/role and unsafe sysctls, as a v1.32 API server printed it', () => {
  const spec = {
    securityContext: { seLinuxOptions: { user: 'system_u', role: 'object_r' }, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }, { name: 'kernel.msgmax', value: '65536' }] },
    containers: [{ name: 'my-pod', image: 'busybox' }],
  };
  assert.equal(`violates PodSecurity "restricted:v1.32": ${detail('restricted', spec, {}, 'v1.32')}`,
    'violates PodSecurity "restricted:v1.32": seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: user may not be set; role may not be set), ' +
    'forbidden sysctls (net.core.somaxconn, kernel.msgmax), allowPrivilegeEscalation != false (container "my-pod" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "my-pod" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "my-pod" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "my-pod" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
});

test('baseline checks: each reason and detail', () => {
  assert.equal(detail('baseline', { hostNetwork: true, hostPID: true, hostIPC: true, ...bare() }), 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)');
  assert.equal(detail('baseline', { containers: [{ name: 'a', securityContext: { privileged: true } }, { name: 'b', securityContext: { privileged: true } }] }),
    'privileged (containers "a", "b" must not set securityContext.privileged=true)');
  assert.equal(detail('baseline', bare('a', { securityContext: { capabilities: { add: ['NET_RAW', 'CHOWN', 'SYS_ADMIN'] } } })),
    'non-default capabilities (container "a" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)');
  assert.equal(detail('baseline', { volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'e', emptyDir: {} }], ...bare() }), 'hostPath volumes (volume "h")');
  // Ports are listed as strings, sorted as strings.
  assert.equal(detail('baseline', { containers: [{ name: 'a', ports: [{ containerPort: 1, hostPort: 9090 }, { containerPort: 2, hostPort: 10000 }] }] }),
    'hostPort (container "a" uses hostPorts 10000, 9090)');
  assert.equal(detail('baseline', { containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }] }),
    'procMount (container "a" must not set securityContext.procMount to "Unmasked")');
  assert.equal(detail('baseline', { securityContext: { seccompProfile: { type: 'Unconfined' } }, ...bare() }),
    'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")');
  assert.equal(detail('baseline', { securityContext: { appArmorProfile: { type: 'Unconfined' } }, ...bare() },
    { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } }),
  'forbidden AppArmor profiles (pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/app="unconfined"")');
  assert.equal(detail('baseline', { containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'spc_t' } } }] }),
    'seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: type "spc_t")');
});

test('restricted overrides the baseline checks it supersedes', () => {
  const spec = { volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'n', nfs: { server: 's', path: '/' } }], containers: [restrictedContainer()] };
  assert.equal(detail('restricted', spec), 'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")');
  const caps = { containers: [{ ...restrictedContainer(), securityContext: { ...restrictedContainer().securityContext, capabilities: { drop: ['ALL'], add: ['NET_RAW'] } } }] };
  assert.equal(detail('restricted', caps), 'unrestricted capabilities (container "app" must not include "NET_RAW" in securityContext.capabilities.add)');
  // Before v1.22 the restricted level used the baseline capabilities check.
  assert.equal(detail('restricted', caps, {}, 'v1.21'), 'non-default capabilities (container "app" must not include "NET_RAW" in securityContext.capabilities.add)');
});

test('policy versions: later versions allow more; future versions and latest evaluate as v1.32', () => {
  assert.equal(MAX_POLICY_MINOR, 32);
  const rmem = { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '4096' }] }, ...bare() };
  assert.equal(evaluatePod(lv('baseline'), {}, rmem).allowed, true);
  assert.equal(evaluatePod(lv('baseline', 'v1.40'), {}, rmem).allowed, true);
  assert.equal(detail('baseline', rmem, {}, 'v1.31'), 'forbidden sysctls (net.ipv4.tcp_rmem)');
  const engine = { containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] };
  assert.equal(evaluatePod(lv('baseline', 'v1.31'), {}, engine).allowed, true);
  assert.equal(detail('baseline', engine, {}, 'v1.30'), 'seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t")');
  const root = { containers: [{ ...restrictedContainer(), securityContext: { ...restrictedContainer().securityContext, runAsUser: 0 } }] };
  assert.equal(detail('restricted', root), 'runAsUser=0 (container "app" must not set runAsUser=0)');
  assert.equal(evaluatePod(lv('restricted', 'v1.22'), {}, root).allowed, true);
  // v1.18 and older: seccomp was an annotation.
  assert.equal(detail('baseline', bare(), { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }, 'v1.18'),
    'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
});

test('Windows pods: restricted exempts allowPrivilegeEscalation, capabilities and seccomp from v1.25; runAsNonRoot and hostProcess still apply', () => {
  const win = (extra: any = {}) => ({ os: { name: 'windows' }, containers: [{ name: 'iis', image: 'iis' }], ...extra });
  assert.equal(detail('restricted', win()), 'runAsNonRoot != true (pod or container "iis" must set securityContext.runAsNonRoot=true)');
  assert.equal(evaluatePod(lv('restricted'), {}, win({ securityContext: { runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerUser' } } })).allowed, true);
  // Before v1.25 (and for pods without spec.os) there is no exemption.
  assert.match(detail('restricted', win({ securityContext: { runAsNonRoot: true } }), {}, 'v1.24'), /^allowPrivilegeEscalation != false .*unrestricted capabilities .*seccompProfile /);
  assert.match(detail('restricted', { nodeSelector: { 'kubernetes.io/os': 'windows' }, containers: [{ name: 'iis' }], securityContext: { runAsNonRoot: true } }), /^allowPrivilegeEscalation/);
  const hpc = win({ hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }, { name: 'b' }] });
  assert.equal(detail('baseline', hpc), 'host namespaces (hostNetwork=true), hostProcess (pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)');
});

test('namespace labels: defaults, bad levels and versions (audit and warn fail open)', () => {
  const p = policyToEvaluate(undefined);
  assert.equal(p.policy.enforce.level, 'privileged');
  assert.equal(p.errs.length, 0);
  const bad = policyToEvaluate({
    'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/enforce-version': 'v1.025',
    'pod-security.kubernetes.io/warn': 'nope', 'pod-security.kubernetes.io/audit-version': 'v2.0',
  });
  assert.equal(bad.policy.enforce.level, 'restricted');
  assert.equal(bad.policy.warn.level, 'privileged');
  assert.deepEqual(bad.errs.map((e) => `${e.field}: ${String(e.value)}: ${e.detail}`), [
    'metadata.labels[pod-security.kubernetes.io/enforce]: strict: must be one of privileged, baseline, restricted',
    'metadata.labels[pod-security.kubernetes.io/enforce-version]: v1.025: must be "latest" or "v1.x"',
    'metadata.labels[pod-security.kubernetes.io/audit-version]: v2.0: must be "latest" or "v1.x"',
    'metadata.labels[pod-security.kubernetes.io/warn]: nope: must be one of privileged, baseline, restricted',
  ]);
});

test('pod updates are evaluated only when images change or containers are added', () => {
  const pod = { metadata: {}, spec: { containers: [{ name: 'a', image: 'x:1' }] } };
  assert.equal(isSignificantPodUpdate({ ...pod, metadata: { labels: { a: 'b' } } }, pod), false);
  assert.equal(isSignificantPodUpdate({ metadata: {}, spec: { containers: [{ name: 'a', image: 'x:2' }] } }, pod), true);
  assert.equal(isSignificantPodUpdate({ metadata: {}, spec: { ...pod.spec, ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } }, pod), true);
});

// --- the plugin through the store ------------------------------------------------------------

const defs = allResources();
const def = (group: string, r: string): ResourceDef => defs.find((d) => d.group === group && d.resource === r)!;
function ctx(namespace: string, warnings: string[] = []): WriteContext {
  return { namespace, now: new Date(), dryRun: false, fieldManager: 'test', warn: (m) => { warnings.push(m); } };
}

async function fixture(labels: Record<string, string>) {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, defs);
  await store.create(def('', 'namespaces'), '', { metadata: { name: 'ns', labels } }, ctx(''));
  await store.create(def('', 'serviceaccounts'), 'ns', { metadata: { name: 'default' } }, ctx('ns'));
  return { storage, store };
}

test('plugin: enforce refuses a pod with 403; warn warns on admitted pods and on workload templates', async () => {
  const { storage, store } = await fixture({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted' });
  await assert.rejects(store.create(def('', 'pods'), 'ns', { metadata: { name: 'p' }, spec: { hostPID: true, ...bare() } }, ctx('ns')), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.deepEqual(e.status, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)',
      reason: 'Forbidden', details: { name: 'p', kind: 'pods' }, code: 403,
    });
    return true;
  });
  const w: string[] = [];
  await store.create(def('', 'pods'), 'ns', { metadata: { name: 'ok' }, spec: bare('c') }, ctx('ns', w));
  assert.deepEqual(w, ['would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")']);
  // A workload is never refused, only warned about (here at the warn level, restricted).
  const dw: string[] = [];
  await store.create(def('apps', 'deployments'), 'ns', {
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { hostNetwork: true, containers: [restrictedContainer('c')] } } },
  }, ctx('ns', dw));
  assert.deepEqual(dw, ['would violate PodSecurity "restricted:latest": host namespaces (hostNetwork=true)']);
  // Label-only updates of pods are not evaluated; workload updates are.
  const uw: string[] = [];
  await store.update(def('', 'pods'), 'ns', 'ok', (o) => ({ ...o, metadata: { ...o.metadata, labels: { x: 'y' } } }), ctx('ns', uw));
  assert.deepEqual(uw, []);
  await store.update(def('apps', 'deployments'), 'ns', 'd', (o) => ({ ...o, metadata: { ...o.metadata, labels: { x: 'y' } } }), ctx('ns', uw));
  assert.equal(uw.length, 1);
  await storage.close();
});

test('plugin: namespace labels are validated; tightening enforce warns about existing pods', async () => {
  const { storage, store } = await fixture({});
  await assert.rejects(store.create(def('', 'namespaces'), '', { metadata: { name: 'bad', labels: { 'pod-security.kubernetes.io/enforce': 'strict' } } }, ctx('')),
    (e: unknown) => e instanceof StatusError && e.status.code === 422 &&
      e.status.message === 'Namespace "bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
  for (const name of ['b', 'a', 'c']) {
    await store.create(def('', 'pods'), 'ns', { metadata: { name }, spec: { hostIPC: true, ...bare() } }, ctx('ns'));
  }
  await store.create(def('', 'pods'), 'ns', { metadata: { name: 'z' }, spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] } }, ctx('ns'));
  const w: string[] = [];
  await store.update(def('', 'namespaces'), '', 'ns', (o) => ({ ...o, metadata: { ...o.metadata, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } }), ctx('', w));
  assert.deepEqual(w, [
    'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
    'a (and 2 other pods): host namespaces',
    'z: privileged',
  ]);
  // Relaxing, or re-applying the same level, warns about nothing.
  const w2: string[] = [];
  await store.update(def('', 'namespaces'), '', 'ns', (o) => ({ ...o, metadata: { ...o.metadata, labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } }), ctx('', w2));
  assert.deepEqual(w2, []);
  await storage.close();
});

test('plugin: an invalid pod is refused by validation (422) before PodSecurity is consulted', async () => {
  const { storage, store } = await fixture({ 'pod-security.kubernetes.io/enforce': 'restricted' });
  await assert.rejects(store.create(def('', 'pods'), 'ns', { metadata: { name: 'Bad_Name' }, spec: bare() }, ctx('ns')),
    (e: unknown) => e instanceof StatusError && e.status.code === 422);
  assert.equal(forbiddenReason(evaluatePod(lv('restricted'), {}, bare())), 'allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile');
  await storage.close();
});

test('namespace labels: warn follows a stricter enforce level and its version unless warn labels are set', () => {
  const e = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30' });
  assert.deepEqual([e.policy.warn.level, e.policy.warn.version], ['baseline', parseVersion('v1.30').version]);
  const v = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn-version': 'v1.29' });
  assert.deepEqual([v.policy.warn.level, v.policy.warn.version], ['restricted', parseVersion('v1.29').version]);
  // An explicit warn label, even a laxer one, wins; an unparseable enforce label is not copied.
  assert.equal(policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'privileged' }).policy.warn.level, 'privileged');
  assert.equal(policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'strict' }).policy.warn.level, 'privileged');
});

test('plugin: a Deployment in an enforce-only namespace gets the warning its pods would be refused with', async () => {
  const { storage, store } = await fixture({ 'pod-security.kubernetes.io/enforce': 'baseline' });
  const w: string[] = [];
  await store.create(def('apps', 'deployments'), 'ns', {
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { hostNetwork: true, ...bare() } } },
  }, ctx('ns', w));
  assert.deepEqual(w, ['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)']);
  // A pod that passes enforce gets no warning: warn is the same level.
  const pw: string[] = [];
  await store.create(def('', 'pods'), 'ns', { metadata: { name: 'fine' }, spec: bare() }, ctx('ns', pw));
  assert.deepEqual(pw, []);
  await storage.close();
});

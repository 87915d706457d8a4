import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { admitPod, matchesNodeSelectorAndAffinity } from '../../src/node/kubelet/admission.js';
import { Backoff } from '../../src/node/kubelet/backoff.js';
import { formatPod, goDuration } from '../../src/node/kubelet/format.js';
import { NodeImages } from '../../src/node/kubelet/images.js';
import { podRuntimeSettings } from '../../src/node/kubelet/runtime-settings.js';
import { containerScript, scriptedExitCode, scriptedProbe } from '../../src/node/kubelet/script.js';
import { containersReadyCondition, initializedCondition, podConditions, podPhase } from '../../src/node/kubelet/status.js';

const node = (os: 'linux' | 'windows', extra: Record<string, string> = {}): KObject => ({
  apiVersion: 'v1', kind: 'Node',
  metadata: { name: 'n1', labels: { 'kubernetes.io/os': os, 'kubernetes.io/hostname': 'n1', ...extra } },
  status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' } },
} as unknown as KObject);
const pod = (spec: Record<string, unknown>, labels?: Record<string, string>): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1', labels }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } } as unknown as KObject);

test('admission: OS label, OS field, resources, node affinity, as predicateAdmitHandler reports them', () => {
  assert.equal(admitPod(pod({}), node('windows'), 'windows', []), undefined);
  assert.deepEqual(admitPod(pod({ os: { name: 'linux' } }), node('windows'), 'windows', []),
    { reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" });
  assert.deepEqual(admitPod(pod({}, { 'kubernetes.io/os': 'linux' }), node('windows'), 'windows', []),
    { reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label" });
  const big = pod({ containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '3' } } }] });
  assert.equal(admitPod(big, node('linux'), 'linux', []), undefined);
  assert.deepEqual(admitPod(big, node('linux'), 'linux', [big]),
    { reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 3000, used: 3000, capacity: 4000" });
  const mem = pod({ containers: [{ name: 'c', image: 'x', resources: { requests: { memory: '17Gi' } } }] });
  assert.deepEqual(admitPod(mem, node('linux'), 'linux', []),
    { reason: 'OutOfmemory', message: `Node didn't have enough resource: memory, requested: ${17 * 2 ** 30}, used: 0, capacity: ${16 * 2 ** 30}` });
  assert.deepEqual(admitPod(pod({ nodeSelector: { disk: 'ssd' } }), node('linux'), 'linux', []),
    { reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" });
  const full = Array.from({ length: 110 }, () => pod({}));
  assert.deepEqual(admitPod(pod({}), node('linux'), 'linux', full),
    { reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110" });
});

test('admission: a host port another admitted pod holds rejects the pod with NodePorts (0.0.0.0 overlaps every address, protocols apart)', () => {
  const withPort = (port: number, extra: Record<string, unknown> = {}) => pod({ containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: port, ...extra }] }] });
  const holder = withPort(21017);
  const rejection = { reason: 'NodePorts', message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" };
  assert.deepEqual(admitPod(withPort(21017), node('linux'), 'linux', [holder]), rejection);
  assert.deepEqual(admitPod(withPort(21017, { hostIP: '10.0.0.5' }), node('linux'), 'linux', [holder]), rejection);
  assert.equal(admitPod(withPort(21017, { protocol: 'UDP' }), node('linux'), 'linux', [holder]), undefined);
  assert.equal(admitPod(withPort(21018), node('linux'), 'linux', [holder]), undefined);
  assert.equal(admitPod(withPort(21017, { hostIP: '10.0.0.6' }), node('linux'), 'linux', [withPort(21017, { hostIP: '10.0.0.5' })]), undefined);
});

test('required node affinity: terms are ORed, expressions ANDed, an empty term matches nothing', () => {
  const aff = (terms: unknown[]) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  const n = node('windows', { 'node.kubernetes.io/windows-build': '10.0.17763', rank: '5' });
  assert.equal(matchesNodeSelectorAndAffinity(aff([{ matchExpressions: [{ key: 'node.kubernetes.io/windows-build', operator: 'In', values: ['10.0.17763'] }] }]), n), true);
  assert.equal(matchesNodeSelectorAndAffinity(aff([{ matchExpressions: [{ key: 'rank', operator: 'Gt', values: ['7'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]), n), true);
  assert.equal(matchesNodeSelectorAndAffinity(aff([{}]), n), false);
  assert.equal(matchesNodeSelectorAndAffinity(aff([{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'NotIn', values: ['windows'] }] }]), n), false);
});

const running = (name: string, ready = true) => ({ name, ready, started: true, state: { running: { startedAt: 't' } } });
const terminated = (name: string, exitCode: number) => ({ name, ready: false, started: false, state: { terminated: { exitCode, reason: exitCode ? 'Error' : 'Completed' } } });
const waiting = (name: string, reason: string, last?: number) => ({ name, ready: false, started: false, state: { waiting: { reason } },
  lastState: last === undefined ? {} : { terminated: { exitCode: last } } });

test('getPhase: pending, running, restarting, completion per restartPolicy', () => {
  const spec = (restartPolicy: string, init = false) => ({ restartPolicy, containers: [{ name: 'a' }], initContainers: init ? [{ name: 'i' }] : [] });
  assert.equal(podPhase(spec('Always'), [], [waiting('a', 'ContainerCreating')], false), 'Pending');
  assert.equal(podPhase(spec('Always'), [], [running('a')], false), 'Running');
  assert.equal(podPhase(spec('Always'), [], [waiting('a', 'CrashLoopBackOff', 1)], false), 'Running');
  assert.equal(podPhase(spec('Never'), [], [terminated('a', 0)], false), 'Succeeded');
  assert.equal(podPhase(spec('Never'), [], [terminated('a', 1)], false), 'Failed');
  assert.equal(podPhase(spec('OnFailure'), [], [terminated('a', 1)], false), 'Running');
  assert.equal(podPhase(spec('Always'), [], [terminated('a', 0)], true), 'Succeeded');
  assert.equal(podPhase(spec('Never', true), [terminated('i', 1)], [waiting('a', 'PodInitializing')], false), 'Failed');
  assert.equal(podPhase(spec('Always', true), [running('i')], [waiting('a', 'PodInitializing')], false), 'Pending');
});

test('conditions: reasons and messages of generate.go, in the kubelet order, transition times kept', () => {
  const spec = { containers: [{ name: 'a' }, { name: 'b' }], initContainers: [{ name: 'i' }] };
  assert.deepEqual(initializedCondition(spec, [running('i')], [], 'Pending'),
    { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [i]' });
  assert.deepEqual(containersReadyCondition(spec, [], [running('a', false), running('b', false)], 'Running'),
    { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [a b]' });
  assert.deepEqual(containersReadyCondition(spec, [], [terminated('a', 0), terminated('b', 0)], 'Succeeded'),
    { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' });
  const old = [{ type: 'DisruptionTarget', status: 'True' }, { type: 'PodScheduled', status: 'True', lastTransitionTime: 'T0' }];
  const conds = podConditions({ containers: [{ name: 'a' }] }, old, true, [], [running('a')], 'Running', 'T1');
  assert.deepEqual(conds.map((c) => [c.type, c.status, c.lastTransitionTime]), [
    ['DisruptionTarget', 'True', undefined], ['PodReadyToStartContainers', 'True', 'T1'], ['Initialized', 'True', 'T1'],
    ['Ready', 'True', 'T1'], ['ContainersReady', 'True', 'T1'], ['PodScheduled', 'True', 'T0'],
  ]);
  assert.equal(conds[1]?.lastProbeTime, null);
});

test('container restart back-off: 10s doubling to 300s, reset after 10 minutes without a crash', () => {
  const b = new Backoff();
  b.next('k', 0);
  assert.equal(b.get('k'), 10_000);
  assert.equal(b.inBackOffSince('k', 1000, 5000), true);
  assert.equal(b.inBackOffSince('k', 1000, 11_000), false);
  for (let i = 1; i < 10; i++) b.next('k', i * 1000);
  assert.equal(b.get('k'), 300_000);
  b.next('k', 9000 + 600_001);
  assert.equal(b.get('k'), 10_000);
});

test('Go formatting of durations and pods', () => {
  assert.deepEqual([0, 523, 1000, 1200, 10_000, 300_000, 80_000, 3_600_000].map(goDuration), ['0s', '523ms', '1s', '1.2s', '10s', '5m0s', '1m20s', '1h0m0s']);
  assert.equal(formatPod({ metadata: { name: 'p', namespace: 'ns', uid: 'u' } }), 'p_ns(u)');
});

test('image manager: pull policies and the upstream event and error texts', () => {
  const imgs = new NodeImages({ os: 'linux', arch: 'amd64' }, 0);
  const r = imgs.ensure('uid', 'busybox:1.36', 'IfNotPresent');
  assert.equal(r.kind, 'pulling');
  const done = (r as { finish(): any }).finish();
  assert.equal(done.kind, 'ready');
  assert.equal(done.image, 'docker.io/library/busybox:1.36');
  assert.deepEqual(done.events, [{ type: 'Normal', reason: 'Pulled', message: 'Successfully pulled image "busybox:1.36" in 0s (0s including waiting). Image size: 2167176 bytes.' }]);
  assert.deepEqual(imgs.ensure('uid', 'busybox:1.36', 'IfNotPresent').events,
    [{ type: 'Normal', reason: 'Pulled', message: 'Container image "busybox:1.36" already present on machine' }]);
  assert.deepEqual(imgs.ensure('uid', 'nginx:1.27', 'Never'), {
    kind: 'failed', reason: 'ErrImageNeverPull', message: 'Container image "nginx:1.27" is not present with pull policy of Never',
    events: [{ type: 'Warning', reason: 'ErrImageNeverPull', message: 'Container image "nginx:1.27" is not present with pull policy of Never' }],
  });
  const win = new NodeImages({ os: 'linux', arch: 'amd64' }, 0);
  const failed = (win.ensure('uid', 'mcr.microsoft.com/windows/servercore:ltsc2022', 'IfNotPresent') as { finish(): any }).finish();
  const err = 'rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2022": no match for platform in manifest: not found';
  assert.deepEqual([failed.kind, failed.reason, failed.message], ['failed', 'ErrImagePull', err]);
  const again = win.ensure('uid', 'mcr.microsoft.com/windows/servercore:ltsc2022', 'IfNotPresent');
  assert.deepEqual([again.kind, (again as any).reason, (again as any).message],
    ['failed', 'ImagePullBackOff', `Back-off pulling image "mcr.microsoft.com/windows/servercore:ltsc2022": ErrImagePull: ${err}`]);
});

test('image manager: a Docker Hub library name that is no official image fails the pull as the registry denies it (code Unknown)', () => {
  const imgs = new NodeImages({ os: 'linux', arch: 'amd64' }, 0);
  const failed = (imgs.ensure('uid', 'webserver:404', 'IfNotPresent') as { finish(): any }).finish();
  const err = 'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/webserver:404": failed to resolve reference "docker.io/library/webserver:404": ' +
    'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed';
  assert.deepEqual([failed.kind, failed.reason, failed.message, failed.events], ['failed', 'ErrImagePull', err,
    [{ type: 'Warning', reason: 'Failed', message: `Failed to pull image "webserver:404": ${err}` }]]);
  // Official images, and names outside library/, still pull.
  assert.equal((imgs.ensure('uid', 'httpd:2.4', 'IfNotPresent') as { finish(): any }).finish().kind, 'ready');
  assert.equal((imgs.ensure('uid', 'example.com/team/webserver:404', 'IfNotPresent') as { finish(): any }).finish().kind, 'ready');
  assert.equal((imgs.ensure('uid', 'acme/webserver:1', 'IfNotPresent') as { finish(): any }).finish().kind, 'ready');
});

test('runtime settings: Windows CpuMaximum from the limit only, Linux shares and quota', () => {
  const p = { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '256Mi' } } }] } };
  assert.deepEqual(podRuntimeSettings(p, 'windows', 4)[0]?.resources, { CpuMaximum: 1250, MemoryLimitInBytes: 268435456 });
  assert.deepEqual(podRuntimeSettings(p, 'linux', 4)[0]?.resources, { CpuShares: 256, MemoryLimitInBytes: 268435456, CpuQuota: 50000, CpuPeriod: 100000 });
});

test('runtime settings: a Windows container\'s security context from windowsOptions, each field its own or the pod\'s', () => {
  const p = {
    spec: {
      securityContext: { windowsOptions: { gmsaCredentialSpec: '{"CmsPlugins":["ActiveDirectory"]}', runAsUserName: 'ContainerUser' } },
      containers: [{ name: 'a' }, { name: 'b', securityContext: { windowsOptions: { gmsaCredentialSpec: '{}' } } }],
    },
  };
  assert.deepEqual(podRuntimeSettings(p, 'windows', 4).map((s) => s.windowsSecurity), [
    { RunAsUsername: 'ContainerUser', CredentialSpec: '{"CmsPlugins":["ActiveDirectory"]}' },
    { RunAsUsername: 'ContainerUser', CredentialSpec: '{}' },
  ]);
  assert.deepEqual(podRuntimeSettings(p, 'linux', 4)[0]?.windowsSecurity, {});
});

test('the winkube.io/script annotation', () => {
  const ann = { 'winkube.io/script': JSON.stringify({ app: { exitCode: [1, 1, 0], memory: '1Gi', readiness: { failAfterSeconds: 5 } }, '*': { listen: [80] } }) };
  const s = containerScript(ann, 'app')!;
  assert.deepEqual([scriptedExitCode(s, 0), scriptedExitCode(s, 2), scriptedExitCode(s, 9)], [1, 0, 0]);
  assert.deepEqual(s.memory, { kind: 'step', atSeconds: 0, value: 2 ** 30 });
  assert.deepEqual([scriptedProbe(s.readiness, 1000), scriptedProbe(s.readiness, 6000)], [true, false]);
  assert.deepEqual(containerScript(ann, 'other'), { listen: [80] });
  assert.equal(containerScript({ 'winkube.io/script': '{bad' }, 'app'), undefined);
});

test('user images declared in the winkube-images ConfigMap resolve on the node', async () => {
  const { parseUserImages } = await import('../../src/node/kubelet/kubelet.js');
  const cm = { metadata: { name: 'winkube-images', namespace: 'kube-system' }, data: { 'images.yaml': `
- ref: example.com/agent:1.0
  platforms:
  - {os: windows, architecture: amd64, os.version: 10.0.17763.1}
- {ref: broken}
` } } as unknown as KObject;
  const images = parseUserImages(cm);
  assert.deepEqual(images, [{ ref: 'example.com/agent:1.0', platforms: [{ os: 'windows', architecture: 'amd64', 'os.version': '10.0.17763.1' }] }]);
  const on2019 = new NodeImages({ os: 'windows', arch: 'amd64', build: 17763 }, 0, () => images);
  assert.equal(on2019.resolve('example.com/agent:1.0').ok, true);
  const on2022 = new NodeImages({ os: 'windows', arch: 'amd64', build: 20348 }, 0, () => images);
  assert.equal(on2022.resolve('example.com/agent:1.0').ok, false);
});

test('verifyRunAsNonRoot: Linux root images and runAsUser 0; Windows ContainerAdministrator', async () => {
  const { verifyRunAsNonRoot } = await import('../../src/node/kubelet/security.js');
  const p = (sc: Record<string, unknown>, image: string, csc?: Record<string, unknown>) =>
    ({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { securityContext: sc, containers: [{ name: 'c', image, securityContext: csc }] } });
  const run = (sc: Record<string, unknown>, image: string, os: 'linux' | 'windows', csc?: Record<string, unknown>) => {
    const pod = p(sc, image, csc);
    return verifyRunAsNonRoot(pod, pod.spec.containers[0]!, os);
  };
  assert.equal(run({ runAsNonRoot: true }, 'nginx:1.27', 'linux'), 'container has runAsNonRoot and image will run as root (pod: "p_ns(u)", container: c)');
  assert.equal(run({ runAsNonRoot: true, runAsUser: 0 }, 'example.com/app', 'linux'), 'container\'s runAsUser breaks non-root policy (pod: "p_ns(u)", container: c)');
  assert.equal(run({ runAsNonRoot: true, runAsUser: 1000 }, 'nginx:1.27', 'linux'), undefined);
  assert.equal(run({ runAsNonRoot: true }, 'example.com/app', 'linux'), undefined);
  assert.equal(run({ runAsNonRoot: true }, 'mcr.microsoft.com/windows/servercore:ltsc2019', 'windows'),
    'container\'s runAsUser (ContainerAdministrator) which will be regarded as root identity and will break non-root policy (pod: "p_ns(u)", container: c)');
  assert.equal(run({ runAsNonRoot: true }, 'mcr.microsoft.com/windows/nanoserver:1809', 'windows'), undefined);
  assert.equal(run({ runAsNonRoot: true }, 'mcr.microsoft.com/windows/nanoserver:1809', 'windows', { windowsOptions: { runAsUserName: 'CONTAINERADMINISTRATOR' } }),
    'container\'s runAsUserName (CONTAINERADMINISTRATOR) which will be regarded as root identity and will break non-root policy (pod: "p_ns(u)", container: c)');
});

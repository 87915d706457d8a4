import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, kubectlOk, objectEvents, podObject, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/** The container model behind the kubelets: env, volumes, probes, init containers, scripted behaviour, runtime settings. */
let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);
const pod = (name: string) => podObject(cluster, name);
const events = (name: string) => objectEvents(cluster, name);

test('init containers run in order before the containers; the pod shows Init then Running', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: with-init}
spec:
  nodeName: linux-1
  initContainers:
  - {name: first, image: "busybox:1.36", command: ["sh", "-c", "sleep 1"]}
  - {name: second, image: "busybox:1.36", command: ["sh", "-c", "exit 0"]}
  containers:
  - {name: app, image: "busybox:1.36", command: ["sleep", "3600"]}`);
  const early = await pod('with-init');
  assert.equal(early.status.containerStatuses?.[0]?.state?.waiting?.reason ?? 'PodInitializing', 'PodInitializing');
  const p = await eventually('Running', async () => { const p = await pod('with-init'); return p.status.phase === 'Running' ? p : undefined; });
  assert.deepEqual(p.status.initContainerStatuses.map((s: any) => [s.name, s.state.terminated.reason, s.state.terminated.exitCode]),
    [['first', 'Completed', 0], ['second', 'Completed', 0]]);
  assert.deepEqual(p.status.initContainerStatuses.map((s: any) => [s.ready, s.started]), [[true, false], [true, false]]);
  assert.ok(Date.parse(p.status.initContainerStatuses[1].state.terminated.startedAt) >= Date.parse(p.status.initContainerStatuses[0].state.terminated.finishedAt));
});

test('a failing init container with restartPolicy Never fails the pod', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: init-fails}
spec:
  nodeName: linux-2
  restartPolicy: Never
  initContainers:
  - {name: setup, image: "busybox:1.36", command: ["sh", "-c", "echo no >&2; exit 2"]}
  containers:
  - {name: app, image: "busybox:1.36", command: ["sleep", "3600"]}`);
  const p = await eventually('Failed', async () => { const p = await pod('init-fails'); return p.status.phase === 'Failed' ? p : undefined; });
  assert.deepEqual([p.status.initContainerStatuses[0].state.terminated.reason, p.status.initContainerStatuses[0].state.terminated.exitCode], ['Error', 2]);
  assert.equal(p.status.containerStatuses[0].state.waiting.reason, 'PodInitializing');
  const init = p.status.conditions.find((c: any) => c.type === 'Initialized');
  assert.deepEqual([init.status, init.reason, init.message], ['False', 'ContainersNotInitialized', 'containers with incomplete status: [setup]']);
});

test('a missing ConfigMap: CreateContainerConfigError for env, FailedMount for a volume', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: env-missing}
spec:
  nodeName: linux-1
  containers:
  - name: app
    image: busybox:1.36
    command: ["sleep", "3600"]
    env:
    - name: X
      valueFrom: {configMapKeyRef: {name: nope, key: k}}
---
apiVersion: v1
kind: Pod
metadata: {name: vol-missing}
spec:
  nodeName: linux-1
  containers:
  - name: app
    image: busybox:1.36
    command: ["sleep", "3600"]
    volumeMounts: [{name: cfg, mountPath: /etc/cfg}]
  volumes:
  - name: cfg
    configMap: {name: nope}`);
  const p = await eventually('CreateContainerConfigError', async () => {
    const p = await pod('env-missing'); return p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError' ? p : undefined;
  });
  assert.equal(p.status.containerStatuses[0].state.waiting.message, 'configmap "nope" not found');
  // The kubelet writes the event beside the status: wait for it.
  await eventually('the Failed event', async () => ((await events('env-missing')).includes('Warning Failed Error: configmap "nope" not found') ? true : undefined));
  const ev = await eventually('FailedMount', async () => { const e = await events('vol-missing'); return e.some((x) => x.includes('FailedMount')) ? e : undefined; });
  assert.ok(ev.includes('Warning FailedMount MountVolume.SetUp failed for volume "cfg" : configmap "nope" not found'), ev.join('\n'));
  assert.equal((await pod('vol-missing')).status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
});

test('env from a ConfigMap, downward API and service links reach the container (a script prints them)', async () => {
  await ok(['create', 'configmap', 'app-config', '--from-literal=greeting=hello', '--from-literal=color=blue']);
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: env-ok, labels: {app: demo}}
spec:
  nodeName: linux-2
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "echo $GREETING $CFG_color $MY_NODE $MY_POD $KUBERNETES_SERVICE_HOST $KUBERNETES_PORT; cat /etc/cfg/greeting; test \\"$COMBINED\\" = \\"hello-linux-2\\""]
    env:
    - name: GREETING
      valueFrom: {configMapKeyRef: {name: app-config, key: greeting}}
    - name: MY_NODE
      valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
    - name: MY_POD
      valueFrom: {fieldRef: {fieldPath: metadata.name}}
    - {name: COMBINED, value: "$(GREETING)-$(MY_NODE)"}
    envFrom:
    - prefix: CFG_
      configMapRef: {name: app-config}
    volumeMounts: [{name: cfg, mountPath: /etc/cfg}]
  volumes:
  - name: cfg
    configMap: {name: app-config}`);
  const p = await eventually('Succeeded', async () => { const p = await pod('env-ok'); return p.status.phase === 'Succeeded' ? p : undefined; });
  assert.equal(p.status.containerStatuses[0].state.terminated.exitCode, 0);
});

test('readiness follows an exec probe; a failing liveness probe restarts the container with Killing and Unhealthy events', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: probed}
spec:
  nodeName: linux-1
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "touch /tmp/healthy; sleep 2; rm -f /tmp/healthy; sleep 600"]
    readinessProbe: {exec: {command: ["cat", "/tmp/healthy"]}, periodSeconds: 1}
    livenessProbe: {exec: {command: ["cat", "/tmp/healthy"]}, periodSeconds: 1, failureThreshold: 2}`);
  await eventually('ready', async () => ((await pod('probed')).status.containerStatuses?.[0]?.ready === true ? true : undefined));
  const p = await eventually('restart', async () => { const p = await pod('probed'); return p.status.containerStatuses[0].restartCount >= 1 ? p : undefined; });
  assert.equal(p.status.containerStatuses[0].lastState.terminated.exitCode, 137);
  const ev = await events('probed');
  assert.ok(ev.includes("Warning Unhealthy Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"), ev.join('\n'));
  assert.ok(ev.includes('Normal Killing Container app failed liveness probe, will be restarted'), ev.join('\n'));
});

test('the winkube.io/script annotation: memory over the limit is OOMKilled on Linux (137), never on Windows', async () => {
  const script = JSON.stringify({ app: { memory: '300Mi' } });
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: oom-linux
  annotations: {winkube.io/script: '${script}'}
spec:
  nodeName: linux-2
  restartPolicy: Never
  containers:
  - name: app
    image: nginx:1.27
    resources: {limits: {memory: 200Mi}}
---
apiVersion: v1
kind: Pod
metadata:
  name: oom-windows
  annotations: {winkube.io/script: '${script}'}
spec:
  nodeName: win2022-1
  restartPolicy: Never
  containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    resources: {limits: {memory: 200Mi, cpu: 500m}}`);
  const p = await eventually('OOMKilled', async () => { const p = await pod('oom-linux'); return p.status.phase === 'Failed' ? p : undefined; });
  assert.deepEqual([p.status.containerStatuses[0].state.terminated.reason, p.status.containerStatuses[0].state.terminated.exitCode], ['OOMKilled', 137]);
  const w = await eventually('Windows Running', async () => { const w = await pod('oom-windows'); return w.status.phase === 'Running' ? w : undefined; });
  assert.equal(w.status.containerStatuses[0].restartCount, 0);
  const out = await new Promise<string>((resolve, reject) => execFile(process.execPath, [MAIN, 'describe-runtime', 'oom-windows', '--kubeconfig', cluster.kubeconfig],
    (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))));
  assert.equal(out, 'Pod:   default/oom-windows\nNode:  win2022-1 (windows, 4 logical CPUs)\nContainers:\n  app:\n    CpuMaximum: 1250\n    MemoryLimitInBytes: 209715200\n' +
    '    memory limit: job object commit limit: allocations beyond the limit fail; the container is never OOM-killed\n');
});

test('a Windows image on a Linux node: ErrImagePull, then ImagePullBackOff with the pull error, and a WinkubeHint', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: win-on-linux}
spec:
  nodeName: linux-2
  containers:
  - {name: app, image: "mcr.microsoft.com/windows/servercore:ltsc2019"}`);
  const err = 'rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2019": no match for platform in manifest: not found';
  const p = await eventually('ImagePullBackOff', async () => {
    const p = await pod('win-on-linux'); return p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff' ? p : undefined;
  });
  assert.equal(p.status.containerStatuses[0].state.waiting.message,
    `Back-off pulling image "mcr.microsoft.com/windows/servercore:ltsc2019": ErrImagePull: ${err}`);
  const ev = await events('win-on-linux');
  for (const e of [`Warning Failed Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2019": ${err}`, 'Warning Failed Error: ErrImagePull',
    'Normal BackOff Back-off pulling image "mcr.microsoft.com/windows/servercore:ltsc2019"', 'Warning Failed Error: ImagePullBackOff']) {
    assert.ok(ev.includes(e), `missing ${e} in\n${ev.join('\n')}`);
  }
  assert.equal(ev.filter((e) => e.startsWith('Normal WinkubeHint ')).length, 1);
});

test('runAsNonRoot with a root image: CreateContainerConfigError with the kubelet message', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: nonroot}
spec:
  nodeName: linux-1
  securityContext: {runAsNonRoot: true}
  containers:
  - {name: web, image: "nginx:1.27"}`);
  const p = await eventually('CreateContainerConfigError', async () => {
    const p = await pod('nonroot'); return p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError' ? p : undefined;
  });
  assert.equal(p.status.containerStatuses[0].state.waiting.message,
    `container has runAsNonRoot and image will run as root (pod: "nonroot_default(${p.metadata.uid})", container: web)`);
});

test('activeDeadlineSeconds: the pod fails with DeadlineExceeded and its containers are stopped', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: deadline}
spec:
  nodeName: linux-2
  activeDeadlineSeconds: 1
  terminationGracePeriodSeconds: 0
  containers:
  - {name: app, image: "busybox:1.36", command: ["sleep", "3600"]}`);
  const p = await eventually('DeadlineExceeded', async () => {
    const p = await pod('deadline');
    return p.status.phase === 'Failed' && p.status.containerStatuses?.[0]?.state?.terminated ? p : undefined;
  });
  assert.deepEqual([p.status.reason, p.status.message], ['DeadlineExceeded', 'Pod was active on the node longer than the specified deadline']);
  assert.equal(p.status.containerStatuses[0].state.terminated.exitCode, 137);
  const ev = await events('deadline');
  assert.ok(ev.includes('Normal DeadlineExceeded Pod was active on the node longer than the specified deadline'), ev.join('\n'));
  assert.ok(ev.includes('Normal Killing Stopping container app'), ev.join('\n'));
});

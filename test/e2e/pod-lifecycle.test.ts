import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl as run, kubectlOk, objectEvents, podObject, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/** Pods with spec.nodeName reach the emulated kubelets directly (no scheduler needed). */
let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);

const pod = (name: string) => podObject(cluster, name);

const events = (name: string) => objectEvents(cluster, name);

const manifest = (name: string, node: string, spec: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  nodeName: ${node}
${spec}`;

test('a Windows Server 2019 pod on win2019-1 runs, with the kubelet events upstream writes', async () => {
  await ok(['apply', '-f', '-'], manifest('win-ok', 'win2019-1', `  os: {name: windows}
  containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2019
    command: ["cmd", "/c", "echo ready & ping -t localhost"]`));
  const p = await eventually('Running', async () => { const p = await pod('win-ok'); return p.status.phase === 'Running' && p.status.containerStatuses[0].ready ? p : undefined; });
  const cs = p.status.containerStatuses[0];
  assert.equal(cs.image, 'mcr.microsoft.com/windows/servercore:ltsc2019');
  assert.match(cs.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
  assert.equal(cs.started, true);
  assert.match(p.status.podIP, /^10\.244\.\d+\.\d+$/);
  assert.equal(p.status.hostIP, '172.18.0.5');
  assert.deepEqual(p.status.conditions.map((c: any) => `${c.type}=${c.status}`),
    ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
  const ev = await events('win-ok');
  assert.deepEqual(ev.filter((e) => !e.startsWith('Normal Pulled')), [
    'Normal Pulling Pulling image "mcr.microsoft.com/windows/servercore:ltsc2019"',
    'Normal Created Created container: app',
    'Normal Started Started container app',
  ]);
  assert.match(ev.find((e) => e.startsWith('Normal Pulled'))!,
    /^Normal Pulled Successfully pulled image "mcr\.microsoft\.com\/windows\/servercore:ltsc2019" in \d+(ms|\.\d+s|s) \(\d+(ms|\.\d+s|s) including waiting\)\. Image size: \d+ bytes\.$/);
  const get = await ok(['get', 'pod', 'win-ok', '--no-headers']);
  assert.match(get, /^win-ok\s+1\/1\s+Running\s+0\s+/);
});

test('the ltsc2022 image on a 2019 node fails with the runtime error and stays waiting, plus one WinkubeHint', async () => {
  await ok(['apply', '-f', '-'], manifest('win-mismatch', 'win2019-1', `  containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2022`));
  const p = await eventually('CreateContainerError', async () => {
    const p = await pod('win-mismatch');
    return p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError' ? p : undefined;
  });
  assert.equal(p.status.phase, 'Pending');
  const msg: string = p.status.containerStatuses[0].state.waiting.message;
  assert.match(msg, /^failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem [0-9a-f]{64}: The container operating system does not match the host operating system\. \(0xc0370101\): unknown$/);
  const ev = await events('win-mismatch');
  assert.ok(ev.includes(`Warning Failed Error: ${msg}`), ev.join('\n'));
  const hints = ev.filter((e) => e.startsWith('Normal WinkubeHint '));
  assert.equal(hints.length, 1);
  assert.match(hints[0] ?? '', /use "mcr\.microsoft\.com\/windows\/servercore:ltsc2019"/);
  assert.match(await ok(['get', 'pod', 'win-mismatch', '--no-headers']), /^win-mismatch\s+0\/1\s+CreateContainerError\s+0\s+/);
});

test('a Linux image on a Windows node fails the pull itself: no match for platform in manifest', async () => {
  await ok(['apply', '-f', '-'], manifest('nginx-on-win', 'win2022-1', `  containers:
  - name: app
    image: nginx`));
  const err = 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:latest": no match for platform in manifest: not found';
  const p = await eventually('ErrImagePull', async () => {
    const p = await pod('nginx-on-win');
    return ['ErrImagePull', 'ImagePullBackOff'].includes(p.status.containerStatuses?.[0]?.state?.waiting?.reason) ? p : undefined;
  });
  assert.equal(p.status.phase, 'Pending');
  const ev = await events('nginx-on-win');
  assert.ok(ev.includes(`Warning Failed Failed to pull image "nginx": ${err}`), ev.join('\n'));
  assert.ok(ev.includes('Warning Failed Error: ErrImagePull'), ev.join('\n'));
  assert.ok(!ev.some((e) => / Created /.test(e)), ev.join('\n'));
});

test('a Linux pod forced onto a Windows node is rejected: PodOSNotSupported, Failed', async () => {
  await ok(['apply', '-f', '-'], manifest('linux-on-win', 'win2019-1', `  os: {name: linux}
  containers:
  - name: app
    image: nginx`));
  const p = await eventually('Failed', async () => { const p = await pod('linux-on-win'); return p.status.phase === 'Failed' ? p : undefined; });
  assert.deepEqual({ phase: p.status.phase, reason: p.status.reason, message: p.status.message }, {
    phase: 'Failed', reason: 'PodOSNotSupported', message: "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS",
  });
  assert.deepEqual(await events('linux-on-win'), ["Warning PodOSNotSupported Failed to admit pod as the OS field doesn't match node OS"]);
  // A rejected pod being deleted is removed by the kubelet (nothing runs).
  await ok(['delete', 'pod', 'linux-on-win']);
  assert.equal((await run(cluster, ['get', 'pod', 'linux-on-win'])).code, 1);
});

test('sh -c "echo hi; exit 0" with restartPolicy Never completes: Succeeded, Completed, exit code 0', async () => {
  await ok(['apply', '-f', '-'], manifest('job-like', 'linux-1', `  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1.36
    command: ["sh", "-c", "echo hi; exit 0"]`));
  const p = await eventually('Succeeded', async () => { const p = await pod('job-like'); return p.status.phase === 'Succeeded' ? p : undefined; });
  const t = p.status.containerStatuses[0].state.terminated;
  assert.deepEqual([t.reason, t.exitCode], ['Completed', 0]);
  const ready = p.status.conditions.find((c: any) => c.type === 'Ready');
  assert.deepEqual([ready.status, ready.reason], ['False', 'PodCompleted']);
  assert.match(await ok(['get', 'pod', 'job-like', '--no-headers']), /^job-like\s+0\/1\s+Completed\s+0\s+/);
  await ok(['delete', 'pod', 'job-like']);
  assert.equal((await run(cluster, ['get', 'pod', 'job-like'])).code, 1);
});

test('a crashing container goes into CrashLoopBackOff with restarts and the BackOff event', async () => {
  await ok(['apply', '-f', '-'], manifest('crasher', 'linux-2', `  containers:
  - name: c
    image: busybox:1.36
    command: ["sh", "-c", "echo boom; exit 3"]`));
  const p = await eventually('CrashLoopBackOff', async () => {
    const p = await pod('crasher');
    return p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
  });
  const cs = p.status.containerStatuses[0];
  const fmt = `crasher_default(${p.metadata.uid})`;
  assert.equal(cs.state.waiting.message, `back-off 10s restarting failed container=c pod=${fmt}`);
  assert.equal(cs.restartCount, 1);
  assert.deepEqual([cs.lastState.terminated.reason, cs.lastState.terminated.exitCode], ['Error', 3]);
  assert.equal(p.status.phase, 'Running');
  const ev = await events('crasher');
  assert.ok(ev.includes(`Warning BackOff Back-off restarting failed container c in pod ${fmt}`), ev.join('\n'));
  assert.match(await ok(['get', 'pod', 'crasher', '--no-headers']), /^crasher\s+0\/1\s+CrashLoopBackOff\s+1 \(\d+s ago\)\s+/);
});

test('graceful deletion: Killing event, the grace period honoured for a process that ignores SIGTERM, then the pod is gone', async () => {
  await ok(['apply', '-f', '-'], manifest('sleeper', 'linux-1', `  terminationGracePeriodSeconds: 2
  containers:
  - name: c
    image: busybox:1.36
    command: ["sleep", "3600"]`));
  await eventually('Running', async () => ((await pod('sleeper')).status.phase === 'Running' ? true : undefined));
  const started = Date.now();
  await ok(['delete', 'pod', 'sleeper']);
  const took = Date.now() - started;
  assert.ok(took >= 1900, `sleep ignores SIGTERM as PID 1: deletion waits for the grace period (took ${took} ms)`);
  const r = await run(cluster, ['get', 'pod', 'sleeper']);
  assert.equal(r.stderr.trim(), 'Error from server (NotFound): pods "sleeper" not found');
  assert.ok((await events('sleeper')).includes('Normal Killing Stopping container c'));
});

test('a shell with a TERM trap exits at once on deletion', async () => {
  await ok(['apply', '-f', '-'], manifest('trapper', 'linux-2', `  terminationGracePeriodSeconds: 30
  containers:
  - name: c
    image: busybox:1.36
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]`));
  await eventually('Running', async () => ((await pod('trapper')).status.phase === 'Running' ? true : undefined));
  const started = Date.now();
  await ok(['delete', 'pod', 'trapper']);
  assert.ok(Date.now() - started < 30_000, 'the trap ends the container before the 30 s grace period');
});

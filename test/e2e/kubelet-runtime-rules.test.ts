import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl as run, kubectlOk, objectEvents, podObject, removeDir, type TestCluster } from '../helpers/cluster.js';
import { startClusterFromFile } from '../helpers/cluster-file.js';

/**
 * Runtime rules the kubelet and its container runtime enforce at sandbox and
 * container creation, on containerd and Docker (cri-dockerd) nodes.
 */
let cluster: TestCluster;
before(async () => {
  cluster = await startClusterFromFile(['apiVersion: winkube.io/v1alpha1', 'kind: Cluster', 'nodePools:',
    '  - { name: winkube-control-plane, os: linux, role: control-plane, exactName: true }',
    '  - { name: linux, os: linux, count: 2 }',
    '  - { name: wdocker, os: windows, windowsVersion: ltsc2022, containerRuntime: docker, count: 1 }',
    '  - { name: wctrd, os: windows, windowsVersion: ltsc2022, count: 1 }']);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);
const pod = (name: string) => podObject(cluster, name);
const events = (name: string) => objectEvents(cluster, name);
async function nodeOf(pool: string): Promise<string> {
  const names = (await ok(['get', 'nodes', '-o', 'name'])).trim().split('\n').map((n) => n.replace(/^node\//, ''));
  const n = names.find((x) => x.startsWith(pool));
  assert.ok(n, `no node of pool ${pool} in ${names.join(', ')}`);
  return n;
}

const WIN_IMAGE = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';

test('a RuntimeClass whose handler the node lacks: FailedCreatePodSandBox with containerd\'s and cri-dockerd\'s errors, nothing starts', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: hyperv}
handler: runhcs-wcow-hypervisor`);
  const cases = [
    { name: 'rc-linux', node: await nodeOf('linux'), rc: 'gvisor', image: 'busybox:1.36',
      err: 'rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "runsc" is configured' },
    { name: 'rc-wctrd', node: await nodeOf('wctrd'), rc: 'gvisor', image: WIN_IMAGE,
      err: 'rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "runsc" is configured' },
    { name: 'rc-wdocker', node: await nodeOf('wdocker'), rc: 'hyperv', image: WIN_IMAGE,
      err: 'rpc error: code = Unknown desc = RuntimeHandler "runhcs-wcow-hypervisor" not supported' },
  ];
  for (const c of cases) {
    await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: ${c.name}}
spec:
  nodeName: ${c.node}
  runtimeClassName: ${c.rc}
  containers:
  - {name: app, image: "${c.image}", command: ["${c.image === WIN_IMAGE ? 'ping' : 'sleep'}", "${c.image === WIN_IMAGE ? '-t' : '3600'}", "${c.image === WIN_IMAGE ? 'localhost' : ''}"]}`.replace(', ""]', ']'));
  }
  for (const c of cases) {
    const ev = await eventually(`FailedCreatePodSandBox for ${c.name}`, async () => {
      const ev = await events(c.name);
      return ev.some((e) => e.startsWith('Warning FailedCreatePodSandBox ')) ? ev : undefined;
    });
    assert.deepEqual(ev, [`Warning FailedCreatePodSandBox Failed to create pod sandbox: ${c.err}`], c.name);
    const p = await pod(c.name);
    assert.equal(p.status.phase, 'Pending');
    assert.equal(p.status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
  }
  // The Windows containerd default configuration has the hypervisor handler.
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: rc-hyperv-ok}
spec:
  nodeName: ${await nodeOf('wctrd')}
  runtimeClassName: hyperv
  containers:
  - {name: app, image: "${WIN_IMAGE}", command: ["ping", "-t", "localhost"]}`);
  await eventually('Running', async () => ((await pod('rc-hyperv-ok')).status.phase === 'Running' ? true : undefined));
});

test('a hostPath is the node\'s directory: two pods of one node share it, a pod of another node does not see it', async () => {
  const [n1, n2] = (await ok(['get', 'nodes', '-o', 'name'])).trim().split('\n').map((n) => n.replace(/^node\//, '')).filter((n) => n.startsWith('linux'));
  assert.ok(n1 && n2);
  const hostPod = (name: string, node: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${node}
  volumes:
  - {name: shared, hostPath: {path: /var/shared, type: DirectoryOrCreate}}
  containers:
  - {name: app, image: "busybox:1.36", command: ["sleep", "3600"], volumeMounts: [{name: shared, mountPath: /shared}]}`;
  await ok(['apply', '-f', '-'], [hostPod('hp-a', n1), hostPod('hp-b', n1), hostPod('hp-c', n2)].join('\n---\n'));
  for (const n of ['hp-a', 'hp-b', 'hp-c']) await eventually(`${n} Running`, async () => ((await pod(n)).status.phase === 'Running' ? true : undefined));
  await ok(['exec', 'hp-a', '--', 'sh', '-c', 'echo from-a > /shared/note.txt']);
  assert.equal(await ok(['exec', 'hp-b', '--', 'cat', '/shared/note.txt']), 'from-a\n');
  const other = await run(cluster, ['exec', 'hp-c', '--', 'cat', '/shared/note.txt']);
  assert.equal(other.code, 1);
  assert.match(other.stderr, /^cat: can't open '\/shared\/note\.txt': No such file or directory\n/);
});

test('postStart exec: the container is not Running until the hook returns; a failing hook kills it (FailedPostStartHook) and it restarts', async () => {
  const node = await nodeOf('linux');
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: ps-ok}
spec:
  nodeName: ${node}
  containers:
  - name: app
    image: "busybox:1.36"
    command: ["sleep", "3600"]
    lifecycle:
      postStart:
        exec: {command: ["sh", "-c", "sleep 2; echo hooked > /tmp/poststart"]}
---
apiVersion: v1
kind: Pod
metadata: {name: ps-fail}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: "busybox:1.36"
    command: ["sleep", "3600"]
    lifecycle:
      postStart:
        exec: {command: ["sh", "-c", "echo oops >&2; exit 3"]}`);
  const created = await eventually('ps-ok Started event', async () => ((await events('ps-ok')).some((e) => e.startsWith('Normal Started ')) ? true : undefined));
  assert.ok(created);
  const early = await pod('ps-ok');
  assert.equal(early.status.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
  await eventually('ps-ok Running', async () => ((await pod('ps-ok')).status.phase === 'Running' ? true : undefined));
  assert.equal(await ok(['exec', 'ps-ok', '--', 'cat', '/tmp/poststart']), 'hooked\n');

  const p = await eventually('ps-fail restarted', async () => {
    const p = await pod('ps-fail');
    return p.status.containerStatuses?.[0]?.restartCount >= 1 ? p : undefined;
  }, 30_000);
  assert.equal(p.status.containerStatuses[0].lastState.terminated.reason, 'Error');
  // Events are written beside the status: wait for the hook's and the kill's.
  const ev = await eventually('FailedPostStartHook', async () => {
    const e = await events('ps-fail');
    return e.includes('Warning FailedPostStartHook PostStartHook failed') && e.includes('Normal Killing FailedPostStartHook') ? e : undefined;
  });
  assert.ok(ev.includes('Normal Killing FailedPostStartHook'), ev.join('\n'));
});

test('preStop exec runs before the stop signal (its write lands in a hostPath another pod reads); a failing one is FailedPreStopHook', async () => {
  const node = await nodeOf('linux');
  const podWith = (name: string, hook: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 5
  volumes:
  - {name: x, hostPath: {path: /var/prestop, type: DirectoryOrCreate}}
  containers:
  - name: app
    image: "busybox:1.36"
    command: ["sleep", "3600"]
    volumeMounts: [{name: x, mountPath: /x}]
    lifecycle:
      preStop:
        exec: {command: ["sh", "-c", ${JSON.stringify(hook)}]}`;
  await ok(['apply', '-f', '-'], [podWith('pre-ok', 'echo bye > /x/stopped'), podWith('pre-fail', 'exit 1'), podWith('pre-reader', 'true')].join('\n---\n'));
  for (const n of ['pre-ok', 'pre-fail', 'pre-reader']) await eventually(`${n} Running`, async () => ((await pod(n)).status.phase === 'Running' ? true : undefined));
  await ok(['delete', 'pod', 'pre-ok', 'pre-fail', '--wait=false']);
  await eventually('the preStop write', async () => {
    const r = await run(cluster, ['exec', 'pre-reader', '--', 'cat', '/x/stopped']);
    return r.code === 0 && r.stdout === 'bye\n' ? true : undefined;
  });
  const ev = await eventually('FailedPreStopHook', async () => {
    const ev = await events('pre-fail');
    return ev.includes('Warning FailedPreStopHook PreStopHook failed') ? ev : undefined;
  });
  assert.ok(ev.includes('Normal Killing Stopping container app'), ev.join('\n'));
  assert.ok(!(await events('pre-ok')).some((e) => e.includes('FailedPreStopHook')));
});

test('Docker on Windows cannot map a single file: a subPath file mount or a hostPath File fails at create with Docker\'s error; containerd runs it', async () => {
  await ok(['create', 'configmap', 'app-cfg', '--from-literal=app.conf=mode=prod']);
  const podOn = (name: string, node: string, volume: string, mount: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${node}
  volumes:
  - ${volume}
  containers:
  - name: app
    image: "${WIN_IMAGE}"
    command: ["ping", "-t", "localhost"]
    volumeMounts: [${mount}]`;
  const cm = '{name: cfg, configMap: {name: app-cfg}}';
  const cmMount = '{name: cfg, mountPath: "C:\\\\app\\\\app.conf", subPath: app.conf}';
  const hp = '{name: hp, hostPath: {path: "C:\\\\config\\\\node.conf", type: File}}';
  const hpMount = '{name: hp, mountPath: /config/node.conf}';
  const docker = await nodeOf('wdocker');
  await ok(['apply', '-f', '-'], [podOn('sf-docker', docker, cm, cmMount), podOn('sf-ctrd', await nodeOf('wctrd'), cm, cmMount),
    podOn('hpf-docker', docker, hp, hpMount)].join('\n---\n'));
  const waitingOf = async (name: string) => eventually(`${name} CreateContainerError`, async () => {
    const p = await pod(name);
    return p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError' ? p : undefined;
  });
  const sf = await waitingOf('sf-docker');
  const sfMsg = `Error response from daemon: invalid volume specification: 'c:\\var\\lib\\kubelet\\pods\\${sf.metadata.uid}\\volumes\\kubernetes.io~configmap\\cfg\\app.conf:C:\\app\\app.conf:ro': invalid mount config for type "bind": source path must be a directory`;
  assert.equal(sf.status.containerStatuses[0].state.waiting.message, sfMsg);
  await eventually('the Failed event', async () => ((await events('sf-docker')).includes(`Warning Failed Error: ${sfMsg}`) ? true : undefined));
  const hpf = await waitingOf('hpf-docker');
  assert.equal(hpf.status.containerStatuses[0].state.waiting.message,
    'Error response from daemon: invalid volume specification: \'C:\\config\\node.conf:c:/config/node.conf\': invalid mount config for type "bind": source path must be a directory');
  await eventually('sf-ctrd Running', async () => ((await pod('sf-ctrd')).status.phase === 'Running' ? true : undefined));
});

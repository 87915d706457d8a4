/**
 * `kubectl debug` with ephemeral containers against the emulated kubelets:
 * the container is pulled, created and started as upstream's kubelet does
 * (events on spec.ephemeralContainers{name}), its status appears in
 * status.ephemeralContainerStatuses, `kubectl logs -c` reads its output,
 * and `kubectl debug -i` attaches to it. Linux and Windows nodes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

type Obj = Record<string, unknown>;
interface ContainerStatus { name: string; state: Record<string, Obj>; [k: string]: unknown }
interface PodJSON { status: { phase?: string; containerStatuses?: ContainerStatus[]; ephemeralContainerStatuses?: ContainerStatus[] } }

let cluster: TestCluster;
before(async () => {
  cluster = await startCluster();
  const apply = async (manifest: Obj) => {
    const r = await kubectl(cluster, ['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    assert.equal(r.code, 0, r.stderr);
  };
  const pod = (name: string, nodeName: string, image: string, command: string[]) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'web', image, command }] },
  });
  await apply(pod('mypod', 'linux-1', 'busybox:1.36', ['sh', '-c', 'sleep 3600']));
  await apply(pod('winpod', 'win2022-1', 'mcr.microsoft.com/windows/nanoserver:ltsc2022', ['ping', '-t', 'localhost']));
  for (const name of ['mypod', 'winpod']) await eventually(`${name} running`, async () => ((await get(name)).status.containerStatuses?.[0]?.state.running ? true : undefined));
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function get(name: string): Promise<PodJSON> {
  const r = await kubectl(cluster, ['get', 'pod', name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as PodJSON;
}

const ephemeralStatus = async (pod: string, container: string) => (await get(pod)).status.ephemeralContainerStatuses?.find((s) => s.name === container);

/** Waits until the ephemeral container has exited, and answers its status. */
const terminated = (pod: string, container: string) => eventually(`${container} terminated`, async () => {
  const s = await ephemeralStatus(pod, container);
  return s?.state.terminated ? s : undefined;
});

/** `type reason message` of the events about one container of a pod, oldest first. */
async function containerEvents(pod: string, fieldPath: string): Promise<string[]> {
  const r = await kubectl(cluster, ['get', 'events', '--field-selector', `involvedObject.name=${pod},involvedObject.fieldPath=${fieldPath}`, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout) as { items: { metadata: { name: string }; type: string; reason: string; message: string }[] };
  return list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((e) => `${e.type} ${e.reason} ${e.message}`);
}

/** What kubectl itself prints for --target. */
const targeting = (container: string) =>
  `Targeting container "${container}". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\n`;

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const CONTAINER_ID = /^containerd:\/\/[0-9a-f]{64}$/;

test("kubectl debug --target on a Linux pod: the container runs once, its status, events and logs are upstream's", async () => {
  for (const version of ['1.33', '1.27']) {
    const name = `debugger-${version.replace('.', '')}`;
    const r = await kubectl(cluster, ['debug', 'mypod', '--image=busybox:1.36', '--target=web', `-c`, name, '--profile=general', '--', 'sh', '-c', 'echo hi'], { version });
    assert.deepEqual(r, { code: 0, stdout: targeting('web'), stderr: '' }, version);
    const s = await terminated('mypod', name);
    const t = s.state.terminated as { startedAt: string; finishedAt: string; containerID: string };
    assert.match(t.startedAt, TIME);
    assert.match(t.finishedAt, TIME);
    assert.match(t.containerID, CONTAINER_ID);
    assert.deepEqual(s, {
      containerID: t.containerID, image: 'docker.io/library/busybox:1.36', imageID: s.imageID, lastState: {}, name, ready: false, restartCount: 0,
      state: { terminated: { containerID: t.containerID, exitCode: 0, finishedAt: t.finishedAt, reason: 'Completed', startedAt: t.startedAt } },
    });
    assert.match(String(s.imageID), /^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/);
    assert.deepEqual(await kubectl(cluster, ['logs', 'mypod', '-c', name], { version }), { code: 0, stdout: 'hi\n', stderr: '' });
    assert.deepEqual(await containerEvents('mypod', `spec.ephemeralContainers{${name}}`), [
      'Normal Pulled Container image "busybox:1.36" already present on machine',
      `Normal Created Created container: ${name}`,
      `Normal Started Started container ${name}`,
    ]);
  }
  // Never restarted, though the pod's restartPolicy is Always; the pod itself is untouched.
  await new Promise((res) => setTimeout(res, 1500));
  const p = await get('mypod');
  assert.deepEqual(p.status.ephemeralContainerStatuses?.map((s) => `${s.name} ${Object.keys(s.state)[0]} ${String(s.restartCount)}`),
    ['debugger-127 terminated 0', 'debugger-133 terminated 0']);
  assert.deepEqual([p.status.phase, p.status.containerStatuses?.[0]?.restartCount], ['Running', 0]);
});

test('kubectl debug -i attaches to the running ephemeral container', async () => {
  for (const version of ['1.33', '1.27']) {
    const name = `attached-${version.replace('.', '')}`;
    const r = await kubectl(cluster, ['debug', 'mypod', '-i', '--image=busybox:1.36', '-c', name, '--profile=general', '--', 'sh', '-c', 'sleep 2; echo attached'], { version, input: '' });
    assert.deepEqual([r.code, r.stdout], [0, 'attached\n'], `${version}: ${r.stderr}`);
    assert.equal((await terminated('mypod', name)).restartCount, 0);
  }
});

test('kubectl debug on a Windows pod: the target is not a namespace to join, the container runs in the pod', async () => {
  const r = await kubectl(cluster, ['debug', 'winpod', '--image=mcr.microsoft.com/windows/nanoserver:ltsc2022', '--target=web', '-c', 'windbg', '--profile=general', '--', 'cmd', '/c', 'echo hi']);
  assert.deepEqual(r, { code: 0, stdout: targeting('web'), stderr: '' });
  const s = await terminated('winpod', 'windbg');
  assert.deepEqual([s.restartCount, (s.state.terminated as { exitCode: number }).exitCode], [0, 0]);
  assert.deepEqual(await kubectl(cluster, ['logs', 'winpod', '-c', 'windbg']), { code: 0, stdout: 'hi\r\n', stderr: '' });
  const ev = await containerEvents('winpod', 'spec.ephemeralContainers{windbg}');
  assert.deepEqual(ev.slice(-2), ['Normal Created Created container: windbg', 'Normal Started Started container windbg']);
});

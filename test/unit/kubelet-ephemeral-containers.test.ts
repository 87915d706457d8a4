import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeletOnFakeClock, pod, type Obj } from '../helpers/kubelet-on-fake-clock.js';

/**
 * Ephemeral containers (kubectl debug) in the kubelet on the fake clock:
 * started once when they appear in a running pod's spec, with a regular
 * container's events and status, never restarted; the target container's
 * rules of the kubelet and containerd; nothing in a terminating or finished pod.
 */

type Status = { ephemeralContainerStatuses?: Obj[]; containerStatuses?: Obj[]; conditions?: Obj[]; phase?: string };
type Kubelet = Awaited<ReturnType<typeof kubeletOnFakeClock>>;

const debuggerContainer = (extra: Obj = {}): Obj => ({
  name: 'debugger', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'echo hi'],
  terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ...extra,
});

/** A status with its instants and runtime IDs replaced by their shapes, to compare it whole. */
function shape(s: Obj | undefined): unknown {
  return JSON.parse(JSON.stringify(s ?? null)
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/g, '"<time>"')
    .replace(/containerd:\/\/[0-9a-f]{64}/g, 'containerd://<id>')
    .replace(/sha256:[0-9a-f]{64}/g, 'sha256:<digest>'));
}

const statusOf = async (k: Kubelet, name: string) => (await k.status(name)) as unknown as Status;
const ephemeralStatuses = async (k: Kubelet, name: string) => (await statusOf(k, name)).ephemeralContainerStatuses;

test('an ephemeral container added to a running pod runs once, with the events and status upstream writes, and is never restarted', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('web', {}, {}));
    await k.settle();
    await k.addEphemeral('web', debuggerContainer({ targetContainerName: 'app' }));
    await k.settle();
    assert.deepEqual(shape((await ephemeralStatuses(k, 'web'))?.[0]), {
      containerID: 'containerd://<id>', image: 'docker.io/library/busybox:latest', imageID: 'docker.io/library/busybox@sha256:<digest>',
      lastState: {}, name: 'debugger', ready: false, restartCount: 0,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '<time>', finishedAt: '<time>', containerID: 'containerd://<id>' } },
    });
    assert.deepEqual(await k.logLines('web', 'debugger'), ['hi']);
    const path = 'spec.ephemeralContainers{debugger}';
    const debugEvents = [
      `Normal Pulled ${path}: Container image "busybox" already present on machine`,
      `Normal Created ${path}: Created container: debugger`,
      `Normal Started ${path}: Started container debugger`,
    ];
    assert.deepEqual((await k.events('web')).filter((e) => e.includes(path)), debugEvents);
    // restartPolicy Always restarts the pod's containers, never an ephemeral one.
    for (let i = 0; i < 6; i++) { k.clock.step(60_000); await k.settle(); }
    const s = (await ephemeralStatuses(k, 'web'))?.[0];
    assert.deepEqual([s?.restartCount, Object.keys(s?.state as Obj)], [0, ['terminated']]);
    assert.deepEqual((await k.events('web')).filter((e) => e.includes(path)), debugEvents);
  } finally {
    await k.stop();
  }
});

test('a running ephemeral container: running, not ready, no started field; the statuses sorted by name', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('web', {}, {}));
    await k.settle();
    await k.addEphemeral('web', debuggerContainer({ name: 'zz', command: ['sh', '-c', 'sleep 3600'] }));
    await k.addEphemeral('web', debuggerContainer({ name: 'aa' }));
    await k.settle();
    const statuses = (await ephemeralStatuses(k, 'web')) ?? [];
    assert.deepEqual(statuses.map((s) => `${String(s.name)} ${Object.keys(s.state as Obj)[0]} ready=${String(s.ready)} started=${String(s.started)}`),
      ['aa terminated ready=false started=undefined', 'zz running ready=false started=undefined']);
    // The pod's own readiness does not count it.
    assert.equal(((await statusOf(k, 'web')).conditions ?? []).find((c) => c.type === 'Ready')?.status, 'True');
  } finally {
    await k.stop();
  }
});

test('ephemeral containers start while an init container runs; a target that never ran is a CreateContainerConfigError', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('init', {}, {}, { initContainers: [{ name: 'wait', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }] }));
    await k.settle();
    await k.addEphemeral('init', debuggerContainer({ name: 'free' }));
    await k.addEphemeral('init', debuggerContainer({ name: 'aimed', targetContainerName: 'app' }));
    await k.settle();
    const byName = Object.fromEntries(((await ephemeralStatuses(k, 'init')) ?? []).map((s) => [s.name, s.state]));
    assert.deepEqual(Object.keys(byName.free as Obj), ['terminated']);
    assert.deepEqual(byName.aimed, { waiting: { reason: 'CreateContainerConfigError', message: 'unable to find target container app' } });
    assert.ok((await k.events('init')).includes('Warning Failed spec.ephemeralContainers{aimed}: Error: unable to find target container app'));
    assert.equal((await statusOf(k, 'init')).phase, 'Pending');
  } finally {
    await k.stop();
  }
});

test('a target that exited: containerd on Linux refuses to join its PID namespace; Windows ignores the target', async () => {
  const k = await kubeletOnFakeClock();
  try {
    const twoContainers = (name: string, node: string, image: string, sleep: string[], done: string[]) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
      spec: { nodeName: node, restartPolicy: 'Never', automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }],
        containers: [{ name: 'app', image, command: sleep }, { name: 'done', image, command: done }] },
    });
    await k.create(twoContainers('lin', 'linux-1', 'busybox', ['sh', '-c', 'sleep 3600'], ['sh', '-c', 'true']));
    const win = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';
    await k.create(twoContainers('win', 'win2022-1', win, ['ping', '-t', 'localhost'], ['cmd', '/c', 'exit 0']));
    await k.settle();
    await k.addEphemeral('lin', debuggerContainer({ targetContainerName: 'done' }));
    await k.addEphemeral('win', debuggerContainer({ image: win, command: ['cmd', '/c', 'echo hi'], targetContainerName: 'done' }));
    await k.settle();
    const doneID = String((await statusOf(k, 'lin')).containerStatuses?.find((s) => s.name === 'done')?.containerID).replace('containerd://', '');
    const lin = (await ephemeralStatuses(k, 'lin'))?.[0]?.state as { waiting: { reason: string; message: string } };
    assert.equal(lin.waiting.reason, 'CreateContainerError');
    assert.match(lin.waiting.message, new RegExp(`^failed to generate container "[0-9a-f]{64}" spec: invalid target container: container "${doneID}" is not running - in state CONTAINER_EXITED$`));
    assert.ok((await k.events('lin')).includes(`Warning Failed spec.ephemeralContainers{debugger}: Error: ${lin.waiting.message}`));
    const winState = (await ephemeralStatuses(k, 'win'))?.[0]?.state as { terminated?: { exitCode: number } };
    assert.equal(winState.terminated?.exitCode, 0);
    assert.deepEqual(await k.logLines('win', 'debugger'), ['hi\r']);
  } finally {
    await k.stop();
  }
});

test('a pod whose containers finish stops its running ephemeral container; a finished or terminating pod starts none', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('job', { command: ['sh', '-c', 'sleep 10'] }, {}, { restartPolicy: 'Never' }));
    await k.settle();
    await k.addEphemeral('job', debuggerContainer({ command: ['sh', '-c', 'sleep 3600'] }));
    await k.settle();
    k.clock.step(10_000);
    await k.settle();
    assert.ok((await k.events('job')).includes('Normal Killing spec.ephemeralContainers{debugger}: Stopping container debugger'));
    // sh ignores SIGTERM: killed when the grace period ends.
    k.clock.step(30_000);
    await k.settle();
    const done = await statusOf(k, 'job');
    assert.equal(done.phase, 'Succeeded');
    assert.deepEqual((done.ephemeralContainerStatuses?.[0]?.state as { terminated: Obj }).terminated.exitCode, 137);

    // Finished: the pod takes no more updates.
    await k.addEphemeral('job', debuggerContainer({ name: 'late' }));
    await k.settle();
    assert.deepEqual(((await ephemeralStatuses(k, 'job')) ?? []).map((s) => s.name), ['debugger']);

    // Terminating: the new container is not started.
    await k.create(pod('leaving', {}, {}));
    await k.settle();
    await k.remove('leaving');
    await k.settle();
    await k.addEphemeral('leaving', debuggerContainer());
    await k.settle();
    assert.deepEqual((await k.events('leaving')).filter((e) => e.includes('ephemeralContainers')), []);
  } finally {
    await k.stop();
  }
});

test('a node that stops and starts again: the ephemeral container it was running has exited (255, Unknown) and is not started again', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create(pod('web', {}, {}));
    await k.settle();
    await k.addEphemeral('web', debuggerContainer({ command: ['sh', '-c', 'sleep 3600'] }));
    await k.settle();
    const before = (await ephemeralStatuses(k, 'web'))?.[0];
    assert.deepEqual(Object.keys(before?.state as Obj), ['running']);
    k.kubelet.setNodeRunning('linux-1', false);
    k.clock.step(5_000);
    k.kubelet.setNodeRunning('linux-1', true);
    await k.settle();
    const after = (await ephemeralStatuses(k, 'web'))?.[0];
    const t = (after?.state as { terminated: Obj }).terminated;
    assert.deepEqual([t.exitCode, t.reason, t.containerID, after?.restartCount], [255, 'Unknown', before?.containerID, 0]);
    assert.equal((await k.events('web')).filter((e) => e.startsWith('Normal Started spec.ephemeralContainers{debugger}')).length, 1);
    // The pod's own container runs again.
    assert.deepEqual(Object.keys((await statusOf(k, 'web')).containerStatuses?.[0]?.state as Obj), ['running']);
  } finally {
    await k.stop();
  }
});

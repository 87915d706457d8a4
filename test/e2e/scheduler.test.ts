import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kubectl, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

function winkube(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '' } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ok(cluster: TestCluster, args: string[], input?: string): Promise<string> {
  const r = await kubectl(cluster, args, { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

async function getPod(cluster: TestCluster, name: string): Promise<any> {
  return JSON.parse(await ok(cluster, ['get', 'pod', name, '-o', 'json']));
}

/** Polls until the check returns a value (short interval; the scheduler binds within milliseconds). */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const nodeOf = (cluster: TestCluster, name: string) =>
  until(`${name} to be bound`, async () => (await getPod(cluster, name)).spec.nodeName as string | undefined);

async function failedScheduling(cluster: TestCluster, name: string): Promise<string> {
  return until(`FailedScheduling for ${name}`, async () => {
    const out = await ok(cluster, ['get', 'events', '--field-selector', `involvedObject.name=${name},reason=FailedScheduling`, '-o', 'json']);
    const items = JSON.parse(out).items;
    return items.length ? items[items.length - 1].message as string : undefined;
  });
}

function pod(name: string, extra: string, image = 'mcr.microsoft.com/windows/nanoserver:ltsc2022'): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
${extra}
  containers:
  - name: c
    image: ${image}
`;
}

describe('scheduler on the default cluster', () => {
  let cluster: TestCluster;
  before(async () => { cluster = await startCluster(); });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

  test('nodeSelector kubernetes.io/os: windows lands on Windows nodes only, with the Scheduled event', async () => {
    for (let i = 0; i < 4; i++) await ok(cluster, ['apply', '-f', '-'], pod(`win-${i}`, '  nodeSelector: {kubernetes.io/os: windows}'));
    for (let i = 0; i < 4; i++) {
      const node = await nodeOf(cluster, `win-${i}`);
      assert.match(node, /^win20(19|22)-\d$/);
    }
    // The Scheduled event is written behind the binding: wait for it.
    const events = await until('the Scheduled event', async () => {
      const items = JSON.parse(await ok(cluster, ['get', 'events', '--field-selector', 'involvedObject.name=win-0,reason=Scheduled', '-o', 'json'])).items;
      return items.length ? items : undefined;
    });
    assert.equal(events.length, 1);
    assert.equal(events[0].message, `Successfully assigned default/win-0 to ${await nodeOf(cluster, 'win-0')}`);
    assert.equal(events[0].reportingComponent, 'default-scheduler');
    assert.equal(events[0].action, 'Binding');
    const cond = (await getPod(cluster, 'win-0')).status.conditions.find((c: any) => c.type === 'PodScheduled');
    assert.equal(cond.status, 'True');
  });

  test('node.kubernetes.io/windows-build: 10.0.20348 selects the Windows Server 2022 node', async () => {
    await ok(cluster, ['apply', '-f', '-'], pod('build-2022', "  nodeSelector: {node.kubernetes.io/windows-build: '10.0.20348'}"));
    assert.equal(await nodeOf(cluster, 'build-2022'), 'win2022-1');
  });

  test('a RuntimeClass carrying a node selector and a toleration places its pods', async () => {
    await ok(cluster, ['taint', 'nodes', 'win2019-2', 'pool=ltsc2019:NoSchedule']);
    await ok(cluster, ['apply', '-f', '-'], `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-2019}
handler: runhcs-wcow-process
scheduling:
  nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: '10.0.17763', kubernetes.io/hostname: win2019-2}
  tolerations: [{key: pool, operator: Equal, value: ltsc2019, effect: NoSchedule}]
`);
    await ok(cluster, ['apply', '-f', '-'], pod('rc-pod', '  runtimeClassName: windows-2019', 'mcr.microsoft.com/windows/nanoserver:ltsc2019'));
    assert.equal(await nodeOf(cluster, 'rc-pod'), 'win2019-2');
    // Without the class the same selector meets the taint.
    await ok(cluster, ['apply', '-f', '-'], pod('no-rc-pod', '  nodeSelector: {kubernetes.io/hostname: win2019-2}', 'mcr.microsoft.com/windows/nanoserver:ltsc2019'));
    assert.equal(await failedScheduling(cluster, 'no-rc-pod'),
      "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) had untolerated taint {pool: ltsc2019}, 4 node(s) didn't match Pod's node affinity/selector. " +
      'preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.');
    await ok(cluster, ['taint', 'nodes', 'win2019-2', 'pool=ltsc2019:NoSchedule-']);
    assert.equal(await nodeOf(cluster, 'no-rc-pod'), 'win2019-2');
  });

  test('insufficient cpu: the exact FailedScheduling event and PodScheduled condition', async () => {
    const spec = `  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - name: c
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    resources: {requests: {cpu: '5'}}`;
    await ok(cluster, ['apply', '-f', '-'], `apiVersion: v1\nkind: Pod\nmetadata: {name: too-big}\nspec:\n${spec}\n`);
    const expected = "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, " +
      "2 node(s) didn't match Pod's node affinity/selector, 3 Insufficient cpu. " +
      // 5 CPUs exceed every node's allocatable (4), yet v1.32's NodeResourcesFit says Unschedulable:
      // preemption is tried on the three Windows nodes and finds no victims.
      'preemption: 0/6 nodes are available: 3 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.';
    assert.equal(await failedScheduling(cluster, 'too-big'), expected);
    // The scheduler writes the condition beside the event: wait for it too.
    const cond = await until('the PodScheduled condition', async () =>
      (await getPod(cluster, 'too-big')).status.conditions?.find((c: any) => c.type === 'PodScheduled' && c.status === 'False'));
    assert.deepEqual({ status: cond.status, reason: cond.reason, message: cond.message }, { status: 'False', reason: 'Unschedulable', message: expected });
    const described = await ok(cluster, ['describe', 'pod', 'too-big']);
    // The age column reads "0s (x2 over 1s)" once the scheduler has retried the pod.
    assert.match(described, /Warning\s+FailedScheduling\s+\d+s(?: \(x\d+ over \d+s\))?\s+default-scheduler\s+0\/6 nodes are available: 1 node\(s\) had untolerated taint/);
  });

  test('winkube explain-scheduling: each node\'s Filter verdict, the message, and scores of feasible nodes', async () => {
    const r = await winkube(['explain-scheduling', 'too-big', '-n', 'default', '--kubeconfig', cluster.kubeconfig]);
    assert.equal(r.code, 0, r.stderr);
    const row = (n: string) => r.stdout.split('\n').find((l) => l.startsWith(n + ' '))?.replace(/\s{3,}/g, ' | ');
    assert.equal(row('linux-1'), "linux-1 | NodeAffinity: node(s) didn't match Pod's node affinity/selector | NodeResourcesFit: Insufficient cpu");
    assert.equal(row('win2022-1'), 'win2022-1 | NodeResourcesFit: Insufficient cpu');
    assert.equal(row('winkube-control-plane'),
      "winkube-control-plane | TaintToleration: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: } | NodeAffinity: node(s) didn't match Pod's node affinity/selector; NodeResourcesFit: Insufficient cpu");
    assert.ok(r.stdout.includes("kube-scheduler would report (before preemption): 0/6 nodes are available: 1 node(s) had untolerated taint " +
      "{node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector, 3 Insufficient cpu."), r.stdout);
    const ok2 = await winkube(['explain-scheduling', 'build-2022', '--kubeconfig', cluster.kubeconfig]);
    assert.equal(ok2.code, 0, ok2.stderr);
    assert.match(ok2.stdout, /^win2022-1\s+feasible$/m);
    assert.match(ok2.stdout, /^NODE\s+TaintToleration\s+NodeResourcesFit\s+NodeResourcesBalancedAllocation\s+ImageLocality\s+TOTAL$/m);
    assert.match(ok2.stdout, /^Selected: win2022-1$/m);
    const missing = await winkube(['explain-scheduling', 'nope', '--kubeconfig', cluster.kubeconfig]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'error: pods "nope" not found');
  });

  test('a Windows pod without an OS selector can land on a Linux node, where the kubelet rejects it', async () => {
    // The scheduler does not read spec.os (as upstream): with the Windows nodes cordoned, a Linux node is chosen.
    await ok(cluster, ['cordon', 'win2019-1', 'win2019-2', 'win2022-1']);
    try {
      await ok(cluster, ['apply', '-f', '-'], pod('win-no-selector', '  os: {name: windows}'));
      assert.match(await nodeOf(cluster, 'win-no-selector'), /^linux-\d$/);
      const p = await until('the kubelet\'s rejection', async () => {
        const p = await getPod(cluster, 'win-no-selector');
        return p.status.phase === 'Failed' ? p : undefined;
      });
      assert.deepEqual({ reason: p.status.reason, message: p.status.message },
        { reason: 'PodOSNotSupported', message: "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS" });
    } finally {
      await ok(cluster, ['uncordon', 'win2019-1', 'win2019-2', 'win2022-1']);
    }
  });

  test('a pod for another scheduler is left alone', async () => {
    await ok(cluster, ['apply', '-f', '-'], pod('other', '  schedulerName: my-scheduler'));
    await sleep(500);
    const p = await getPod(cluster, 'other');
    assert.equal(p.spec.nodeName, undefined);
    assert.equal(p.status.conditions, undefined);
  });

  test('preemption: a high-priority pod evicts a low-priority one and is nominated', async () => {
    await ok(cluster, ['apply', '-f', '-'], `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 10
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
`);
    // A shell as PID 1 ignores SIGTERM: the victim stays Terminating for its grace period on the emulated kubelet.
    const big = (name: string, cls: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  priorityClassName: ${cls}
  nodeSelector: {kubernetes.io/hostname: linux-1}
  terminationGracePeriodSeconds: 120
  containers:
  - name: c
    image: busybox:1.36
    command: [sh, -c, 'sleep 3600']
    resources: {requests: {cpu: '3'}}
`;
    await ok(cluster, ['apply', '-f', '-'], big('victim', 'low'));
    assert.equal(await nodeOf(cluster, 'victim'), 'linux-1');
    // Only a running shell ignores SIGTERM: a victim preempted while its image is still pulling has no
    // container to stop, so the kubelet would delete it at once, before this test could look at it.
    await ok(cluster, ['wait', '--for=condition=Ready', 'pod/victim', '--timeout=30s']);
    const victim = await getPod(cluster, 'victim');
    await ok(cluster, ['apply', '-f', '-'], big('preemptor', 'high'));
    const preemptor = await until('nomination', async () => {
      const p = await getPod(cluster, 'preemptor');
      return p.status.nominatedNodeName ? p : undefined;
    });
    assert.equal(preemptor.status.nominatedNodeName, 'linux-1');
    // The Preempted event is written behind the victim's deletion: wait for it.
    const ev = await until('the Preempted event', async () => {
      const items = JSON.parse(await ok(cluster, ['get', 'events', '--field-selector', 'involvedObject.name=victim,reason=Preempted', '-o', 'json'])).items;
      return items.length ? items : undefined;
    });
    assert.equal(ev.length, 1);
    assert.equal(ev[0].message, `Preempted by pod ${preemptor.metadata.uid} on node linux-1`);
    const gone = await getPod(cluster, 'victim');
    assert.ok(gone.metadata.deletionTimestamp, 'the victim is being deleted');
    const dt = gone.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
    assert.deepEqual([dt.reason, dt.message], ['PreemptionByScheduler', 'default-scheduler: preempting to accommodate a higher priority pod']);
    assert.equal(victim.metadata.uid, gone.metadata.uid);
    // Once the victim is gone (its kubelet would wait out the 120 s grace period: force it), the preemptor binds to its nominated node.
    await ok(cluster, ['delete', 'pod', 'victim', '--force', '--grace-period=0']);
    assert.equal(await nodeOf(cluster, 'preemptor'), 'linux-1');
  });
});

describe('scheduler with a tainted Windows pool and a scheduler configuration', () => {
  let cluster: TestCluster;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'winkube-sched-'));
    writeFileSync(join(dir, 'cluster.yaml'), `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- {name: linux, count: 2, os: linux}
- name: win
  count: 2
  os: windows
  windowsVersion: ltsc2022
  taints: [{key: os, value: windows, effect: NoSchedule}]
`);
    writeFileSync(join(dir, 'scheduler.yaml'), `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: no-preemption
  plugins:
    postFilter: {disabled: [{name: DefaultPreemption}]}
`);
    cluster = await startCluster(undefined, ['--config', join(dir, 'cluster.yaml'), '--scheduler-config', join(dir, 'scheduler.yaml')]);
  });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); removeDir(dir); });

  test('Linux pods stay off the tainted Windows pool', async () => {
    for (let i = 0; i < 6; i++) await ok(cluster, ['apply', '-f', '-'], pod(`lin-${i}`, '  nodeSelector: {}', 'nginx'));
    for (let i = 0; i < 6; i++) assert.match(await nodeOf(cluster, `lin-${i}`), /^linux-\d$/);
  });

  test('a Windows pod needs the toleration', async () => {
    await ok(cluster, ['apply', '-f', '-'], pod('win-untolerated', '  nodeSelector: {kubernetes.io/os: windows}'));
    assert.equal(await failedScheduling(cluster, 'win-untolerated'),
      "0/4 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint {os: windows}. " +
      'preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.');
    await ok(cluster, ['apply', '-f', '-'], pod('win-tolerated', `  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]`));
    assert.match(await nodeOf(cluster, 'win-tolerated'), /^win-\d$/);
  });

  test('a second profile from --scheduler-config schedules its pods, without preemption', async () => {
    await ok(cluster, ['apply', '-f', '-'], pod('second-profile', '  schedulerName: no-preemption', 'nginx'));
    assert.match(await nodeOf(cluster, 'second-profile'), /^linux-\d$/);
    await ok(cluster, ['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: second-too-big}
spec:
  schedulerName: no-preemption
  containers: [{name: c, image: nginx, resources: {requests: {memory: 1Ti}}}]
`);
    assert.equal(await failedScheduling(cluster, 'second-too-big'),
      '0/4 nodes are available: 2 Insufficient memory, 2 node(s) had untolerated taint {os: windows}.');
  });
});

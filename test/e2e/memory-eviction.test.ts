import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlOk, removeDir, type TestCluster } from '../helpers/cluster.js';
import { startClusterFromFile } from '../helpers/cluster-file.js';

/**
 * The kubelet's memory-pressure eviction, driven with real kubectl: Linux
 * pods scripted to fill a 2Gi node get the biggest consumer above its
 * requests evicted; Windows pods scripted past their limits on a 4Gi node
 * are paged at their limits, and the node keeps enough commit memory.
 */
let cluster: TestCluster;
const Mi = 1024 * 1024;

before(async () => {
  // The eviction manager's 10 s and the node lifecycle controller's 5 s, shortened; the 5m transition period is kept.
  process.env.WINKUBE_EVICTION_MONITORING_PERIOD = '1s';
  process.env.WINKUBE_NODE_MONITOR_PERIOD = '500ms';
  cluster = await startClusterFromFile(['apiVersion: winkube.io/v1alpha1', 'kind: Cluster', 'nodePools:',
    '  - { name: winkube-control-plane, os: linux, role: control-plane, exactName: true }',
    '  - { name: small-linux, os: linux, count: 1, cpu: "2", memory: 2Gi }',
    '  - { name: small-windows, os: windows, windowsVersion: ltsc2022, count: 1, cpu: "2", memory: 4Gi }']);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);

const podYAML = (name: string, node: string, image: string, script: object, resources: string, command = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  annotations: {winkube.io/script: '${JSON.stringify(script)}'}
spec:
  nodeName: ${node}
  restartPolicy: Always
  containers:
  - name: app
    image: ${image}${command}
    resources: ${resources}
`;

const jsonpath = (pod: string, path: string) => ok(['get', 'pod', pod, '-o', `jsonpath=${path}`]);

test('memory pressure: a Linux node evicts the pod most over its requests; a Windows node pages and evicts nothing', async () => {
  // Windows first: two containers scripted to twice their 1Gi limits; their working sets stay at the limits.
  await ok(['apply', '-f', '-'], ['win-a', 'win-b'].map((n) => podYAML(n, 'small-windows-1', 'mcr.microsoft.com/windows/nanoserver:ltsc2022',
    { app: { memory: '2Gi' } }, '{limits: {memory: 1Gi}}')).join('---\n'));
  await eventually('Windows pods Running', async () => ((await jsonpath('win-a', '{.status.phase}')) === 'Running' &&
    (await jsonpath('win-b', '{.status.phase}')) === 'Running' ? true : undefined));

  // Linux: the node's own 420Mi and its system pods (kube-proxy, flannel, CoreDNS when it lands there), as the kubelet measures them,
  // then 500Mi within a 1Gi request and 1050Mi against a 64Mi request three seconds in: less than 100Mi left.
  await eventually('system pods Running', async () => {
    const phases = await ok(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=small-linux-1', '-o', 'jsonpath={.items[*].status.phase}']);
    return phases.trim() && phases.trim().split(' ').every((p) => p === 'Running') ? true : undefined;
  });
  const before = JSON.parse(await ok(['get', '--raw', '/api/v1/nodes/small-linux-1/proxy/stats/summary'])).node.memory.workingSetBytes as number;
  const available = 2048 * Mi - before - 1550 * Mi;
  assert.ok(available > 0 && available < 100 * Mi && available % Mi === 0, `available ${available}`);
  await ok(['apply', '-f', '-'], [
    podYAML('steady', 'small-linux-1', 'busybox:1.36', { app: { memory: '500Mi' } }, '{requests: {memory: 1Gi}}', '\n    command: ["sleep", "3600"]'),
    podYAML('hog', 'small-linux-1', 'busybox:1.36', { app: { memory: '1050Mi', memoryAfterSeconds: 3 } }, '{requests: {memory: 64Mi}}', '\n    command: ["sleep", "3600"]'),
  ].join('---\n'));
  const evicted = await eventually('hog evicted', async () => ((await jsonpath('hog', '{.status.reason}')) === 'Evicted' ? true : undefined), 60_000);
  assert.ok(evicted);
  assert.equal(await jsonpath('hog', '{.status.phase}|{.status.reason}|{.status.message}|'),
    `Failed|Evicted|The node was low on resource: memory. Threshold quantity: 100Mi, available: ${available / Mi}Mi. ` +
    'Container app was using 1050Mi, request is 64Mi, has larger consumption of memory. |');
  assert.equal(await jsonpath('hog', '{.status.conditions[?(@.type=="DisruptionTarget")].reason}'), 'TerminationByKubelet');
  // Killed with the one-second grace of a hard eviction: `sleep` as PID 1 ignores SIGTERM, so SIGKILL.
  const terminated = await eventually('hog container terminated', async () => {
    const t = await jsonpath('hog', '{.status.containerStatuses[0].state.terminated.reason} {.status.containerStatuses[0].state.terminated.exitCode}');
    return t.trim() ? t : undefined;
  });
  assert.equal(terminated, 'Error 137');
  assert.equal(await jsonpath('steady', '{.status.phase}'), 'Running');
  // printPod: a terminated container's reason replaces the pod's, so an evicted pod whose container was killed shows Error.
  assert.match(await ok(['get', 'pod', 'hog', '--no-headers']), /^hog +0\/1 +Error +0 +\S+\n$/);

  // The kubelet records the eviction beside the pod's status: wait for its events.
  const podEvents = await eventually('the Evicted and Killing events', async () => {
    const out = await ok(['get', 'events', '--field-selector', 'involvedObject.name=hog', '-o', 'jsonpath={range .items[*]}{.type} {.reason} {.source.component}: {.message}{"\\n"}{end}']);
    return out.includes(' Evicted ') && out.includes(' Killing ') ? out : undefined;
  });
  assert.ok(podEvents.includes(`Warning Evicted kubelet: The node was low on resource: memory. Threshold quantity: 100Mi, available: ${available / Mi}Mi. ` +
    'Container app was using 1050Mi, request is 64Mi, has larger consumption of memory. \n'), podEvents);
  assert.ok(podEvents.includes('Normal Killing kubelet: Stopping container app\n'), podEvents);

  // The node: MemoryPressure (posted at the next status update), the lifecycle controller's taint, the kubelet's events.
  const described = await eventually('MemoryPressure True and tainted', async () => {
    const d = await ok(['describe', 'node', 'small-linux-1']);
    // The kubelet's events are written beside the condition: wait for them too.
    return /^Taints:\s+node\.kubernetes\.io\/memory-pressure:NoSchedule$/m.test(d) && /^\s+MemoryPressure\s+True\s/m.test(d) &&
      / EvictionThresholdMet /.test(d) && / NodeHasInsufficientMemory /.test(d) ? d : undefined;
  }, 30_000);
  assert.match(described, /^ {2}MemoryPressure {3}True {4}.+ {2}KubeletHasInsufficientMemory {3}kubelet has insufficient memory available$/m);
  assert.match(described, /^ {2}Warning {2}EvictionThresholdMet +\S+ +kubelet +Attempting to reclaim memory$/m);
  assert.match(described, /^ {2}Normal {3}NodeHasInsufficientMemory +\S+ +kubelet +Node small-linux-1 status is now: NodeHasInsufficientMemory$/m);
  // Under memory pressure the kubelet admits no BestEffort pod (one with a memory request still runs).
  await ok(['apply', '-f', '-'], [
    podYAML('late-besteffort', 'small-linux-1', 'busybox:1.36', {}, '{}', '\n    command: ["sleep", "3600"]'),
    podYAML('late-burstable', 'small-linux-1', 'busybox:1.36', {}, '{requests: {memory: 16Mi}}', '\n    command: ["sleep", "3600"]'),
  ].join('---\n'));
  const rejected = await eventually('BestEffort rejected', async () => {
    const r = await jsonpath('late-besteffort', '{.status.phase}|{.status.reason}|{.status.message}|');
    return r.startsWith('Failed') ? r : undefined;
  });
  assert.equal(rejected, 'Failed|Evicted|Pod was rejected: The node had condition: [MemoryPressure]. |');
  await eventually('Burstable Running', async () => ((await jsonpath('late-burstable', '{.status.phase}')) === 'Running' ? true : undefined));
  // One pod per interval, and the pressure relieved after it: nothing more is evicted.
  // The rejection's event is written beside the pod's status: wait for it.
  const evictedEvents = await eventually('the rejection\'s Evicted event', async () => {
    const out = await ok(['get', 'events', '--field-selector', 'reason=Evicted', '-o', 'jsonpath={range .items[*]}{.involvedObject.name}: {.message}{"\\n"}{end}']);
    return out.includes('late-besteffort: ') ? out : undefined;
  });
  assert.deepEqual(evictedEvents.split('\n').filter(Boolean).map((l) => l.slice(0, l.indexOf(':'))).sort(), ['hog', 'late-besteffort']);
  assert.ok(evictedEvents.includes('late-besteffort: The node had condition: [MemoryPressure]. \n'), evictedEvents);

  // Windows: the working sets at the 1Gi limits (the rest paged), so the commit memory left stays above the 500Mi threshold.
  const summary = JSON.parse(await ok(['get', '--raw', '/api/v1/nodes/small-windows-1/proxy/stats/summary']));
  const workingSets = (summary.pods as Array<{ podRef: { name: string }; memory: { workingSetBytes: number } }>)
    .filter((p) => p.podRef.name.startsWith('win-')).map((p) => `${p.podRef.name} ${p.memory.workingSetBytes}`).sort();
  assert.deepEqual(workingSets, [`win-a ${1024 * Mi}`, `win-b ${1024 * Mi}`]);
  const commit = summary.node.systemContainers.find((c: { name: string }) => c.name === 'windows-global-commit-memory');
  assert.ok(commit.memory.availableBytes > 500 * Mi, `commit available ${commit.memory.availableBytes}`);
  const win = await ok(['describe', 'node', 'small-windows-1']);
  assert.match(win, /^ {2}MemoryPressure {3}False {3}.+ {3}KubeletHasSufficientMemory {3}kubelet has sufficient memory available$/m);
  assert.doesNotMatch(win, /EvictionThresholdMet/);
  assert.match(win, /^Taints:\s+<none>$/m);
  for (const p of ['win-a', 'win-b']) assert.equal(await jsonpath(p, '{.status.phase} {.status.containerStatuses[0].restartCount}'), 'Running 0');
});

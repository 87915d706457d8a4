import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => {
  // Upstream's periods, shortened for a node that never reports (the emulated kubelets renew every 10 s).
  process.env.WINKUBE_NODE_MONITOR_PERIOD = '200ms';
  process.env.WINKUBE_NODE_STARTUP_GRACE_PERIOD = '2s';
  process.env.WINKUBE_NODE_MONITOR_GRACE_PERIOD = '30s';
  cluster = await startCluster();
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = async (args: string[], version?: string, input?: string) => {
  const r = await run(cluster, args, { version, input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

async function poll<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const node = async (name: string) => JSON.parse(await ok(['get', 'node', name, '-o', 'json']));

describe('node lifecycle', () => {
  for (const version of ['1.27', '1.33']) {
    test(`kubectl ${version} cordon and uncordon: SchedulingDisabled and the unschedulable taint`, async () => {
      assert.equal((await ok(['cordon', 'win2019-1'], version)).trim(), 'node/win2019-1 cordoned');
      const taint = await poll(async () => (await node('win2019-1')).spec.taints?.find((t: any) => t.key === 'node.kubernetes.io/unschedulable'), 'taint');
      assert.equal(taint.effect, 'NoSchedule');
      assert.match((await ok(['get', 'node', 'win2019-1'], version)).split('\n')[1] ?? '', /^win2019-1\s+Ready,SchedulingDisabled\s/);
      assert.equal((await ok(['uncordon', 'win2019-1'], version)).trim(), 'node/win2019-1 uncordoned');
      await poll(async () => ((await node('win2019-1')).spec.taints === undefined ? true : undefined), 'taint removed');
    });
  }

  test('a node that never posts status goes Unknown, is tainted unreachable, and its intolerant pods are evicted', async () => {
    await ok(['apply', '-f', '-'], undefined, `apiVersion: v1
kind: Node
metadata:
  name: lost-1
  labels: {kubernetes.io/os: windows, kubernetes.io/hostname: lost-1}
---
apiVersion: v1
kind: Pod
metadata: {name: stranded}
spec:
  nodeName: lost-1
  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1}]
  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`);
    const n = await poll(async () => {
      const x = await node('lost-1');
      return (x.spec.taints ?? []).length === 2 ? x : undefined;
    }, 'unreachable taints');
    assert.deepEqual(n.spec.taints.map((t: any) => [t.key, t.effect]).sort(), [
      ['node.kubernetes.io/unreachable', 'NoExecute'], ['node.kubernetes.io/unreachable', 'NoSchedule'],
    ]);
    assert.deepEqual(n.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
      ['Ready', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ['MemoryPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
    ]);
    assert.match((await ok(['get', 'node', 'lost-1'])).split('\n')[1] ?? '', /^lost-1\s+NotReady\s/);
    const pod = await poll(async () => {
      const p = JSON.parse(await ok(['get', 'pod', 'stranded', '-o', 'json']));
      return p.metadata.deletionTimestamp ? p : undefined;
    }, 'eviction');
    assert.deepEqual(pod.status.conditions.filter((c: any) => c.type === 'DisruptionTarget').map((c: any) => [c.status, c.reason, c.message]),
      [['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint']]);
    const evs = JSON.parse(await ok(['get', 'events', '--field-selector', 'reason=TaintManagerEviction', '-o', 'json'])).items;
    assert.deepEqual(evs.map((e: any) => [e.message, e.source.component]), [['Marking for deletion Pod default/stranded', 'taint-eviction-controller']]);
    const registered = JSON.parse(await ok(['get', 'events', '--field-selector', 'involvedObject.name=lost-1,reason=RegisteredNode', '-o', 'json'])).items;
    assert.deepEqual(registered.map((e: any) => e.message), ['Registered Node lost-1 in Controller']);
  });

  test('drain evicts through the PodDisruptionBudget and stops at it', async () => {
    await ok(['apply', '-f', '-'], undefined, ['db-1', 'db-2'].map((name) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: db}
  annotations: {winkube.io/script: '{"*": {"exitCode": 0, "runSeconds": 3600}}'}
spec:
  nodeName: win2022-1
  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`).join('---\n') + `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: db}}
`);
    await ok(['wait', '--for=condition=Ready', 'pod/db-1', 'pod/db-2', '--timeout=30s']);
    await poll(async () => {
      const out = await ok(['get', 'pdb', 'db']);
      return /^db\s+1\s+N\/A\s+1\s/.test(out.split('\n')[1] ?? '') ? true : undefined;
    }, 'one disruption allowed');
    // The node runs the cluster's system DaemonSet pods (kube-proxy, flannel): kubectl refuses to drain
    // without --ignore-daemonsets, as against any real cluster.
    const r = await run(cluster, ['drain', 'win2022-1', '--ignore-daemonsets', '--force', '--grace-period=0', '--timeout=8s']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /error when evicting pods\/"db-[12]" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    const left = JSON.parse(await ok(['get', 'pods', '-l', 'app=db', '-o', 'json'])).items;
    assert.equal(left.length, 1);
    const pdb = JSON.parse(await ok(['get', 'pdb', 'db', '-o', 'json']));
    assert.deepEqual([pdb.status.currentHealthy, pdb.status.desiredHealthy, pdb.status.disruptionsAllowed], [1, 1, 0]);
    assert.equal((await node('win2022-1')).spec.unschedulable, true);
  });
});

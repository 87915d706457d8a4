/**
 * DaemonSets through kubectl 1.27 and 1.33 on the default cluster, with the
 * scheduler and emulated kubelets: a Windows-only DaemonSet (nodeSelector
 * kubernetes.io/os=windows) gets one running pod on each of the three
 * Windows nodes and rolls out; one without a selector gets a pod on every
 * schedulable node (five) and none on the tainted control plane, and its
 * Linux image fails on the Windows nodes. Pods are bound to their node by
 * required node affinity, as upstream. Then set image, history and undo.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pause:3.10 has Windows images for both Server 2019 (1809) and 2022. */
const daemonSet = (ns: string, name: string, nodeSelector?: Record<string, string>, image = 'registry.k8s.io/pause:3.10') => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name, namespace: ns },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { ...(nodeSelector ? { nodeSelector } : {}), containers: [{ name: 'agent', image, ...(image.startsWith('busybox') ? { command: ['sleep', '3600'] } : {}) }] } },
  },
});

/** The node a daemon pod is bound to through its affinity. */
const affinityNode = (p: any): string => p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];

for (const version of VERSIONS) {
  describe(`kubectl ${version} daemonsets`, () => {
    const ns = `ds-${version.replace('.', '')}`;
    const ok = async (args: string[], input?: string) => {
      const r = await run(cluster, args, { version, input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const podsOf = async (app: string, count: number): Promise<any[]> => {
      for (let i = 0; i < 100; i++) {
        const items = JSON.parse(await ok(['get', 'pods', '-n', ns, '-l', `app=${app}`, '-o', 'json'])).items;
        if (items.length >= count) return items;
        await sleep(100);
      }
      throw new Error(`${app}: fewer than ${count} pods`);
    };

    test('nodeSelector kubernetes.io/os=windows: exactly one pod on each Windows node', async () => {
      await ok(['create', 'namespace', ns]);
      assert.equal(await ok(['apply', '-f', '-'], daemonSet(ns, 'winagent', { 'kubernetes.io/os': 'windows' })), 'daemonset.apps/winagent created\n');
      const pods = await podsOf('winagent', 3);
      await sleep(300);
      const again = await podsOf('winagent', 3);
      assert.equal(again.length, 3, 'no extra pods');
      assert.deepEqual(pods.map(affinityNode).sort(), ['win2019-1', 'win2019-2', 'win2022-1']);
      for (const p of pods) {
        assert.deepEqual(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
          [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [affinityNode(p)] }] }]);
        assert.deepEqual(p.spec.nodeSelector, { 'kubernetes.io/os': 'windows' });
        assert.ok(p.spec.tolerations.some((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute' && t.operator === 'Exists'));
        assert.equal(p.metadata.ownerReferences[0].kind, 'DaemonSet');
      }
      let ds: any;
      for (let i = 0; i < 100; i++) {
        ds = JSON.parse(await ok(['get', 'ds', 'winagent', '-n', ns, '-o', 'json']));
        if (ds.status.numberAvailable === 3 && ds.status.observedGeneration === 1) break;
        await sleep(100);
      }
      assert.deepEqual(ds.status, {
        currentNumberScheduled: 3, desiredNumberScheduled: 3, numberAvailable: 3, numberMisscheduled: 0, numberReady: 3, observedGeneration: 1, updatedNumberScheduled: 3,
      });
      const lines = (await ok(['get', 'ds', 'winagent', '-n', ns])).trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
      assert.deepEqual(lines[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
      assert.deepEqual(lines[1]?.slice(0, 7), ['winagent', '3', '3', '3', '3', '3', 'kubernetes.io/os=windows']);
      assert.equal(await ok(['rollout', 'status', 'ds/winagent', '-n', ns, '--timeout=20s']), 'daemon set "winagent" successfully rolled out\n');
      const running = JSON.parse(await ok(['get', 'pods', '-n', ns, '-l', 'app=winagent', '-o', 'json'])).items;
      assert.deepEqual(running.map((p: any) => [p.spec.nodeName, p.status.phase]).sort(), [['win2019-1', 'Running'], ['win2019-2', 'Running'], ['win2022-1', 'Running']]);
    });

    test('no selector: a pod on each of the five schedulable nodes, none on the tainted control plane; the Linux image fails to pull on Windows', async () => {
      await ok(['apply', '-f', '-'], daemonSet(ns, 'everywhere', undefined, 'busybox:1.36'));
      const pods = await podsOf('everywhere', 5);
      assert.deepEqual(pods.map(affinityNode).sort(), ['linux-1', 'linux-2', 'win2019-1', 'win2019-2', 'win2022-1']);
      const settled = async () => {
        const items = JSON.parse(await ok(['get', 'pods', '-n', ns, '-l', 'app=everywhere', '-o', 'json'])).items;
        const state = Object.fromEntries(items.map((p: any) => [p.spec.nodeName, p.status.phase === 'Running' && p.status.containerStatuses?.[0]?.ready
          ? 'ready' : p.status.containerStatuses?.[0]?.state?.waiting?.reason?.replace('ImagePullBackOff', 'ErrImagePull')]));
        return Object.keys(state).length === 5 && Object.values(state).every((v) => v === 'ready' || v === 'ErrImagePull') ? { items, state } : undefined;
      };
      let got: Awaited<ReturnType<typeof settled>>;
      for (let i = 0; i < 100 && !(got = await settled()); i++) await sleep(100);
      assert.ok(got, 'pods did not settle');
      assert.deepEqual(got.state, { 'linux-1': 'ready', 'linux-2': 'ready', 'win2019-1': 'ErrImagePull', 'win2019-2': 'ErrImagePull', 'win2022-1': 'ErrImagePull' });
      const onWindows = got.items.find((p: any) => p.spec.nodeName === 'win2019-1');
      assert.match(onWindows.status.containerStatuses[0].state.waiting.message, /no match for platform in manifest: not found$/);
      let ds: any;
      for (let i = 0; i < 50; i++) {
        ds = JSON.parse(await ok(['get', 'ds', 'everywhere', '-n', ns, '-o', 'json']));
        if (ds.status.numberReady === 2) break;
        await sleep(100);
      }
      assert.deepEqual([ds.status.desiredNumberScheduled, ds.status.currentNumberScheduled, ds.status.numberReady, ds.status.numberAvailable, ds.status.numberUnavailable], [5, 5, 2, 2, 3]);
    });

    test('set image, rollout history and undo work on the ControllerRevisions', async () => {
      assert.equal(await ok(['set', 'image', 'ds/winagent', '-n', ns, 'agent=registry.k8s.io/pause:3.9']), 'daemonset.apps/winagent image updated\n');
      const revisions = async () => {
        for (let i = 0; i < 50; i++) {
          const items = JSON.parse(await ok(['get', 'controllerrevisions', '-n', ns, '-l', 'app=winagent', '-o', 'json'])).items;
          if (items.length === 2) return items;
          await sleep(100);
        }
        throw new Error('no second revision');
      };
      const revs = await revisions();
      assert.deepEqual(revs.map((r: any) => r.revision).sort(), [1, 2]);
      for (const r of revs) {
        assert.equal(r.metadata.name, `winagent-${r.metadata.labels['controller-revision-hash']}`);
        assert.equal(r.data.spec.template.$patch, 'replace');
      }
      const history = (await ok(['rollout', 'history', 'ds/winagent', '-n', ns])).trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
      assert.deepEqual(history.slice(1), [['REVISION', 'CHANGE-CAUSE'], ['1', '<none>'], ['2', '<none>']]);
      assert.equal(await ok(['rollout', 'undo', 'ds/winagent', '-n', ns]), 'daemonset.apps/winagent rolled back\n');
      const ds = JSON.parse(await ok(['get', 'ds', 'winagent', '-n', ns, '-o', 'json']));
      assert.equal(ds.spec.template.spec.containers[0].image, 'registry.k8s.io/pause:3.10');
      for (let i = 0; i < 50; i++) {
        const items = JSON.parse(await ok(['get', 'controllerrevisions', '-n', ns, '-l', 'app=winagent', '-o', 'json'])).items;
        const byRev = Object.fromEntries(items.map((r: any) => [r.revision, r.data.spec.template.spec.containers[0].image]));
        if (byRev[3]) {
          // The first revision's template is current again: it is renumbered, not copied.
          assert.deepEqual(byRev, { 2: 'registry.k8s.io/pause:3.9', 3: 'registry.k8s.io/pause:3.10' });
          // The rolling update (maxUnavailable 1) replaces the running pods one node at a time.
          const status = await ok(['rollout', 'status', 'ds/winagent', '-n', ns, '--timeout=60s']);
          assert.ok(status.endsWith('daemon set "winagent" successfully rolled out\n'), status);
          const pods = JSON.parse(await ok(['get', 'pods', '-n', ns, '-l', 'app=winagent', '-o', 'json'])).items.filter((p: any) => !p.metadata.deletionTimestamp);
          assert.deepEqual(pods.map((p: any) => p.spec.containers[0].image), ['registry.k8s.io/pause:3.10', 'registry.k8s.io/pause:3.10', 'registry.k8s.io/pause:3.10']);
          return;
        }
        await sleep(100);
      }
      assert.fail('revision 1 was not renumbered 3');
    });
  });
}

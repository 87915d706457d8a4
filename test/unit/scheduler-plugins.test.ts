import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Plugin, Snapshot } from '../../src/scheduler/framework.js';
import { PodInfo } from '../../src/scheduler/pod-info.js';
import { Code, type Status } from '../../src/scheduler/status.js';
import { nodeUnschedulable } from '../../src/scheduler/plugins/node-unschedulable.js';
import { nodeName } from '../../src/scheduler/plugins/node-name.js';
import { taintToleration } from '../../src/scheduler/plugins/taint-toleration.js';
import { nodeAffinity } from '../../src/scheduler/plugins/node-affinity.js';
import { nodePorts } from '../../src/scheduler/plugins/node-ports.js';
import { nodeResourcesFit } from '../../src/scheduler/plugins/node-resources-fit.js';
import { balancedAllocation } from '../../src/scheduler/plugins/balanced-allocation.js';
import { imageLocality } from '../../src/scheduler/plugins/image-locality.js';
import { podTopologySpread } from '../../src/scheduler/plugins/pod-topology-spread.js';
import { interPodAffinity } from '../../src/scheduler/plugins/inter-pod-affinity.js';
import { volumeBinding } from '../../src/scheduler/plugins/volume-binding.js';
import { volumeRestrictions } from '../../src/scheduler/plugins/volume-restrictions.js';
import { schedulingGates } from '../../src/scheduler/plugins/scheduling-gates.js';
import { bound, node, pod, requests, snapshot } from './scheduler-fixtures.js';
import { fromLabelSelector } from '../../src/selectors/labels.js';
import type { SchedulerCache } from '../../src/scheduler/cache.js';

/** PreFilter then Filter of one plugin on every node: node → [code, reasons] (Skip: every node passes). */
function filterAll(pl: Plugin, p: any, snap: Snapshot): Record<string, [Code, string[]]> {
  const info = new PodInfo(p);
  const state = new Map<string, unknown>();
  const pre: Status | undefined = pl.preFilter?.(state, info, snap);
  const out: Record<string, [Code, string[]]> = {};
  for (const n of snap.nodes) {
    const s = pre?.code === Code.Skip ? { code: Code.Success, reasons: [] } : pre && pre.code !== Code.Success ? pre : pl.filter!(state, info, n, snap);
    out[n.name] = [s.code, s.reasons];
  }
  return out;
}

function scoreAll(pl: Plugin, p: any, snap: Snapshot): Record<string, number> {
  const info = new PodInfo(p);
  const state = new Map<string, unknown>();
  if (pl.preScore?.(state, info, snap.nodes, snap).code === Code.Skip) return {};
  const scores = snap.nodes.map((n) => pl.score!(state, info, n, snap));
  pl.normalizeScore?.(state, info, scores, snap.nodes);
  // scores was mapped from snap.nodes: one entry per node.
  return Object.fromEntries(snap.nodes.map((n, i) => [n.name, scores[i]!]));
}

const OK: [Code, string[]] = [Code.Success, []];

test('NodeUnschedulable: cordoned nodes, unless the unschedulable taint is tolerated', () => {
  const snap = snapshot([node('a', { unschedulable: true }), node('b')]);
  assert.deepEqual(filterAll(nodeUnschedulable(), pod('p'), snap), { a: [Code.UnschedulableAndUnresolvable, ['node(s) were unschedulable']], b: OK });
  const tolerating = pod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] });
  assert.deepEqual(filterAll(nodeUnschedulable(), tolerating, snap), { a: OK, b: OK });
});

test('NodeName: only the named node', () => {
  const snap = snapshot([node('a'), node('b')]);
  assert.deepEqual(filterAll(nodeName(), pod('p', { nodeName: 'b' }), snap),
    { a: [Code.UnschedulableAndUnresolvable, ["node(s) didn't match the requested node name"]], b: OK });
});

test('TaintToleration: the first untolerated NoSchedule/NoExecute taint, printed {key: value}', () => {
  const snap = snapshot([
    node('cp', { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }),
    node('win', { taints: [{ key: 'os', value: 'windows', effect: 'NoExecute' }, { key: 'x', value: 'y', effect: 'NoSchedule' }] }),
    node('soft', { taints: [{ key: 'prefer', value: 'no', effect: 'PreferNoSchedule' }] }),
  ]);
  assert.deepEqual(filterAll(taintToleration(), pod('p'), snap), {
    cp: [Code.UnschedulableAndUnresolvable, ['node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }']],
    win: [Code.UnschedulableAndUnresolvable, ['node(s) had untolerated taint {os: windows}']],
    soft: OK,
  });
  const tolerating = pod('p', { tolerations: [{ key: 'os', operator: 'Equal', value: 'windows' }, { operator: 'Exists', effect: 'NoSchedule' }] });
  assert.deepEqual(filterAll(taintToleration(), tolerating, snap), { cp: OK, win: OK, soft: OK });
  // Score: untolerated PreferNoSchedule taints count against a node, normalized in reverse.
  assert.deepEqual(scoreAll(taintToleration(), tolerating, snap), { cp: 100, win: 100, soft: 0 });
});

test('NodeAffinity: nodeSelector and required affinity (OS and Windows build labels), preferred weights', () => {
  const snap = snapshot([
    node('linux-1', { labels: { 'kubernetes.io/os': 'linux' } }),
    node('win2019-1', { labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' } }),
    node('win2022-1', { labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' } }),
  ]);
  const reject: [Code, string[]] = [Code.UnschedulableAndUnresolvable, ["node(s) didn't match Pod's node affinity/selector"]];
  assert.deepEqual(filterAll(nodeAffinity(), pod('p', { nodeSelector: { 'kubernetes.io/os': 'windows' } }), snap),
    { 'linux-1': reject, 'win2019-1': OK, 'win2022-1': OK });
  const build = pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchExpressions: [{ key: 'node.kubernetes.io/windows-build', operator: 'In', values: ['10.0.20348'] }] }] } } } });
  assert.deepEqual(filterAll(nodeAffinity(), build, snap), { 'linux-1': reject, 'win2019-1': reject, 'win2022-1': OK });
  const fields = pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['linux-1'] }] }, { matchExpressions: [] }] } } } });
  assert.deepEqual(filterAll(nodeAffinity(), fields, snap), { 'linux-1': reject, 'win2019-1': OK, 'win2022-1': OK });
  const preferred = pod('p', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [
    { weight: 10, preference: { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['windows'] }] } },
    { weight: 30, preference: { matchExpressions: [{ key: 'node.kubernetes.io/windows-build', operator: 'In', values: ['10.0.20348'] }] } }] } } });
  assert.deepEqual(scoreAll(nodeAffinity(), preferred, snap), { 'linux-1': 0, 'win2019-1': 25, 'win2022-1': 100 });
});

test('NodePorts: a taken hostPort of the same protocol conflicts, 0.0.0.0 with any address', () => {
  const withPort = (name: string, port: number, ip?: string, protocol?: string) =>
    pod(name, { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: port, hostIP: ip, protocol }] }] });
  const snap = snapshot([node('a'), node('b'), node('c')], [bound(withPort('x', 4444), 'a'), bound(withPort('y', 4444, '10.0.0.1', 'UDP'), 'b')]);
  assert.deepEqual(filterAll(nodePorts(), withPort('p', 4444), snap),
    { a: [Code.Unschedulable, ["node(s) didn't have free ports for the requested pod ports"]], b: OK, c: OK });
  assert.deepEqual(filterAll(nodePorts(), withPort('p', 4444, '10.0.0.2', 'UDP'), snap), { a: OK, b: OK, c: OK });
});

test('NodeResourcesFit: upstream reasons, init and sidecar containers, overhead, pod count', () => {
  const snap = snapshot([node('a', { cpu: '2', memory: '1Gi', pods: '2' }), node('b', { cpu: '4', memory: '8Gi' })],
    [bound(pod('x', requests('1500m', '512Mi')), 'a')]);
  assert.deepEqual(filterAll(nodeResourcesFit(), pod('p', requests('1', '768Mi')), snap),
    { a: [Code.Unschedulable, ['Insufficient cpu', 'Insufficient memory']], b: OK });
  // More than the node has at all is still Unschedulable in v1.32 (fit.go Filter), so preemption is tried.
  assert.deepEqual(filterAll(nodeResourcesFit(), pod('p', requests('3')), snap).a, [Code.Unschedulable, ['Insufficient cpu']]);
  // An init container's request counts when larger than the sum of the app containers; a sidecar adds to them.
  const init = pod('p', { initContainers: [{ name: 'i', image: 'x', resources: { requests: { cpu: '600m' } } }], ...requests('100m') });
  assert.deepEqual(filterAll(nodeResourcesFit(), init, snap).a, [Code.Unschedulable, ['Insufficient cpu']]);
  const sidecar = pod('p', { initContainers: [{ name: 's', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '300m' } } }], ...requests('300m') });
  assert.deepEqual(filterAll(nodeResourcesFit(), sidecar, snap).a, [Code.Unschedulable, ['Insufficient cpu']]);
  const overhead = pod('p', { overhead: { cpu: '400m' }, ...requests('200m') });
  assert.deepEqual(filterAll(nodeResourcesFit(), overhead, snap).a, [Code.Unschedulable, ['Insufficient cpu']]);
  const full = snapshot([node('a', { pods: '1' })], [bound(pod('x'), 'a')]);
  assert.deepEqual(filterAll(nodeResourcesFit(), pod('p'), full).a, [Code.Unschedulable, ['Too many pods']]);
});

test('NodeResourcesFit LeastAllocated and BalancedAllocation scores', () => {
  const snap = snapshot([node('a', { cpu: '4', memory: '8Gi' }), node('b', { cpu: '4', memory: '8Gi' })], [bound(pod('x', requests('2', '2Gi')), 'a')]);
  const p = pod('p', requests('1', '1Gi'));
  // a: cpu (4000-3000)*100/4000 = 25, memory (8-3)*100/8 = 62 → (25+62)/2 = 43; b: 75 and 87 → 81.
  assert.deepEqual(scoreAll(nodeResourcesFit(), p, snap), { a: 43, b: 81 });
  // a: fractions 0.75 and 0.375 → (1 - 0.1875) * 100 = 81; b: 0.25 and 0.125 → 93.
  assert.deepEqual(scoreAll(balancedAllocation(), p, snap), { a: 81, b: 93 });
  // Containers without requests count as 100m / 200Mi for LeastAllocated: cpu 90, memory 80 → 85.
  assert.deepEqual(scoreAll(nodeResourcesFit(), pod('q'), snapshot([node('c', { cpu: '1', memory: '1000Mi' })])), { c: 85 });
});

test('ImageLocality: image size scaled by spread, between 23 MB and 1000 MB per container', () => {
  const img = (names: string[], mb: number) => ({ names, sizeBytes: mb * 1024 * 1024 });
  const snap = snapshot([node('a', { images: [img(['big:1.0'], 500)] }), node('b', { images: [img(['big:1.0'], 500)] }), node('c')]);
  const p = pod('p', { containers: [{ name: 'c', image: 'big:1.0' }] });
  // 500 MB × 2/3 nodes = 333 MB → 100 × (333 - 23) / (1000 - 23) = 31.
  assert.deepEqual(scoreAll(imageLocality(), p, snap), { a: 31, b: 31, c: 0 });
});

test('PodTopologySpread: DoNotSchedule skew, missing label, ScheduleAnyway scores', () => {
  const zone = (z: string) => ({ labels: { 'topology.kubernetes.io/zone': z } });
  const app = { labels: { app: 'web' } };
  const snap = snapshot([node('a', zone('z1')), node('b', zone('z1')), node('c', zone('z2')), node('nolabel')],
    [bound(pod('x', {}, app), 'a'), bound(pod('y', {}, app), 'b')]);
  const spread = (when: string) => pod('p', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: when, labelSelector: { matchLabels: { app: 'web' } } }] }, app);
  assert.deepEqual(filterAll(podTopologySpread(), spread('DoNotSchedule'), snap), {
    a: [Code.Unschedulable, ["node(s) didn't match pod topology spread constraints"]],
    b: [Code.Unschedulable, ["node(s) didn't match pod topology spread constraints"]],
    c: OK,
    nolabel: [Code.UnschedulableAndUnresolvable, ["node(s) didn't match pod topology spread constraints (missing required label)"]],
  });
  // Scores: z1 has 2 matching pods, z2 none; the node without the key is ignored.
  assert.deepEqual(scoreAll(podTopologySpread(), spread('ScheduleAnyway'), snap), { a: 0, b: 0, c: 100, nolabel: 0 });
  // No constraints and nothing selecting the pod: the system defaults do nothing.
  assert.deepEqual(scoreAll(podTopologySpread(), pod('q'), snap), {});
});

test('InterPodAffinity: affinity, anti-affinity and existing pods anti-affinity reasons', () => {
  const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } } }] } };
  const snap = snapshot([node('a'), node('b'), node('c')], [
    bound(pod('db', {}, { labels: { app: 'db' } }), 'a'),
    bound(pod('lonely', { affinity: anti }, { labels: { app: 'other' } }), 'b'),
  ]);
  assert.deepEqual(filterAll(interPodAffinity(), pod('p', { affinity: anti }, { labels: { app: 'x' } }), snap),
    { a: [Code.Unschedulable, ["node(s) didn't match pod anti-affinity rules"]], b: OK, c: OK });
  assert.deepEqual(filterAll(interPodAffinity(), pod('p', {}, { labels: { app: 'db' } }), snap),
    { a: OK, b: [Code.Unschedulable, ["node(s) didn't satisfy existing pods anti-affinity rules"]], c: OK });
  const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } } }] } };
  assert.deepEqual(filterAll(interPodAffinity(), pod('p', { affinity }), snap), {
    a: OK, b: [Code.UnschedulableAndUnresolvable, ["node(s) didn't match pod affinity rules"]],
    c: [Code.UnschedulableAndUnresolvable, ["node(s) didn't match pod affinity rules"]],
  });
  // The first pod of a group with affinity to itself may go anywhere.
  const self = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'new' } } }] } };
  assert.deepEqual(filterAll(interPodAffinity(), pod('p', { affinity: self }, { labels: { app: 'new' } }), snap), { a: OK, b: OK, c: OK });
});

test('VolumeBinding and VolumeRestrictions: claims missing, unbound, bound elsewhere, ReadWriteOncePod in use', () => {
  const pvcs: Record<string, any> = {
    'default/bound': { metadata: { name: 'bound', namespace: 'default' }, spec: { volumeName: 'pv1' } },
    'default/pending': { metadata: { name: 'pending', namespace: 'default' }, spec: { storageClassName: 'standard' } },
    'default/rwop': { metadata: { name: 'rwop', namespace: 'default' }, spec: { volumeName: 'pv2', accessModes: ['ReadWriteOncePod'] } },
  };
  const pv1 = { metadata: { name: 'pv1' }, spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['b'] }] }] } } } };
  const listers = { pvc: (ns: string, n: string) => pvcs[`${ns}/${n}`], pv: (n: string) => (n === 'pv1' ? pv1 : n === 'pv2' ? { metadata: { name: 'pv2' }, spec: {} } : undefined), storageClass: () => ({ volumeBindingMode: 'Immediate' }) };
  const claim = (name: string, c: string) => pod(name, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: c } }] });
  const snap = snapshot([node('a'), node('b')], [bound(claim('user', 'rwop'), 'a')], listers);
  const all = (s: [Code, string[]]) => ({ a: s, b: s });
  assert.deepEqual(filterAll(volumeBinding(), claim('p', 'nope'), snap), all([Code.UnschedulableAndUnresolvable, ['persistentvolumeclaim "nope" not found']]));
  assert.deepEqual(filterAll(volumeBinding(), claim('p', 'pending'), snap), all([Code.UnschedulableAndUnresolvable, ['pod has unbound immediate PersistentVolumeClaims']]));
  assert.deepEqual(filterAll(volumeBinding(), claim('p', 'bound'), snap), { a: [Code.UnschedulableAndUnresolvable, ['node(s) had volume node affinity conflict']], b: OK });
  assert.deepEqual(filterAll(volumeRestrictions(), claim('p', 'rwop'), snap),
    all([Code.UnschedulableAndUnresolvable, ['node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode']]));
});

test('VolumeBinding, WaitForFirstConsumer: a free volume that fits the node, one per claim; otherwise a class that can provision', () => {
  const local = (name: string, host: string, storage = '5Gi') => ({
    metadata: { name }, status: { phase: 'Available' },
    spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], storageClassName: 'local', local: { path: `/mnt/${name}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] } } },
  });
  const claimOf = (name: string, cls: string) => ({ metadata: { name, namespace: 'default' }, spec: { storageClassName: cls, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  const pvcs: Record<string, any> = { 'default/l1': claimOf('l1', 'local'), 'default/l2': claimOf('l2', 'local'), 'default/d': claimOf('d', 'standard') };
  const classes: Record<string, any> = {
    local: { provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' },
    standard: { provisioner: 'winkube.io/local', volumeBindingMode: 'WaitForFirstConsumer' },
  };
  const pvs = [local('on-b', 'b')];
  const listers = { pvc: (ns: string, n: string) => pvcs[`${ns}/${n}`], pv: () => undefined, pvs: () => pvs, storageClass: (n: string) => classes[n] };
  const claims = (...names: string[]) => pod('p', { volumes: names.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) });
  const snap = snapshot([node('a'), node('b')], [], listers);
  const conflict: [Code, string[]] = [Code.UnschedulableAndUnresolvable, ["node(s) didn't find available persistent volumes to bind"]];
  assert.deepEqual(filterAll(volumeBinding(), claims('l1'), snap), { a: conflict, b: OK });
  // Two claims, one volume: no node has enough.
  assert.deepEqual(filterAll(volumeBinding(), claims('l1', 'l2'), snap), { a: conflict, b: conflict });
  // A provisioning class fits everywhere.
  assert.deepEqual(filterAll(volumeBinding(), claims('d'), snap), { a: OK, b: OK });
  assert.deepEqual(filterAll(volumeBinding(), claims('l1', 'd'), snap), { a: conflict, b: OK });
});

test('SchedulingGates: a gated pod is not queued', () => {
  const s = schedulingGates().preEnqueue!(new PodInfo(pod('p', { schedulingGates: [{ name: 'a' }, { name: 'b' }] })));
  assert.deepEqual([s.code, s.reasons], [Code.UnschedulableAndUnresolvable, ['waiting for scheduling gates: [a b]']]);
  assert.equal(schedulingGates().preEnqueue!(new PodInfo(pod('p'))).code, Code.Success);
});

/**
 * One random change to the placed pods: a new pod (assumed or added), a pod
 * removed, or a pod starting to terminate; `placed` follows along.
 */
function churn(cache: SchedulerCache, placed: any[], rand: (n: number) => number, newPod: () => any): void {
  const action = rand(10);
  if (action < 6 || placed.length === 0) {
    const p = newPod();
    placed.push(p);
    if (rand(2)) cache.assume(new PodInfo(p), p.spec.nodeName); else cache.addOrUpdatePod(new PodInfo(p));
  } else if (action < 8) {
    cache.removePod(placed.splice(rand(placed.length), 1)[0].metadata.uid);
  } else {
    const p = placed[rand(placed.length)];
    p.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    cache.addOrUpdatePod(new PodInfo(p));
  }
}

test('PodTopologySpread: domain counts kept across cycles equal a full recount after every pod change', () => {
  let seed = 7;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const nodes = Array.from({ length: 24 }, (_, i) => node(`n${i}`, {
    labels: i % 8 === 7 ? {} : { 'topology.kubernetes.io/zone': `z${i % 3}`, ...(i % 2 ? { 'kubernetes.io/os': 'windows' } : {}) },
    ...(i % 5 === 0 ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] } : {}),
  }));
  const cache = snapshot(nodes);
  // The same snapshot seen as a view the plugin must not cache against: it recounts every node.
  const fresh = Object.create(cache, { nodesGeneration: { value: -1 }, podChangeSeq: { value: -1 } }) as typeof cache;
  const probes = [
    pod('p1', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'a' } } }] }, { labels: { app: 'a' } }),
    pod('p2', { nodeSelector: { 'kubernetes.io/os': 'windows' }, topologySpreadConstraints: [
      { maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', nodeTaintsPolicy: 'Honor', labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] } },
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'b' } } }] }, { labels: { app: 'b' }, namespace: 'other' }),
  ].map((p) => new PodInfo(p));
  const pl = podTopologySpread();
  const placed: any[] = [];
  for (let step = 0; step < 400; step++) {
    churn(cache, placed, rand, () => bound(pod(`x${step}`, {}, { labels: { app: ['a', 'b', 'c'][rand(3)] }, namespace: rand(4) ? 'default' : 'other' }), `n${rand(24)}`));
    for (const probe of probes) {
      if (rand(3) === 0) continue; // Some cycles skip a shape, so it has several changes to catch up with.
      const a = new Map<string, unknown>(), b = new Map<string, unknown>();
      pl.preFilter!(a, probe, cache);
      pl.preFilter!(b, probe, fresh);
      // Each constraint's counts, minimum and self-match (its selector aside: recounting builds it anew).
      const kept = (a.get('PodTopologySpread/filter') as any[]).map(({ c: _c, ...counted }) => counted);
      const recounted = (b.get('PodTopologySpread/filter') as any[]).map(({ c: _c, ...counted }) => counted);
      assert.deepEqual(kept, recounted, `step ${step}`);
    }
  }
});

test('PodTopologySpread: scores from the pod index equal those of a scan of every node after every pod change', () => {
  let seed = 11;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const nodes = Array.from({ length: 24 }, (_, i) => node(`n${i}`, {
    labels: i % 8 === 7 ? {} : { 'topology.kubernetes.io/zone': `z${i % 3}`, ...(i % 2 ? { 'kubernetes.io/os': 'windows' } : {}) },
    ...(i % 5 === 0 ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] } : {}),
  }));
  // The system default constraints take the selector of the controllers selecting the pod.
  const defaultSelector = (p: PodInfo) => (p.labels.app === 'a' ? fromLabelSelector({ matchLabels: { app: 'a', hash: '1' } })
    : p.labels.app === 'b' ? fromLabelSelector({ matchExpressions: [{ key: 'app', operator: 'Exists' }, { key: 'hash', operator: 'NotIn', values: ['2'] }] }) : undefined);
  const cache = snapshot(nodes, [], { defaultSelector });
  const fresh = Object.create(cache, { nodesGeneration: { value: -1 }, podChangeSeq: { value: -1 } }) as typeof cache;
  const probes = [
    pod('d1', {}, { labels: { app: 'a', hash: '1' } }),
    pod('d2', {}, { labels: { app: 'b' }, namespace: 'other' }),
    pod('p1', { nodeSelector: { 'kubernetes.io/os': 'windows' }, topologySpreadConstraints: [
      { maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', nodeTaintsPolicy: 'Honor', labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] } },
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'b' } } }] }, { labels: { app: 'b' } }),
  ].map((p) => new PodInfo(p));
  const pl = podTopologySpread();
  const placed: any[] = [];
  const scores = (probe: PodInfo, snap: Snapshot) => {
    const state = new Map<string, unknown>();
    const filtered = snap.nodes.filter((_, i) => i % 3 !== 1);
    if (pl.preScore!(state, probe, filtered, snap).code !== Code.Success) return 'skip';
    const s = filtered.map((n) => pl.score!(state, probe, n, snap));
    pl.normalizeScore!(state, probe, s, filtered);
    return { scores: s, domains: (state.get('PodTopologySpread/score') as any).constraints.map((c: { counts: Map<string, number> }) => [...c.counts].sort()) };
  };
  let scored = 0;
  for (let step = 0; step < 400; step++) {
    // Some pods go to nodes the cache has no Node for: neither way counts them.
    churn(cache, placed, rand, () => bound(pod(`x${step}`, {}, { labels: { app: ['a', 'b', 'c'][rand(3)], hash: String(rand(3)) }, namespace: rand(4) ? 'default' : 'other' }),
      rand(12) ? `n${rand(24)}` : `gone${rand(2)}`));
    for (const probe of probes) {
      const a = scores(probe, cache);
      assert.deepEqual(a, scores(probe, fresh), `step ${step} ${probe.name}`);
      if (a !== 'skip' && a.scores.some((v) => v !== a.scores[0])) scored++;
    }
  }
  // The scores told nodes apart (the comparison was not between uniform lists).
  assert.ok(scored > 100);
});

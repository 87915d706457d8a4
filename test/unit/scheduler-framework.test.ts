import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explain, formatExplanation } from '../../src/scheduler/explain.js';
import { fitErrorMessage, FitError, Framework, numFeasibleNodesToFind, type Plugin } from '../../src/scheduler/framework.js';
import { requiredNodeNames } from '../../src/scheduler/plugins/node-affinity.js';
import { PodInfo } from '../../src/scheduler/pod-info.js';
import { preempt } from '../../src/scheduler/preemption.js';
import { buildProfile, ConfigError, parseSchedulerConfig } from '../../src/scheduler/profile.js';
import { SchedulingQueue } from '../../src/scheduler/queue.js';
import { schedulingGates } from '../../src/scheduler/plugins/scheduling-gates.js';
import { nodeResourcesFit } from '../../src/scheduler/plugins/node-resources-fit.js';
import { Code, SUCCESS, unresolvable, unschedulable } from '../../src/scheduler/status.js';
import { bound, node, pod, requests, snapshot } from './scheduler-fixtures.js';

const CP_TAINT = [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }];
const defaultCluster = () => [
  node('winkube-control-plane', { taints: CP_TAINT, labels: { 'kubernetes.io/os': 'linux' } }),
  node('linux-1', { labels: { 'kubernetes.io/os': 'linux' } }), node('linux-2', { labels: { 'kubernetes.io/os': 'linux' } }),
  node('win2019-1', { labels: { 'kubernetes.io/os': 'windows' } }), node('win2019-2', { labels: { 'kubernetes.io/os': 'windows' } }),
  node('win2022-1', { labels: { 'kubernetes.io/os': 'windows' } }),
];

test('FitError.Error(): counts per reason, sorted as strings, PreFilter and PostFilter parts', () => {
  const statuses = new Map([
    ['a', unresolvable('node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }')],
    ['b', unresolvable("node(s) didn't match Pod's node affinity/selector")],
    ['c', unresolvable("node(s) didn't match Pod's node affinity/selector")],
    ['d', unschedulable('Insufficient cpu', 'Insufficient memory')],
  ]);
  const d = { nodeToStatus: { statuses }, unschedulablePlugins: new Set<string>(), preFilterMsg: '', postFilterMsg: 'preemption: x' };
  assert.equal(fitErrorMessage(6, d), "0/6 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, " +
    "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: x");
  // Byte order, as sort.Strings: "10 ..." before "2 ...".
  const many = new Map<string, any>();
  for (let i = 0; i < 10; i++) many.set(`n${i}`, unschedulable('Insufficient cpu'));
  many.set('x', unschedulable('Too many pods')); many.set('y', unschedulable('Too many pods'));
  assert.equal(fitErrorMessage(12, { nodeToStatus: { statuses: many }, unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' }),
    '0/12 nodes are available: 10 Insufficient cpu, 2 Too many pods.');
  assert.equal(fitErrorMessage(6, { nodeToStatus: { statuses: new Map() }, unschedulablePlugins: new Set(), preFilterMsg: 'pod has unbound immediate PersistentVolumeClaims', postFilterMsg: '' }),
    '0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims.');
});

test('numFeasibleNodesToFind: all below 100 nodes, then 50 - n/125 percent, at least 5% and 100 nodes', () => {
  assert.equal(numFeasibleNodesToFind(undefined, 6), 6);
  assert.equal(numFeasibleNodesToFind(undefined, 1000), 420);
  assert.equal(numFeasibleNodesToFind(undefined, 5000), 500);
  assert.equal(numFeasibleNodesToFind(undefined, 10000), 500);
  assert.equal(numFeasibleNodesToFind(undefined, 150), 100);
  assert.equal(numFeasibleNodesToFind(30, 5000), 1500);
});

test('the default profile: the issue example message with preemption', () => {
  const { framework } = buildProfile();
  const snap = snapshot(defaultCluster(), [
    bound(pod('w1', requests('3500m')), 'win2019-1'), bound(pod('w2', requests('3500m')), 'win2019-2'), bound(pod('w3', requests('3500m')), 'win2022-1'),
  ]);
  const p = new PodInfo(pod('p', { nodeSelector: { 'kubernetes.io/os': 'windows' }, ...requests('1') }));
  assert.throws(() => framework.schedule(p, snap), (e: unknown) => {
    assert.ok(e instanceof FitError);
    const r = preempt(framework, p, snap, e.diagnosis, []);
    e.diagnosis.postFilterMsg = r.message;
    assert.equal(e.text(), "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, " +
      "2 node(s) didn't match Pod's node affinity/selector, 3 Insufficient cpu. preemption: 0/6 nodes are available: " +
      '3 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.');
    return true;
  });
});

test('scheduling picks a feasible node, preferring the least allocated', () => {
  const { framework } = buildProfile();
  const snap = snapshot(defaultCluster(), [bound(pod('x', requests('3')), 'win2019-1'), bound(pod('y', requests('3')), 'win2019-2')]);
  const r = framework.schedule(new PodInfo(pod('p', { nodeSelector: { 'kubernetes.io/os': 'windows' }, ...requests('500m') })), snap);
  assert.equal(r.node, 'win2022-1');
  assert.equal(r.feasibleNodes, 3);
});

test('DefaultPreemption: lowest-priority victims, reprieve of what is not needed, policy Never', () => {
  const { framework } = buildProfile();
  const low = (name: string, prio: number, cpu: string) => bound(pod(name, { priority: prio, ...requests(cpu) }), 'linux-1');
  const nodes = [node('linux-1')];
  const snap = snapshot(nodes, [low('a', 1, '1'), low('b', 5, '2'), low('c', 2000, '500m')]);
  const p = new PodInfo(pod('p', { priority: 1000, ...requests('2') }));
  try { framework.schedule(p, snap); assert.fail('should not fit'); } catch (e) {
    assert.ok(e instanceof FitError);
    const r = preempt(framework, p, snap, e.diagnosis, []);
    assert.equal(r.message, '');
    assert.equal(r.candidate?.node, 'linux-1');
    // Removing a (1 CPU) alone leaves 1.5 free, not enough: b (2 CPUs) goes; a is reprieved; c has higher priority.
    assert.deepEqual(r.candidate?.victims.map((v) => v.name), ['b']);
    const never = new PodInfo(pod('q', { priority: 1000, preemptionPolicy: 'Never', ...requests('2') }));
    assert.equal(preempt(framework, never, snap, e.diagnosis, []).message, 'preemption: not eligible due to preemptionPolicy=Never.');
  }
  // A PodDisruptionBudget protects a victim when another choice exists.
  const two = snapshot([node('n1'), node('n2')], [
    bound(pod('guarded', { priority: 1, ...requests('3') }, { labels: { app: 'g' } }), 'n1'), bound(pod('free', { priority: 1, ...requests('3') }), 'n2')]);
  const pdb = { metadata: { namespace: 'default', name: 'g' }, spec: { selector: { matchLabels: { app: 'g' } } }, status: { disruptionsAllowed: 0 } };
  try { framework.schedule(p, two); assert.fail('should not fit'); } catch (e) {
    assert.ok(e instanceof FitError);
    const r = preempt(framework, p, two, e.diagnosis, [pdb]);
    assert.equal(r.candidate?.node, 'n2');
  }
});

test('KubeSchedulerConfiguration: disabled plugins, weights, args, errors', () => {
  const cfg = parseSchedulerConfig(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 20
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: ImageLocality}]
      enabled: [{name: NodeResourcesFit, weight: 5}]
    filter:
      disabled: [{name: TaintToleration}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
- schedulerName: bare
  plugins:
    multiPoint: {disabled: [{name: '*'}]}
`);
  const [a, b] = cfg.profiles;
  assert.ok(b);
  assert.ok(a);
  assert.equal(a.framework.percentageOfNodesToScore, 20);
  assert.ok(!a.framework.scorePlugins.some((p) => p.name === 'ImageLocality'));
  assert.equal(a.framework.weights.get('NodeResourcesFit'), 5);
  assert.equal(a.framework.weights.get('TaintToleration'), 3);
  assert.ok(!a.framework.filterPlugins.some((p) => p.name === 'TaintToleration'));
  assert.ok(a.framework.scorePlugins.some((p) => p.name === 'TaintToleration'));
  assert.deepEqual(b.framework.plugins.map((p) => p.name), []);
  assert.equal(b.preemption, false);
  // MostAllocated: the fuller node scores higher.
  const snap = snapshot([node('x'), node('y')], [bound(pod('z', requests('2', '8Gi')), 'x')]);
  const fit = nodeResourcesFit({ scoringStrategy: { type: 'MostAllocated' } });
  const p = new PodInfo(pod('p', requests('1', '1Gi')));
  assert.ok(fit.score!(new Map(), p, snap.get('x')!, snap) > fit.score!(new Map(), p, snap.get('y')!, snap));
  assert.throws(() => buildProfile({ plugins: { score: { enabled: [{ name: 'Nope' }] } } }), (e: unknown) => e instanceof ConfigError && e.message === 'plugin "Nope" does not exist');
  assert.throws(() => parseSchedulerConfig('kind: Other'), ConfigError);
});

test('queue: priority order, backoff 1s doubling to 10s, unschedulable pods moved by relevant events, gates', () => {
  let now = 1000;
  const fit = nodeResourcesFit();
  const q = new SchedulingQueue([schedulingGates()], [fit], { now: () => now });
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => q.backoffDuration(n)), [1000, 2000, 4000, 8000, 10000, 10000]);
  const lo = new PodInfo(pod('lo', { priority: 1 }));
  const hi = new PodInfo(pod('hi', { priority: 100 }));
  const gated = new PodInfo(pod('g', { schedulingGates: [{ name: 'x' }] }));
  q.add(lo); now++; q.add(hi); q.add(gated);
  assert.equal(q.where(gated.uid), 'gated');
  assert.equal(q.pop()?.name, 'hi');
  const p = q.pop()!;
  assert.equal(p.name, 'lo');
  assert.equal(q.pop(), undefined);
  q.addUnschedulable(p, new Set(['NodeResourcesFit']));
  assert.equal(q.where(p.uid), 'unschedulable');
  q.onEvent('PvcChange');
  assert.equal(q.where(p.uid), 'unschedulable', 'NodeResourcesFit does not care about claims');
  q.onEvent('AssignedPodDelete');
  assert.equal(q.where(p.uid), 'backoff', 'still within its 1 s backoff');
  now += 1000;
  q.flushBackoff();
  assert.equal(q.where(p.uid), 'active');
  // Removing the gate queues the pod.
  q.update(new PodInfo({ ...gated.pod, spec: { ...gated.pod.spec, schedulingGates: [] } }));
  assert.equal(q.where(gated.uid), 'active');
});

/** A DaemonSet pod's affinity (daemon.util.ReplaceDaemonSetPodNodeNameNodeAffinity) plus optional expressions. */
function pinned(name: string, nodes: string[], extra: any = {}, exprs: any[] = []): any {
  return pod(name, { ...extra, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: nodes }], ...(exprs.length ? { matchExpressions: exprs } : {}) }] } } } });
}

test('NodeAffinity PreFilterResult: matchFields metadata.name narrows the filter pass to the named nodes', () => {
  assert.deepEqual([...requiredNodeNames([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] },
    { key: 'metadata.name', operator: 'In', values: ['b', 'c'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['d'] }] }])!].sort(), ['b', 'd']);
  // A term without a name field lets any node match it.
  assert.equal(requiredNodeNames([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }, { matchExpressions: [{ key: 'x', operator: 'Exists' }] }]), undefined);
  assert.equal(requiredNodeNames([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }] }]), undefined);

  const { framework } = buildProfile();
  const snap = snapshot(defaultCluster());
  const r = framework.schedule(new PodInfo(pinned('ds', ['linux-2'])), snap);
  assert.equal(r.node, 'linux-2');
  assert.equal(r.evaluatedNodes, 1);
  const two = framework.schedule(new PodInfo(pinned('ds2', ['linux-1', 'win2019-1', 'gone'])), snap);
  assert.equal(two.evaluatedNodes, 2);
  assert.ok(['linux-1', 'win2019-1'].includes(two.node));
});

test('PreFilterResult: nodes left out are "didn\'t satisfy plugin(s) [NodeAffinity]", unresolvable for preemption', () => {
  const { framework } = buildProfile();
  const snap = snapshot(defaultCluster(), [bound(pod('big', { priority: 100, ...requests('3500m') }), 'linux-1')]);
  const fit = (p: any): FitError => {
    try { framework.schedule(new PodInfo(p), snap); } catch (e) { if (e instanceof FitError) return e; throw e; }
    throw new Error('scheduled');
  };
  const e = fit(pinned('ds', ['linux-1'], { priority: 100, ...requests('1') }));
  assert.deepEqual([...e.diagnosis.unschedulablePlugins].sort(), ['NodeAffinity', 'NodeResourcesFit']);
  const r = preempt(framework, new PodInfo(pinned('ds', ['linux-1'], { priority: 100, ...requests('1') })), snap, e.diagnosis, []);
  e.diagnosis.postFilterMsg = r.message;
  assert.equal(e.text(), "0/6 nodes are available: 1 Insufficient cpu, 5 node(s) didn't satisfy plugin(s) [NodeAffinity]. " +
    'preemption: 0/6 nodes are available: 1 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling.');
  // The named node fails NodeAffinity's own Filter on its labels.
  assert.equal(fit(pinned('ds', ['linux-2'], {}, [{ key: 'kubernetes.io/os', operator: 'In', values: ['windows'] }])).text(),
    "0/6 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 5 node(s) didn't satisfy plugin(s) [NodeAffinity].");
  // A node that does not exist (yet): every node is left out.
  assert.equal(fit(pinned('ds', ['linux-9'])).text(), "0/6 nodes are available: 6 node(s) didn't satisfy plugin(s) [NodeAffinity].");
  // Name fields that contradict each other within every term: PreFilter rejects the pod.
  const conflict = pod('c', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [
    { key: 'metadata.name', operator: 'In', values: ['linux-1'] }, { key: 'metadata.name', operator: 'In', values: ['linux-2'] }] }] } } } });
  assert.equal(fit(conflict).text(), '0/6 nodes are available: pod affinity terms conflict.');
});

test('RunPreFilterPlugins: PreFilterResults intersect; an empty intersection names the plugins', () => {
  const narrowing = (name: string, nodes: string[]): Plugin => ({ name, preFilter: () => ({ code: Code.Success, reasons: [], nodeNames: new Set(nodes) }), filter: () => SUCCESS });
  const unsched = (name: string): Plugin => ({ name, preFilter: () => unschedulable('later'), filter: () => SUCCESS });
  const fw = (plugins: Plugin[]) => new Framework(plugins, new Map());
  const snap = snapshot(defaultCluster());
  const both = fw([narrowing('A', ['linux-1', 'linux-2']), narrowing('B', ['linux-2'])]).runPreFilter(new Map(), new PodInfo(pod('p')), snap);
  assert.deepEqual([...both.nodeNames!], ['linux-2']);
  const none = fw([narrowing('B', ['linux-1']), narrowing('A', ['linux-2'])]).runPreFilter(new Map(), new PodInfo(pod('p')), snap);
  assert.deepEqual(none.status.reasons, ["node(s) didn't satisfy plugin(s) [A B] simultaneously"]);
  assert.equal(none.status.code, Code.UnschedulableAndUnresolvable);
  const one = fw([narrowing('A', [])]).runPreFilter(new Map(), new PodInfo(pod('p')), snap);
  assert.deepEqual(one.status.reasons, ["node(s) didn't satisfy plugin A"]);
  // Unschedulable does not stop the pass (the later plugins' state is needed by preemption); Unresolvable does.
  let ran = false;
  const later: Plugin = { name: 'L', preFilter: () => { ran = true; return SUCCESS; } };
  const u = fw([unsched('U'), later]).runPreFilter(new Map(), new PodInfo(pod('p')), snap);
  assert.equal(u.status.plugin, 'U');
  assert.equal(ran, true);
  ran = false;
  const stop: Plugin = { name: 'S', preFilter: () => unresolvable('never') };
  assert.equal(fw([stop, later]).runPreFilter(new Map(), new PodInfo(pod('p')), snap).status.plugin, 'S');
  assert.equal(ran, false);
});

test('explain-scheduling: nodes outside the PreFilterResult are reported as the framework reports them', () => {
  const { framework } = buildProfile();
  const nodes = defaultCluster();
  const e = explain(framework, { ...pinned('ds', ['linux-1'], requests('5')), metadata: { name: 'ds', namespace: 'default', uid: 'u1' } },
    { nodes, pods: [], others: {} });
  const byNode = Object.fromEntries(e.verdicts.map((v) => [v.node, v.rejections.map((r) => `${r.plugin}: ${r.reasons.join(', ')}`)]));
  assert.deepEqual(byNode['linux-1'], ['NodeResourcesFit: Insufficient cpu']);
  assert.deepEqual(byNode['linux-2'], ["NodeAffinity (PreFilter): node(s) didn't satisfy plugin(s) [NodeAffinity]"]);
  assert.equal(e.failureMessage, "0/6 nodes are available: 1 Insufficient cpu, 5 node(s) didn't satisfy plugin(s) [NodeAffinity].");
  assert.match(formatExplanation(e), /linux-2\s+NodeAffinity \(PreFilter\): node\(s\) didn't satisfy plugin\(s\) \[NodeAffinity\]/);
});

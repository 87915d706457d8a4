/** The web view's rules as pure functions: columns by OS and build, chip status, requested resources, events order, failures. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, Node, Pod } from 'kubernetes-types/core/v1.js';
import { osColumns } from '../../src/ui/web/model/os-columns.js';
import { podChip } from '../../src/ui/web/model/pod-status.js';
import { formatCpu, formatMemory, nodeUsage, podRequest } from '../../src/ui/web/model/node-resources.js';
import { inOrder } from '../../src/ui/web/model/event-order.js';
import { hints, podFailures } from '../../src/ui/web/model/pod-failures.js';
import { applyEvent, fromList } from '../../src/ui/web/model/watch-state.js';
import { nodeMatches, podMatches } from '../../src/ui/web/model/filter.js';

const node = (name: string, labels: Record<string, string>, allocatable: Record<string, string> = {}): Node =>
  ({ metadata: { name, labels }, status: { allocatable } });

test('columns: Linux first, then Windows builds oldest first with their release names; unknown builds by number', () => {
  const cols = osColumns([
    node('w22', { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' }),
    node('l2', { 'kubernetes.io/os': 'linux' }),
    node('w25', { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.26100' }),
    node('w19', { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' }),
    node('l1', { 'kubernetes.io/os': 'linux' }),
    node('wx', { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.25398' }),
    node('wnolabel', { 'kubernetes.io/os': 'windows' }),
  ]);
  assert.deepEqual(cols.map((c) => [c.title, c.nodes.map((n) => n.metadata?.name)]), [
    ['Linux', ['l1', 'l2']],
    ['Windows Server 2019 / 17763', ['w19']],
    ['Windows Server 2022 / 20348', ['w22']],
    ['Windows / 25398', ['wx']],
    ['Windows Server 2025 / 26100', ['w25']],
    ['Windows (build not labelled)', ['wnolabel']],
  ]);
});

const pod = (status: Pod['status'], spec: Partial<Pod['spec']> = {}, meta: Pod['metadata'] = { name: 'p', namespace: 'default' }): Pod =>
  ({ metadata: meta, spec: { containers: [{ name: 'app' }], ...spec }, status });

test('chips say what kubectl get pods says, with a tone for the colour', () => {
  assert.deepEqual(podChip(pod({ phase: 'Pending' })), { status: 'Pending', ready: '0/1', tone: 'progress' });
  assert.deepEqual(podChip(pod({ phase: 'Pending', containerStatuses: [{ name: 'app', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] })),
    { status: 'ContainerCreating', ready: '0/1', tone: 'progress' });
  assert.deepEqual(podChip(pod({ phase: 'Pending', containerStatuses: [{ name: 'app', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'CreateContainerError' } } }] })),
    { status: 'CreateContainerError', ready: '0/1', tone: 'bad' });
  assert.deepEqual(podChip(pod({ phase: 'Running', containerStatuses: [{ name: 'app', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] })),
    { status: 'Running', ready: '1/1', tone: 'ok' });
  assert.deepEqual(podChip(pod({ phase: 'Running', containerStatuses: [{ name: 'app', image: 'i', imageID: '', ready: false, restartCount: 0, state: { running: {} } }] })),
    { status: 'Running', ready: '0/1', tone: 'progress' });
  assert.deepEqual(podChip(pod({ phase: 'Succeeded', containerStatuses: [{ name: 'app', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })),
    { status: 'Completed', ready: '0/1', tone: 'done' });
  assert.deepEqual(podChip(pod({ phase: 'Running', initContainerStatuses: [{ name: 'init', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }] },
    { initContainers: [{ name: 'init' }] })), { status: 'Init:0/1', ready: '0/1', tone: 'progress' });
  assert.equal(podChip(pod({ phase: 'Running' }, {}, { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z' })).status, 'Terminating');
});

test('requests: containers and sidecars add up, an init container counts by its own maximum, overhead on top', () => {
  const p = pod({ phase: 'Running' }, {
    initContainers: [{ name: 'big-init', resources: { requests: { cpu: '2' } } }, { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
    containers: [{ name: 'a', resources: { requests: { cpu: '250m', memory: '128Mi' } } }, { name: 'b', resources: { requests: { cpu: '0.5' } } }],
    overhead: { cpu: '10m' },
  });
  assert.equal(podRequest(p, 'cpu', 3), 2010);
  assert.equal(podRequest(p, 'memory', 0), 192 * 1024 * 1024);
  const done = pod({ phase: 'Succeeded' }, { containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] });
  const usage = nodeUsage(node('n', {}, { cpu: '4', memory: '16Gi' }), [p, done]);
  assert.deepEqual(usage, { cpuMilli: { requested: 2010, allocatable: 4000 }, memoryBytes: { requested: 192 * 1024 * 1024, allocatable: 16 * 1024 ** 3 } });
  assert.equal(formatCpu(2010), '2010m');
  assert.equal(formatCpu(4000), '4');
  assert.equal(formatMemory(192 * 1024 * 1024), '192Mi');
  assert.equal(formatMemory(16 * 1024 ** 3), '16Gi');
  assert.equal(formatMemory(15.9 * 1024 ** 3), '15.9Gi');
});

const ev = (name: string, reason: string, lastTimestamp?: string, eventTime?: string): Event =>
  ({ metadata: { name }, involvedObject: {}, reason, message: `${reason} message`, ...(lastTimestamp ? { lastTimestamp } : {}), ...(eventTime ? { eventTime } : {}) });

test('events in kubectl describe\'s order: by lastTimestamp, events.k8s.io ones (no lastTimestamp) first', () => {
  const order = inOrder([
    ev('c', 'Failed', '2026-01-01T00:00:02Z'),
    ev('b', 'Pulling', '2026-01-01T00:00:01Z'),
    ev('a', 'Scheduled', undefined, '2026-01-01T00:00:01.500000Z'),
    ev('d', 'WinkubeHint', '2026-01-01T00:00:02Z'),
  ]).map((e) => e.reason);
  assert.deepEqual(order, ['Scheduled', 'Pulling', 'Failed', 'WinkubeHint']);
});

test('failures: the scheduler\'s condition, the containers\' upstream reasons (not progress), and each WinkubeHint once', () => {
  const p = pod({
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes are available' }],
    containerStatuses: [
      { name: 'app', image: 'i', imageID: '', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } },
      { name: 'other', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
    ],
  });
  assert.deepEqual(podFailures(p), [
    { where: 'PodScheduled', reason: 'Unschedulable', message: '0/6 nodes are available' },
    { where: 'container app', reason: 'CrashLoopBackOff', message: 'back-off 20s' },
    { where: 'container app', reason: 'Error', message: 'exit code 1' },
  ]);
  assert.deepEqual(hints([ev('a', 'WinkubeHint'), ev('b', 'Failed'), ev('c', 'WinkubeHint')]), ['WinkubeHint message']);
});

test('watch events update the list copy; a bookmark changes nothing', () => {
  const a = pod({ phase: 'Pending' }, {}, { name: 'a', namespace: 'ns' });
  let state = fromList([a]);
  const same = applyEvent(state, { type: 'BOOKMARK', object: a });
  assert.equal(same, state);
  state = applyEvent(state, { type: 'MODIFIED', object: pod({ phase: 'Running' }, {}, { name: 'a', namespace: 'ns' }) });
  assert.equal(state.get('ns/a')?.status?.phase, 'Running');
  state = applyEvent(state, { type: 'DELETED', object: a });
  assert.equal(state.size, 0);
});

test('filters: namespace exactly, name as a piece of the pod\'s or its node\'s name', () => {
  const p = pod({}, { nodeName: 'win2019-1' }, { name: 'iis-abc', namespace: 'web' });
  assert.equal(podMatches(p, { namespace: '', name: '' }), true);
  assert.equal(podMatches(p, { namespace: 'web', name: 'IIS' }), true);
  assert.equal(podMatches(p, { namespace: 'default', name: '' }), false);
  assert.equal(podMatches(p, { namespace: '', name: '2019' }), true);
  assert.equal(podMatches(p, { namespace: '', name: 'nginx' }), false);
  assert.equal(nodeMatches(node('linux-1', {}), [], { namespace: '', name: 'iis' }), false);
  assert.equal(nodeMatches(node('linux-1', {}), [], { namespace: '', name: 'linux' }), true);
  assert.equal(nodeMatches(node('linux-1', {}), [p], { namespace: '', name: 'iis' }), true);
});

test('the filter table\'s view of an explanation: first rejection per node, the rest beside it, the terminal text too', async () => {
  const { schedulingView } = await import('../../src/ui/scheduling-view.js');
  const { PodInfo } = await import('../../src/scheduler/pod-info.js');
  const pending = new PodInfo({ metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [{ name: 'app' }] } });
  const view = schedulingView({
    pod: pending, skipped: [], pluginsWithNodes: [], scores: [],
    verdicts: [
      { node: 'linux-1', rejections: [{ code: 2, reasons: ['Insufficient cpu'], plugin: 'NodeResourcesFit' }] },
      { node: 'win2019-1', rejections: [{ code: 3, reasons: ["node(s) didn't match Pod's node affinity/selector"], plugin: 'NodeAffinity' }, { code: 2, reasons: ['Insufficient cpu'], plugin: 'NodeResourcesFit' }] },
    ],
    failureMessage: '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn\'t match Pod\'s node affinity/selector.',
  });
  assert.deepEqual(view.filter, [
    { node: 'linux-1', feasible: false, rejectedBy: { plugin: 'NodeResourcesFit', reasons: ['Insufficient cpu'] }, alsoRejectedBy: [] },
    { node: 'win2019-1', feasible: false, rejectedBy: { plugin: 'NodeAffinity', reasons: ["node(s) didn't match Pod's node affinity/selector"] },
      alsoRejectedBy: [{ plugin: 'NodeResourcesFit', reasons: ['Insufficient cpu'] }] },
  ]);
  assert.equal(view.pod, 'default/p');
  assert.equal(view.schedulerName, 'default-scheduler');
  assert.equal(view.text.split('\n').slice(2).join('\n'), [
    'Filter (the first plugin to reject a node is the reason the scheduler reports):',
    'NODE        RESULT                                                            ALSO REJECTED BY',
    'linux-1     NodeResourcesFit: Insufficient cpu',
    "win2019-1   NodeAffinity: node(s) didn't match Pod's node affinity/selector   NodeResourcesFit: Insufficient cpu",
    '',
    "No node fits. kube-scheduler would report (before preemption): 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.",
  ].join('\n'));
});

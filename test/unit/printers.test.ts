import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { defaultPrinter, printerFor, printers } from '../../src/registry/printers/index.js';
import { podRowConditions } from '../../src/registry/printers/pods.js';
import { humanDuration } from '../../src/registry/printers/duration.js';
import { quantityString } from '../../src/registry/printers/quantity.js';
import { formatLabelSelector, selectorString } from '../../src/selectors/labels.js';

// Compiled to dist/test/unit/, four levels below /work, where shared/ sits beside main/.
const CASES = new URL('../../../../shared/golden/cases/', import.meta.url);

const NOW = Date.parse('2026-11-22T17:27:38Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

function cellsOf(key: string, obj: any, now = NOW): unknown[] {
  const printer = printers[key];
  assert.ok(printer, `no printer for ${key}`);
  return printer.cells(obj, now);
}

function meta(name: string, age = 5 * M, extra: Record<string, unknown> = {}): any {
  return { name, namespace: 'default', creationTimestamp: ago(age), ...extra };
}

/** The printer key a golden request path asks for: "/pods", "apps/deployments". */
function keyOf(path: string): string {
  const p = (path.split('?', 1)[0] ?? '').split('/').filter(Boolean);
  const [group, rest] = p[0] === 'api' ? ['', p.slice(2)] : [p[1], p.slice(3)];
  const resource = rest[0] === 'namespaces' && rest.length > 2 ? rest[2] : rest[0];
  return `${group}/${resource}`;
}

const goldenTables = readdirSync(CASES).filter((f) => f.startsWith('gen-table-')).map((f) => JSON.parse(readFileSync(new URL(f, CASES), 'utf8')));

test('golden Table cases exist', () => {
  assert.ok(goldenTables.length >= 7);
});

for (const c of goldenTables) {
  test(`golden ${c.name}: column definitions`, () => {
    const printer = printers[keyOf(c.request.path)];
    assert.ok(printer, keyOf(c.request.path));
    // Byte for byte, key order included.
    assert.equal(JSON.stringify(printer.columns), JSON.stringify(c.response.body.columnDefinitions));
  });

  const rows: any[] = c.response.body.rows ?? [];
  if (rows.length === 0) continue;
  test(`golden ${c.name}: cells`, () => {
    const key = keyOf(c.request.path);
    const kind = key === '/pods' ? 'Pod' : key === 'apps/deployments' ? 'Deployment' : key === '/configmaps' ? 'ConfigMap' : 'Service';
    const body = structuredClone(c.setup.find((s: any) => s.body?.kind === kind).body);
    const created = rows[0].object?.metadata?.creationTimestamp ?? '2026-11-22T17:27:38Z';
    body.metadata.creationTimestamp = created;
    // What the server adds before the GET: a new pod is Pending and unscheduled.
    if (kind === 'Pod') body.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] };
    if (kind === 'Service' && body.spec.type !== 'ExternalName') body.spec.clusterIP = '10.96.0.1';
    assert.deepEqual(cellsOf(key, body, Date.parse(created)), rows[0].cells);
  });
}

test('every printer gives one cell per column', () => {
  for (const [key, p] of Object.entries(printers)) {
    assert.equal(p.cells({ metadata: { name: 'x' } }, NOW).length, p.columns.length, key);
    for (const col of p.columns) assert.deepEqual(Object.keys(col), ['name', 'type', 'format', 'description', 'priority'], key);
  }
});

test('humanDuration follows apimachinery', () => {
  const cases: [number, string][] = [
    [0, '0s'], [-1500, '0s'], [-2000, '<invalid>'], [59 * S, '59s'], [119 * S, '119s'], [120 * S, '2m'],
    [123 * S, '2m3s'], [9 * M + 59 * S, '9m59s'], [10 * M + 30 * S, '10m'], [179 * M, '179m'], [3 * H, '3h'],
    [3 * H + 5 * M, '3h5m'], [8 * H + 5 * M, '8h'], [47 * H, '47h'], [48 * H, '2d'], [50 * H, '2d2h'],
    [8 * D + 3 * H, '8d'], [729 * D, '729d'], [730 * D, '2y'], [731 * D, '2y1d'], [8 * 365 * D, '8y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, String(ms));
});

test('missing timestamps read <unknown>', () => {
  assert.equal(cellsOf('/namespaces', { metadata: { name: 'n' }, status: { phase: 'Active' } })[2], '<unknown>');
});

test('label selectors print as metav1.FormatLabelSelector does', () => {
  assert.equal(formatLabelSelector(undefined), '<none>');
  assert.equal(formatLabelSelector({}), '<none>');
  assert.equal(formatLabelSelector({ matchLabels: { b: '1' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x'] }] }), 'a in (x,y),b=1');
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'c', operator: 'DoesNotExist' }, { key: 'b', operator: 'Exists' }] }), 'b,!c');
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), '<error>');
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), '<error>');
  assert.equal(selectorString(undefined), '');
});

test('quantities print canonically', () => {
  const cases: [string, string][] = [['1000', '1k'], ['1.5', '1500m'], ['100m', '100m'], ['1024Mi', '1Gi'], ['0.5Gi', '512Mi'], ['1e4', '10e3'], ['0.1n', '1n'], ['10Gi', '10Gi']];
  for (const [q, want] of cases) assert.equal(quantityString(q), want, q);
});

test('pod rows', () => {
  const running = {
    metadata: meta('web'),
    spec: { nodeName: 'node-1', containers: [{ name: 'nginx' }] },
    status: {
      phase: 'Running', podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }],
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'nginx', ready: true, restartCount: 0, state: { running: { startedAt: ago(4 * M) } } }],
    },
  };
  assert.deepEqual(cellsOf('/pods', running), ['web', '1/1', 'Running', '0', '5m', '10.244.0.5', 'node-1', '<none>', '<none>']);

  const restarted = structuredClone(running);
  restarted.status.containerStatuses[0] = { ...restarted.status.containerStatuses[0], restartCount: 3, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * M) } } } as any;
  assert.deepEqual(cellsOf('/pods', restarted).slice(1, 4), ['1/1', 'Running', '3 (5m ago)']);

  const crashing = structuredClone(running);
  crashing.status.containerStatuses[0] = { name: 'nginx', ready: false, restartCount: 7, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(30 * S) } } } as any;
  assert.deepEqual(cellsOf('/pods', crashing).slice(1, 4), ['0/1', 'CrashLoopBackOff', '7 (30s ago)']);

  const init = {
    metadata: meta('init'),
    spec: { initContainers: [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'main' }] },
    status: {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'a', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'b', restartCount: 0, state: { running: {} } },
      ],
      containerStatuses: [{ name: 'main', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
    },
  };
  assert.equal(cellsOf('/pods', init)[2], 'Init:1/2');
  const initCrash = structuredClone(init) as any;
  initCrash.status.initContainerStatuses[1] = { name: 'b', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } };
  assert.deepEqual(cellsOf('/pods', initCrash).slice(1, 4), ['0/1', 'Init:CrashLoopBackOff', '2']);
  const initFailed = structuredClone(init) as any;
  initFailed.status.initContainerStatuses[1] = { name: 'b', restartCount: 0, state: { terminated: { exitCode: 2 } } };
  assert.equal(cellsOf('/pods', initFailed)[2], 'Init:ExitCode:2');
  const initialized = structuredClone(init) as any;
  initialized.status.initContainerStatuses[1] = { name: 'b', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } };
  assert.equal(cellsOf('/pods', initialized)[2], 'PodInitializing');

  const sidecar = {
    metadata: meta('sidecar'),
    spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'main' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'proxy', started: true, ready: true, restartCount: 1, state: { running: {} } }],
      containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: { running: {} } }],
    },
  };
  assert.deepEqual(cellsOf('/pods', sidecar).slice(1, 4), ['2/2', 'Running', '1']);

  const terminating = structuredClone(running) as any;
  terminating.metadata.deletionTimestamp = ago(0);
  assert.equal(cellsOf('/pods', terminating)[2], 'Terminating');
  terminating.status.reason = 'NodeLost';
  assert.equal(cellsOf('/pods', terminating)[2], 'Unknown');

  const done = {
    metadata: meta('job-abc'),
    spec: { containers: [{ name: 'main' }] },
    status: { phase: 'Succeeded', containerStatuses: [{ name: 'main', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
  };
  assert.deepEqual(cellsOf('/pods', done).slice(1, 3), ['0/1', 'Completed']);
  assert.deepEqual(podRowConditions(done), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  assert.equal(podRowConditions(running), undefined);

  const twoContainers = {
    metadata: meta('two'),
    spec: { containers: [{ name: 'a' }, { name: 'b' }], readinessGates: [{ conditionType: 'x/one' }, { conditionType: 'x/two' }] },
    status: {
      phase: 'Running', conditions: [{ type: 'x/one', status: 'True' }, { type: 'x/two', status: 'False' }],
      containerStatuses: [
        { name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'b', ready: true, restartCount: 0, state: { running: {} } },
      ],
    },
  };
  assert.deepEqual(cellsOf('/pods', twoContainers).slice(1, 3), ['1/2', 'NotReady']);
  assert.equal(cellsOf('/pods', twoContainers)[8], '1/2');
  twoContainers.status.conditions.push({ type: 'Ready', status: 'True' });
  assert.equal(cellsOf('/pods', twoContainers)[2], 'Running');

  const gated = { metadata: meta('gated'), spec: { containers: [{ name: 'a' }] }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } };
  assert.equal(cellsOf('/pods', gated)[2], 'SchedulingGated');
});

test('node rows', () => {
  const ready = {
    metadata: meta('cp-1', 10 * D, { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master', 'kubernetes.io/os': 'linux' } }),
    spec: {},
    status: {
      conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
      addresses: [{ type: 'Hostname', address: 'cp-1' }, { type: 'InternalIP', address: '192.168.1.10' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Windows Server 2022 Datacenter', kernelVersion: '10.0.20348.2700', containerRuntimeVersion: 'containerd://1.7.20' },
    },
  };
  assert.deepEqual(cellsOf('/nodes', ready), ['cp-1', 'Ready', 'control-plane,master', '10d', 'v1.32.0', '192.168.1.10', '<none>', 'Windows Server 2022 Datacenter', '10.0.20348.2700', 'containerd://1.7.20']);

  const cordoned = { metadata: meta('w-1', 3 * H), spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } };
  assert.deepEqual(cellsOf('/nodes', cordoned), ['w-1', 'NotReady,SchedulingDisabled', '<none>', '3h', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  assert.equal(cellsOf('/nodes', { metadata: meta('new') })[1], 'Unknown');
});

test('service rows', () => {
  const svc = (spec: any, status: any = {}) => ({ metadata: meta('web', 2 * D), spec, status });
  assert.deepEqual(
    cellsOf('/services', svc({ type: 'ClusterIP', clusterIP: '10.96.12.4', clusterIPs: ['10.96.12.4'], ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }], selector: { app: 'web', tier: 'fe' } })),
    ['web', 'ClusterIP', '10.96.12.4', '<none>', '80/TCP', '2d', 'app=web,tier=fe'],
  );
  assert.deepEqual(
    cellsOf('/services', svc({ type: 'NodePort', clusterIP: '10.96.0.9', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, nodePort: 30053, protocol: 'UDP' }] })).slice(1, 5),
    ['NodePort', '10.96.0.9', '<none>', '80:30080/TCP,53:30053/UDP'],
  );
  const lb = { type: 'LoadBalancer', clusterIP: '10.96.0.7', ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }] };
  assert.equal(cellsOf('/services', svc(lb))[3], '<pending>');
  assert.equal(cellsOf('/services', svc(lb, { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }] } }))[3], '203.0.113.9,lb.example.com');
  assert.equal(cellsOf('/services', svc({ ...lb, externalIPs: ['198.51.100.1'] }))[3], '198.51.100.1');
  assert.equal(cellsOf('/services', svc({ type: 'ClusterIP', clusterIP: 'None' }))[2], 'None');
});

test('workload rows', () => {
  const template = { spec: { containers: [{ name: 'app', image: 'app:1' }, { name: 'log', image: 'fluent:2' }] } };
  const selector = { matchLabels: { app: 'web' } };
  assert.deepEqual(
    cellsOf('apps/deployments', { metadata: meta('web'), spec: { replicas: 3, selector, template }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } }),
    ['web', '2/3', 3, 2, '5m', 'app,log', 'app:1,fluent:2', 'app=web'],
  );
  assert.deepEqual(
    cellsOf('apps/replicasets', { metadata: meta('web-5d4f'), spec: { replicas: 3, selector, template }, status: { replicas: 3, readyReplicas: 1 } }),
    ['web-5d4f', 3, 3, 1, '5m', 'app,log', 'app:1,fluent:2', 'app=web'],
  );
  assert.deepEqual(cellsOf('apps/statefulsets', { metadata: meta('db'), spec: { replicas: 2, template }, status: { readyReplicas: 1 } }).slice(1, 3), ['1/2', '5m']);
  assert.deepEqual(
    cellsOf('apps/daemonsets', { metadata: meta('agent'), spec: { selector, template: { spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'windows' } } } }, status: { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 1 } }),
    ['agent', 2, 2, 1, 2, 1, 'kubernetes.io/os=windows', '5m', 'app,log', 'app:1,fluent:2', 'app=web'],
  );
  assert.deepEqual(
    cellsOf('apps/controllerrevisions', { metadata: meta('agent-6c9', 5 * M, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', controller: true }] }), revision: 2 }),
    ['agent-6c9', 'daemonset.apps/agent', 2, '5m'],
  );
});

test('job and cronjob rows', () => {
  const complete = {
    metadata: meta('pi', 10 * M), spec: { completions: 1, parallelism: 1, template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } }, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'abc' } } },
    status: { succeeded: 1, startTime: ago(10 * M), completionTime: ago(10 * M - 42 * S), conditions: [{ type: 'Complete', status: 'True' }] },
  };
  assert.deepEqual(cellsOf('batch/jobs', complete), ['pi', 'Complete', '1/1', '42s', '10m', 'pi', 'perl', 'batch.kubernetes.io/controller-uid=abc']);
  const running = { metadata: meta('work', 3 * M), spec: { parallelism: 3 }, status: { startTime: ago(3 * M), active: 3 } };
  assert.deepEqual(cellsOf('batch/jobs', running).slice(1, 4), ['Running', '0/1 of 3', '3m']);
  assert.deepEqual(cellsOf('batch/jobs', { metadata: meta('s'), spec: { completions: 2, suspend: true }, status: { conditions: [{ type: 'Suspended', status: 'True' }] } }).slice(1, 4), ['Suspended', '0/2', '']);
  assert.equal(cellsOf('batch/jobs', { metadata: meta('f'), status: { conditions: [{ type: 'Failed', status: 'True' }] } })[1], 'Failed');

  const cron = { metadata: meta('hello', 2 * H), spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } }, status: { active: [{ name: 'hello-1' }], lastScheduleTime: ago(4 * M) } };
  assert.deepEqual(cellsOf('batch/cronjobs', cron), ['hello', '*/5 * * * *', '<none>', 'False', 1, '4m', '120m', 'c', 'busybox', '<none>']);
  assert.deepEqual(cellsOf('batch/cronjobs', { metadata: meta('tz'), spec: { schedule: '0 0 * * *', timeZone: 'Etc/UTC' } }).slice(2, 6), ['Etc/UTC', '<unset>', 0, '<none>']);
});

test('event rows', () => {
  const ev = {
    metadata: meta('web.17a2', 10 * M), involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{nginx}' },
    reason: 'Pulled', message: 'Successfully pulled image "nginx"\n', source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: ago(10 * M), lastTimestamp: ago(2 * M), count: 3, type: 'Normal',
  };
  assert.deepEqual(cellsOf('/events', ev), ['2m', 'Normal', 'Pulled', 'pod/web', 'spec.containers{nginx}', 'kubelet, node-1', 'Successfully pulled image "nginx"', '10m', 3, 'web.17a2']);
  const v1 = {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: meta('ns.1', 1 * M), eventTime: ago(1 * M),
    regarding: { kind: 'Namespace', name: 'golden' }, note: 'created', reason: 'Created', type: 'Normal',
    reportingController: 'winkube', reportingInstance: 'winkube-1', action: 'Create',
  };
  assert.deepEqual(cellsOf('events.k8s.io/events', v1), ['60s', 'Normal', 'Created', 'namespace/golden', '', 'winkube, winkube-1', 'created', '60s', 1, 'ns.1']);
  const series = { ...v1, series: { count: 5, lastObservedTime: ago(20 * S) } };
  assert.deepEqual(cellsOf('events.k8s.io/events', series).slice(0, 1).concat(cellsOf('events.k8s.io/events', series).slice(8, 9)), ['20s', 5]);
});

test('config, storage and policy rows', () => {
  assert.deepEqual(cellsOf('/secrets', { metadata: meta('tls'), type: 'kubernetes.io/tls', data: { 'tls.crt': 'x', 'tls.key': 'y' } }), ['tls', 'kubernetes.io/tls', 2, '5m']);
  assert.deepEqual(cellsOf('/configmaps', { metadata: meta('c'), data: { a: '1' }, binaryData: { b: 'AA==' } }), ['c', 2, '5m']);
  assert.deepEqual(cellsOf('/serviceaccounts', { metadata: meta('default') }), ['default', 0, '5m']);
  assert.deepEqual(cellsOf('/namespaces', { metadata: meta('golden', 3 * D), status: { phase: 'Terminating' } }), ['golden', 'Terminating', '3d']);
  assert.deepEqual(
    cellsOf('/resourcequotas', { metadata: meta('q'), status: { hard: { 'limits.cpu': '2', 'requests.memory': '1Gi', pods: '10' }, used: { 'limits.cpu': '500m', pods: '3' } } }),
    ['q', '5m', 'pods: 3/10, requests.memory: 0/1Gi', 'limits.cpu: 500m/2'],
  );
  assert.deepEqual(
    cellsOf('/persistentvolumes', { metadata: meta('pv1'), spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'fast', volumeMode: 'Filesystem', claimRef: { namespace: 'default', name: 'data' } }, status: { phase: 'Bound' } }),
    ['pv1', '10Gi', 'RWO,RWX', 'Retain', 'Bound', 'default/data', 'fast', '<unset>', '', '5m', 'Filesystem'],
  );
  assert.deepEqual(
    cellsOf('/persistentvolumeclaims', { metadata: meta('data'), spec: { volumeName: 'pv1', storageClassName: 'fast', volumeMode: 'Filesystem' }, status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] } }),
    ['data', 'Bound', 'pv1', '10Gi', 'RWO', 'fast', '<unset>', '5m', 'Filesystem'],
  );
  assert.deepEqual(cellsOf('/persistentvolumeclaims', { metadata: meta('pending'), spec: { storageClassName: 'fast' }, status: { phase: 'Pending' } }).slice(1, 5), ['Pending', '', '', '']);
  assert.deepEqual(cellsOf('policy/poddisruptionbudgets', { metadata: meta('pdb'), spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }), ['pdb', '50%', 'N/A', 1, '5m']);
  assert.deepEqual(cellsOf('scheduling.k8s.io/priorityclasses', { metadata: meta('system-node-critical'), value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' }), ['system-node-critical', 2000001000, false, '5m', 'PreemptLowerPriority']);
  assert.deepEqual(cellsOf('node.k8s.io/runtimeclasses', { metadata: meta('hyperv'), handler: 'runhcs-wcow-hypervisor' }), ['hyperv', 'runhcs-wcow-hypervisor', '5m']);
  assert.deepEqual(cellsOf('coordination.k8s.io/leases', { metadata: meta('node-1'), spec: { holderIdentity: 'node-1' } }), ['node-1', 'node-1', '5m']);
});

test('network rows', () => {
  assert.deepEqual(
    cellsOf('/endpoints', { metadata: meta('web'), subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443 }] }] }),
    ['web', '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...', '5m'],
  );
  assert.equal(cellsOf('/endpoints', { metadata: meta('none') })[1], '<none>');
  assert.deepEqual(
    cellsOf('discovery.k8s.io/endpointslices', { metadata: meta('web-abc'), addressType: 'IPv4', ports: [{ name: 'http', port: 80 }], endpoints: [{ addresses: ['10.0.0.1'] }] }),
    ['web-abc', 'IPv4', '80', '10.0.0.1', '5m'],
  );
  assert.deepEqual(cellsOf('discovery.k8s.io/endpointslices', { metadata: meta('e'), addressType: 'IPv6' }).slice(2, 4), ['<unset>', '<unset>']);
});

test('hpa rows for autoscaling v2 and v1', () => {
  const v2 = {
    apiVersion: 'autoscaling/v2', metadata: meta('web'),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } },
        { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
      ],
    },
    status: { currentReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 35, averageValue: '70m' } } }] },
  };
  assert.deepEqual(cellsOf('autoscaling/horizontalpodautoscalers', v2), ['web', 'Deployment/web', 'cpu: 35%/80%, memory: <unknown>/512Mi + 1 more...', '1', 10, 2, '5m']);
  const v1 = { apiVersion: 'autoscaling/v1', metadata: meta('web'), spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 1 } };
  assert.deepEqual(cellsOf('autoscaling/horizontalpodautoscalers', v1), ['web', 'Deployment/web', 'cpu: <unknown>/50%', '<unset>', 5, 1, '5m']);
  assert.equal(cellsOf('autoscaling/horizontalpodautoscalers', { ...v1, status: { currentReplicas: 1, currentCPUUtilizationPercentage: 12 } })[2], 'cpu: 12%/50%');
});

test('resources without a printer get the default table', () => {
  assert.equal(printerFor('storage.k8s.io', 'csidrivers'), defaultPrinter);
  assert.deepEqual(defaultPrinter.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
  assert.deepEqual(defaultPrinter.cells({ metadata: { name: 'lr', creationTimestamp: '2026-11-22T17:27:38Z' } }, NOW), ['lr', '2026-11-22T17:27:38Z']);
});

test('roles print their creation time; bindings their role and, wide, their subjects by kind', () => {
  for (const resource of ['roles', 'clusterroles']) {
    const p = printerFor('rbac.authorization.k8s.io', resource);
    assert.deepEqual(p.columns.map((c) => [c.name, c.type, c.priority]), [['Name', 'string', 0], ['Created At', 'date', 0]]);
    assert.deepEqual(p.cells({ metadata: { name: 'r', creationTimestamp: '2026-11-22T17:27:38Z' } }, NOW), ['r', '2026-11-22T17:27:38Z']);
  }
  for (const resource of ['rolebindings', 'clusterrolebindings']) {
    const p = printerFor('rbac.authorization.k8s.io', resource);
    assert.deepEqual(p.columns.map((c) => [c.name, c.priority]),
      [['Name', 0], ['Role', 0], ['Age', 0], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1]]);
    const binding = {
      metadata: { name: 'b', creationTimestamp: '2026-11-22T17:27:38Z' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'jane' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
        { kind: 'User', name: 'joe' }, { kind: 'Robot', name: 'r2' },
      ],
    };
    const [name, role, , users, groups, sas] = p.cells(binding, NOW);
    assert.deepEqual([name, role, users, groups, sas], ['b', 'ClusterRole/view', 'jane, joe', 'devs', 'ns/sa']);
    assert.deepEqual(p.cells({ metadata: { name: 'e' }, roleRef: { kind: 'Role', name: 'x' } }, NOW).slice(3), ['', '', '']);
  }
});

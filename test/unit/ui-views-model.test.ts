/** The workloads, services and traffic views' rules as pure functions: kubectl's rollout messages, endpoints per OS, net check paths, followed log lines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { daemonSetRollout, deploymentRollout, jobCompletions, jobRollout, jobStatus, statefulSetRollout } from '../../src/ui/web/model/rollout-status.js';
import { endpointsByOs, slicePorts, slicesOf } from '../../src/ui/web/model/service-endpoints.js';
import { netPath } from '../../src/ui/web/model/net-path.js';
import { splitTarget } from '../../src/node/net/net-target.js';
import { appendLog, EMPTY_LOG, logPath, shownLines } from '../../src/ui/web/model/log-lines.js';

const deployment = (replicas: number | undefined, status: Deployment['status'], generation = 1): Deployment =>
  ({ metadata: { name: 'web', namespace: 'default', generation }, spec: { replicas, selector: {}, template: {} }, status: { observedGeneration: 1, ...status } });

test('deployment rollout: the messages of kubectl\'s DeploymentStatusViewer in its order', () => {
  assert.equal(deploymentRollout(deployment(3, {}, 2)).message, 'Waiting for deployment spec update to be observed...');
  assert.equal(deploymentRollout(deployment(3, { updatedReplicas: 1, replicas: 3 })).message,
    'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...');
  assert.equal(deploymentRollout(deployment(3, { updatedReplicas: 3, replicas: 4 })).message,
    'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...');
  assert.equal(deploymentRollout(deployment(3, { updatedReplicas: 3, replicas: 3, availableReplicas: 2 })).message,
    'Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...');
  const done = deploymentRollout(deployment(3, { updatedReplicas: 3, replicas: 3, readyReplicas: 3, availableReplicas: 3 }));
  assert.deepEqual(done, { kind: 'Deployment', namespace: 'default', name: 'web', desired: 3, updated: 3, ready: 3, available: 3,
    message: 'deployment "web" successfully rolled out', done: true });
  assert.equal(deploymentRollout(deployment(3, { updatedReplicas: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] })).message,
    'error: deployment "web" exceeded its progress deadline');
  // No spec.replicas: kubectl skips the updated check, the page counts the API's default of 1.
  assert.equal(deploymentRollout(deployment(undefined, { updatedReplicas: 0 })).desired, 1);
});

test('daemon set and stateful set rollout: kubectl\'s viewers, the strategy they refuse, a partition', () => {
  const ds = (status: Partial<NonNullable<DaemonSet['status']>>, type = 'RollingUpdate'): DaemonSet => ({
    metadata: { name: 'proxy', namespace: 'kube-system', generation: 1 }, spec: { selector: {}, template: {}, updateStrategy: { type } },
    status: { currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, desiredNumberScheduled: 3, observedGeneration: 1, ...status },
  });
  assert.equal(daemonSetRollout(ds({ updatedNumberScheduled: 1 })).message, 'Waiting for daemon set "proxy" rollout to finish: 1 out of 3 new pods have been updated...');
  assert.equal(daemonSetRollout(ds({ updatedNumberScheduled: 3, numberAvailable: 2 })).message, 'Waiting for daemon set "proxy" rollout to finish: 2 of 3 updated pods are available...');
  assert.equal(daemonSetRollout(ds({ updatedNumberScheduled: 3, numberAvailable: 3 })).message, 'daemon set "proxy" successfully rolled out');
  assert.equal(daemonSetRollout(ds({}, 'OnDelete')).message, 'error: rollout status is only available for RollingUpdate strategy type');
  const sts = (status: Partial<NonNullable<StatefulSet['status']>>, partition?: number): StatefulSet => ({
    metadata: { name: 'db', namespace: 'default', generation: 1 },
    spec: { replicas: 3, selector: {}, serviceName: 'db', template: {}, updateStrategy: { type: 'RollingUpdate', ...(partition === undefined ? {} : { rollingUpdate: { partition } }) } },
    status: { replicas: 3, observedGeneration: 1, ...status },
  });
  assert.equal(statefulSetRollout(sts({ observedGeneration: 0 })).message, 'Waiting for statefulset spec update to be observed...');
  assert.equal(statefulSetRollout(sts({ readyReplicas: 1 })).message, 'Waiting for 2 pods to be ready...');
  assert.equal(statefulSetRollout(sts({ readyReplicas: 3, updatedReplicas: 1 }, 1)).message, 'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...');
  assert.equal(statefulSetRollout(sts({ readyReplicas: 3, updatedReplicas: 3 }, 0)).message, 'partitioned roll out complete: 3 new pods have been updated...');
  assert.equal(statefulSetRollout(sts({ readyReplicas: 3, updatedReplicas: 1, updateRevision: 'db-2', currentRevision: 'db-1' })).message,
    'waiting for statefulset rolling update to complete 1 pods at revision db-2...');
  assert.equal(statefulSetRollout(sts({ readyReplicas: 3, currentReplicas: 3, updateRevision: 'db-1', currentRevision: 'db-1' })).message,
    'statefulset rolling update complete 3 pods at revision db-1...');
});

test('jobs: printJob\'s STATUS and COMPLETIONS', () => {
  const job = (spec: Partial<NonNullable<Job['spec']>>, status: NonNullable<Job['status']>): Job => ({ metadata: { name: 'pi', namespace: 'default' }, spec: { template: {}, ...spec }, status });
  assert.equal(jobCompletions(job({ completions: 3 }, { succeeded: 1 })), '1/3');
  assert.equal(jobCompletions(job({ parallelism: 2 }, {})), '0/1 of 2');
  assert.equal(jobStatus(job({}, { conditions: [{ type: 'Complete', status: 'True' }] })), 'Complete');
  assert.equal(jobStatus(job({}, { conditions: [{ type: 'Suspended', status: 'True' }] })), 'Suspended');
  assert.deepEqual(jobRollout(job({ completions: 2 }, { succeeded: 1, active: 1, ready: 1 })),
    { kind: 'Job', namespace: 'default', name: 'pi', desired: 2, updated: 1, ready: 1, available: 1, message: 'Running, 1/2 completions', done: false });
});

const node = (name: string, os: string, build?: string): Node =>
  ({ metadata: { name, labels: { 'kubernetes.io/os': os, ...(build ? { 'node.kubernetes.io/windows-build': build } : {}) } } });

test('endpoints: a Service\'s slices, each endpoint under its node and the node\'s OS column, conditions read as the API defines them', () => {
  const slice = (name: string, service: string, endpoints: EndpointSlice['endpoints']): EndpointSlice =>
    ({ metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': service } }, addressType: 'IPv4', endpoints, ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] });
  const slices = [
    slice('mixed-a', 'mixed', [
      { addresses: ['10.244.5.3'], nodeName: 'win2022-1', targetRef: { kind: 'Pod', name: 'winweb', namespace: 'default' }, conditions: { ready: true } },
      { addresses: ['10.244.2.10'], nodeName: 'linux-2', conditions: { ready: false, terminating: true } },
    ]),
    slice('mixed-b', 'mixed', [{ addresses: ['10.244.2.9'], nodeName: 'linux-2', targetRef: { kind: 'Pod', name: 'web-1' } }]),
    slice('other', 'other', [{ addresses: ['10.244.1.1'], nodeName: 'linux-1' }]),
  ];
  const nodes = new Map([node('linux-2', 'linux'), node('win2022-1', 'windows', '10.0.20348')].map((n) => [n.metadata!.name!, n]));
  const mine = slicesOf(slices, 'default', 'mixed');
  assert.deepEqual(mine.map((s) => s.metadata?.name), ['mixed-a', 'mixed-b']);
  assert.deepEqual(slicePorts(mine), ['http 8080/TCP']);
  assert.deepEqual(endpointsByOs(mine, nodes), [
    { key: 'linux', title: 'Linux', nodes: [{ node: 'linux-2', endpoints: [
      { address: '10.244.2.9', ready: true, serving: true, terminating: false, target: 'default/web-1' },
      { address: '10.244.2.10', ready: false, serving: false, terminating: true },
    ] }] },
    { key: 'windows-20348', title: 'Windows Server 2022 / 20348', nodes: [{ node: 'win2022-1', endpoints: [
      { address: '10.244.5.3', ready: true, serving: true, terminating: false, target: 'default/winweb' },
    ] }] },
  ]);
  assert.deepEqual(endpointsByOs([slice('x', 'x', [{ addresses: ['127.0.0.1'] }, { addresses: ['10.244.9.9'], nodeName: 'gone' }])], nodes)
    .map((g) => [g.title, g.nodes.map((n) => n.node)]), [['Node unknown', ['gone']], ['Not on a node', ['(no node)']]]);
});

test('net path: each hop\'s role and the verdict; TO[:PORT] split as the command does', () => {
  const stopped = netPath({ from: '172.18.0.7', to: '172.18.0.7:30093', result: 'timeout', hops: [
    'node win2022-1 172.18.0.7 (windows 10.0.20348): host network',
    'stopped: a Windows node does not reach its own nodePorts',
    'fix: use another node\'s address for the nodePort, or the Service from a pod',
  ] });
  assert.deepEqual(stopped.steps.map((s) => s.role), ['source', 'stop', 'fix']);
  assert.deepEqual([stopped.verdict, stopped.ok], ['timeout', false]);
  const connected = netPath({ from: '10.244.1.5', to: '10.96.0.20:80', result: 'connected', hops: [
    'pod default/client 10.244.1.5 on linux-1 (linux): veth',
    'linux-1 iptables: KUBE-SERVICES 10.96.0.20:80/tcp → KUBE-SVC-X (default/web)',
    'KUBE-SEP-Y: DNAT to 10.244.2.2:8080',
    'pod default/web listens on 10.244.2.2:8080, sees the client as 10.244.1.5',
  ] });
  assert.deepEqual(connected.steps.map((s) => s.role), ['source', 'rule', 'endpoint', 'destination']);
  assert.deepEqual(netPath({ from: 'a', to: 'b', result: 'connected', hops: ['pod x', 'win2022-1 VFP: HNS load balancer 10.96.0.20:80/tcp → 1 endpoint, DSR', '→ 10.244.5.3:8080', 'pod y listens'] })
    .steps.map((s) => s.role), ['source', 'rule', 'endpoint', 'destination']);
  assert.equal(connected.ok, true);
  assert.deepEqual(splitTarget('svc/web'), { to: 'svc/web', port: 80 });
  assert.deepEqual(splitTarget('node/win2022-1:30093'), { to: 'node/win2022-1', port: 30093 });
  assert.equal(splitTarget('svc/web:70000'), undefined);
  assert.equal(splitTarget(':80'), undefined);
});

test('log lines: chunks split anywhere, the unfinished line waits, the newest lines are kept', () => {
  let log = appendLog(EMPTY_LOG, 'star');
  assert.deepEqual([log.lines, shownLines(log)], [[], ['star']]);
  log = appendLog(log, 'ted\r\nla');
  log = appendLog(log, 'ter\n');
  assert.deepEqual(shownLines(log), ['started', 'later']);
  assert.deepEqual(appendLog(EMPTY_LOG, 'a\nb\nc\nd\n', 2).lines, ['c', 'd']);
  assert.equal(logPath('default', 'logger', 'side', true), '/api/v1/namespaces/default/pods/logger/log?container=side&follow=true');
  assert.equal(logPath('default', 'logger', 'main', false), '/api/v1/namespaces/default/pods/logger/log?container=main');
});

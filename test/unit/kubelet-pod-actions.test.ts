import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff } from '../../src/node/kubelet/backoff.js';
import { waiting, type ContainerState } from '../../src/node/kubelet/container-state.js';
import {
  computeExitActions, computePodActions, computePodCompletion, doBackOff,
  type ContainerView, type PodView, type RestartPolicy,
} from '../../src/node/kubelet/pod-actions.js';

/**
 * computePodActions and the exit rules as input/output tables: no pod
 * worker, no timers, `now` passed in.
 */
const T0 = Date.parse('2025-01-01T00:00:00Z');
const running = (started = true, ready = true): ContainerState => ({ kind: 'running', startedAt: '2025-01-01T00:00:00Z', startedAtMs: T0, started, ready });
const exited = (exitCode: number, finishedAtMs = T0): ContainerState =>
  ({ kind: 'terminated', exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: '2025-01-01T00:00:00Z', finishedAt: new Date(finishedAtMs).toISOString(), finishedAtMs });

type C = Partial<ContainerView> & { name: string };
const container = (c: C): ContainerView => ({ init: false, sidecar: false, ephemeral: false, state: waiting('ContainerCreating'), created: false, busy: false, alive: false, ...c });
const pod = (containers: C[], restartPolicy: RestartPolicy = 'Always', sandboxReady = true): PodView =>
  ({ display: 'web_default(u1)', uid: 'u1', restartPolicy, sandboxReady, containers: containers.map(container) });

const noBackoff = new Backoff();

test('computePodActions: sandbox, init container progress, sidecars, regular containers', () => {
  const cases: { name: string; pod: PodView; want: Partial<ReturnType<typeof computePodActions>> }[] = [
    { name: 'new pod: the sandbox, then every container', pod: pod([{ name: 'a' }, { name: 'b' }], 'Always', false),
      want: { createSandbox: true, containersToStart: ['a', 'b'], checkCompletion: true } },
    { name: 'first init container only', pod: pod([{ name: 'i1', init: true }, { name: 'i2', init: true }, { name: 'a' }]),
      want: { containersToStart: ['i1'] } },
    { name: 'init container still running: nothing', pod: pod([{ name: 'i1', init: true, created: true, alive: true, state: running(true, false) }, { name: 'a' }]),
      want: { containersToStart: [] } },
    { name: 'init container done: the next one', pod: pod([{ name: 'i1', init: true, created: true, state: exited(0) }, { name: 'i2', init: true }, { name: 'a' }]),
      want: { containersToStart: ['i2'] } },
    { name: 'all init containers done: the containers', pod: pod([{ name: 'i1', init: true, created: true, state: exited(0) }, { name: 'a' }]),
      want: { containersToStart: ['a'], checkCompletion: true } },
    { name: 'failed init container under Never: the pod fails', pod: pod([{ name: 'i1', init: true, created: true, state: exited(1) }, { name: 'a' }], 'Never'),
      want: { killPod: true } },
    { name: 'failed init container under OnFailure: it restarts', pod: pod([{ name: 'i1', init: true, created: true, state: exited(1) }, { name: 'a' }], 'OnFailure'),
      want: { containersToRestart: [{ name: 'i1', key: 'u1/i1', finishedAtMs: T0 }] } },
    { name: 'failed init container waiting out its back-off: nothing', pod: pod([{ name: 'i1', init: true, created: true, busy: true, state: exited(1) }, { name: 'a' }], 'OnFailure'),
      want: { containersToStart: [], containersToRestart: [] } },
    { name: 'sidecar first, alone', pod: pod([{ name: 's', init: true, sidecar: true }, { name: 'a' }]),
      want: { containersToStart: ['s'] } },
    { name: 'sidecar running but not started (startup probe): the containers wait', pod: pod([{ name: 's', init: true, sidecar: true, created: true, alive: true, state: running(false, false) }, { name: 'a' }]),
      want: { containersToStart: [] } },
    { name: 'sidecar started: the containers', pod: pod([{ name: 's', init: true, sidecar: true, created: true, alive: true, state: running() }, { name: 'a' }]),
      want: { containersToStart: ['a'], checkCompletion: true } },
    { name: 'containers already created or busy are left alone', pod: pod([{ name: 'a', created: true, alive: true, state: running() }, { name: 'b', busy: true }, { name: 'c' }]),
      want: { containersToStart: ['c'], checkCompletion: true } },
  ];
  for (const tc of cases) {
    const got = computePodActions(tc.pod, T0, noBackoff);
    const want = { createSandbox: false, ephemeralContainersToStart: [], containersToStart: [], containersToRestart: [], killPod: false, checkCompletion: false, ...tc.want };
    assert.deepEqual(got, want, tc.name);
  }
});

test('computePodActions: ephemeral containers start once, before the others, even during initialization, never with a new sandbox', () => {
  const eph = (c: Omit<C, 'ephemeral'>): C => ({ ...c, ephemeral: true });
  const up = { created: true, alive: true, state: running() };
  const cases: { name: string; pod: PodView; want: Partial<ReturnType<typeof computePodActions>> }[] = [
    { name: 'added to a running pod: started', pod: pod([{ name: 'a', ...up }, eph({ name: 'debugger' })]),
      want: { ephemeralContainersToStart: ['debugger'], checkCompletion: true } },
    { name: 'several added: in spec order', pod: pod([{ name: 'a', ...up }, eph({ name: 'd2' }), eph({ name: 'd1' })]),
      want: { ephemeralContainersToStart: ['d2', 'd1'], checkCompletion: true } },
    { name: 'while an init container runs: started anyway, the containers still wait',
      pod: pod([{ name: 'i1', init: true, ...up, state: running(true, false) }, { name: 'a' }, eph({ name: 'debugger' })]),
      want: { ephemeralContainersToStart: ['debugger'] } },
    { name: 'while a failed init container waits out its back-off: started',
      pod: pod([{ name: 'i1', init: true, created: true, busy: true, state: exited(1) }, { name: 'a' }, eph({ name: 'debugger' })], 'OnFailure'),
      want: { ephemeralContainersToStart: ['debugger'] } },
    { name: 'running: left alone', pod: pod([{ name: 'a', ...up }, eph({ name: 'debugger', ...up })]), want: { checkCompletion: true } },
    { name: 'pulling its image: left alone', pod: pod([{ name: 'a', ...up }, eph({ name: 'debugger', busy: true })]), want: { checkCompletion: true } },
    ...(['Always', 'OnFailure', 'Never'] as const).flatMap((policy) => [0, 1].map((code) => ({
      name: `exited ${code} under restartPolicy ${policy}: never restarted`, pod: pod([{ name: 'a', ...up }, eph({ name: 'debugger', created: true, state: exited(code) })], policy),
      want: { checkCompletion: true },
    }))),
    { name: 'the sync that re-creates the sandbox: not yet', pod: pod([{ name: 'a', created: false, state: exited(255) }, eph({ name: 'debugger' })], 'Always', false),
      want: { createSandbox: true, containersToStart: ['a'], checkCompletion: true } },
  ];
  for (const tc of cases) {
    const got = computePodActions(tc.pod, T0, noBackoff);
    const want = { createSandbox: false, ephemeralContainersToStart: [], containersToStart: [], containersToRestart: [], killPod: false, checkCompletion: false, ...tc.want };
    assert.deepEqual(got, want, tc.name);
  }
});

test('ephemeral containers: their exit restarts nothing, they do not keep a pod from completing, and are stopped when it completes', () => {
  for (const policy of ['Always', 'OnFailure', 'Never'] as const) {
    for (const code of [0, 1]) {
      const p = pod([{ name: 'a', created: true, alive: true, state: running() }, { name: 'd', ephemeral: true, created: true, state: exited(code) }], policy);
      assert.deepEqual(computeExitActions(p, 'd', T0, noBackoff), { sync: false, killPod: false, checkCompletion: true }, `${policy} ${code}`);
    }
  }
  const done = { name: 'a', created: true, state: exited(0) };
  assert.deepEqual(computePodCompletion(pod([done, { name: 'd', ephemeral: true, created: true, alive: true, state: running() }], 'Never')),
    { complete: false, containersToKill: ['d'] });
  assert.deepEqual(computePodCompletion(pod([done, { name: 'd', ephemeral: true, created: true, state: exited(137) }], 'Never')),
    { complete: true, containersToKill: [] });
  // A running ephemeral container is not a regular one: the pod is not complete while its own container runs.
  assert.deepEqual(computePodCompletion(pod([{ name: 'a', created: true, alive: true, state: running() }, { name: 'd', ephemeral: true, created: true, state: exited(0) }], 'Never')),
    { complete: false, containersToKill: [] });
  // A sidecar restarts while regular containers run, whatever an ephemeral container did.
  const sidecar = pod([{ name: 's', init: true, sidecar: true, state: exited(1) }, done, { name: 'd', ephemeral: true, created: true, alive: true, state: running() }], 'Never');
  assert.equal(computeExitActions(sidecar, 's', T0, noBackoff).checkCompletion, true);
});

test('computeExitActions: restartPolicy decides whether an exited container runs again', () => {
  const cases: { name: string; policy: RestartPolicy; containers: C[]; exited: string; want: 'restart' | 'sync' | 'killPod' | 'checkCompletion' }[] = [
    { name: 'Always, exit 0', policy: 'Always', containers: [{ name: 'a', state: exited(0) }], exited: 'a', want: 'restart' },
    { name: 'Always, exit 1', policy: 'Always', containers: [{ name: 'a', state: exited(1) }], exited: 'a', want: 'restart' },
    { name: 'OnFailure, exit 1', policy: 'OnFailure', containers: [{ name: 'a', state: exited(1) }], exited: 'a', want: 'restart' },
    { name: 'OnFailure, exit 0', policy: 'OnFailure', containers: [{ name: 'a', state: exited(0) }], exited: 'a', want: 'checkCompletion' },
    { name: 'Never, exit 1', policy: 'Never', containers: [{ name: 'a', state: exited(1) }], exited: 'a', want: 'checkCompletion' },
    { name: 'init container exit 0: on to the next', policy: 'Never', containers: [{ name: 'i', init: true, state: exited(0) }, { name: 'a' }], exited: 'i', want: 'sync' },
    { name: 'init container exit 1 under Never: the pod fails', policy: 'Never', containers: [{ name: 'i', init: true, state: exited(1) }, { name: 'a' }], exited: 'i', want: 'killPod' },
    { name: 'init container exit 1 under Always: restarts', policy: 'Always', containers: [{ name: 'i', init: true, state: exited(1) }, { name: 'a' }], exited: 'i', want: 'restart' },
    { name: 'sidecar exits while the container runs: restarts whatever the policy', policy: 'Never',
      containers: [{ name: 's', init: true, sidecar: true, state: exited(0) }, { name: 'a', created: true, alive: true, state: running() }], exited: 's', want: 'restart' },
    { name: 'sidecar stopped after the containers finished: completion', policy: 'Never',
      containers: [{ name: 's', init: true, sidecar: true, state: exited(143) }, { name: 'a', created: true, state: exited(0) }], exited: 's', want: 'checkCompletion' },
  ];
  for (const tc of cases) {
    const got = computeExitActions(pod(tc.containers, tc.policy), tc.exited, T0, noBackoff);
    const kind = got.restart ? 'restart' : got.sync ? 'sync' : got.killPod ? 'killPod' : got.checkCompletion ? 'checkCompletion' : 'none';
    assert.equal(kind, tc.want, tc.name);
  }
});

test('computePodCompletion: done when regular containers are done for good, after the sidecars stop', () => {
  const cases: { name: string; policy: RestartPolicy; containers: C[]; want: { complete: boolean; containersToKill: string[] } }[] = [
    { name: 'Never, both exited', policy: 'Never', containers: [{ name: 'a', state: exited(0) }, { name: 'b', state: exited(2) }], want: { complete: true, containersToKill: [] } },
    { name: 'Never, one still running', policy: 'Never', containers: [{ name: 'a', state: exited(0) }, { name: 'b', alive: true, state: running() }], want: { complete: false, containersToKill: [] } },
    { name: 'OnFailure, a failure restarts', policy: 'OnFailure', containers: [{ name: 'a', state: exited(1) }], want: { complete: false, containersToKill: [] } },
    { name: 'Always never completes', policy: 'Always', containers: [{ name: 'a', state: exited(0) }], want: { complete: false, containersToKill: [] } },
    { name: 'a running sidecar is stopped first', policy: 'Never', containers: [{ name: 's', init: true, sidecar: true, alive: true, state: running() }, { name: 'a', state: exited(0) }],
      want: { complete: false, containersToKill: ['s'] } },
    { name: 'no regular containers yet', policy: 'Never', containers: [{ name: 'i', init: true, state: exited(0) }], want: { complete: false, containersToKill: [] } },
  ];
  for (const tc of cases) assert.deepEqual(computePodCompletion(pod(tc.containers, tc.policy)), tc.want, tc.name);
});

test('restart back-off: 10s doubling to 300s, CrashLoopBackOff in between, reset after 600s without a crash', () => {
  const backoff = new Backoff();
  let now = T0;
  const p = (finishedAtMs: number) => pod([{ name: 'app', created: true, state: exited(1, finishedAtMs) }]);
  /** One crash 1s after the container (re)started: the decision, then the restart it leads to. */
  const crash = () => {
    now += 1000;
    const r = doBackOff(p(now), container({ name: 'app', state: exited(1, now) }), now, backoff);
    const waitMs = r.backOff?.delayMs ?? 0;
    now += waitMs;
    backoff.next(r.key, r.finishedAtMs);
    return r.backOff ? `${r.backOff.reason} ${r.backOff.periodMs / 1000}s` : 'restart now';
  };
  const seen = Array.from({ length: 8 }, crash);
  assert.deepEqual(seen, ['restart now', 'CrashLoopBackOff 10s', 'CrashLoopBackOff 20s', 'CrashLoopBackOff 40s', 'CrashLoopBackOff 80s',
    'CrashLoopBackOff 160s', 'CrashLoopBackOff 300s', 'CrashLoopBackOff 300s']);
  // Running fine for more than twice the maximum: the next crash restarts at once and the back-off starts over.
  now += 600_001;
  assert.deepEqual([crash(), crash()], ['restart now', 'CrashLoopBackOff 10s']);
});

test('CrashLoopBackOff: the waiting message, the BackOff event and the wait counted from the exit', () => {
  const backoff = new Backoff();
  backoff.next('u1/app', T0);
  backoff.next('u1/app', T0 + 15_000);
  const exitAt = T0 + 30_000;
  const r = doBackOff(pod([{ name: 'app' }]), container({ name: 'app', state: exited(1, exitAt) }), exitAt + 5_000, backoff);
  assert.deepEqual(r.backOff, {
    periodMs: 20_000, delayMs: 15_000, reason: 'CrashLoopBackOff',
    message: 'back-off 20s restarting failed container=app pod=web_default(u1)',
    event: 'Back-off restarting failed container app in pod web_default(u1)',
  });
  // Past the back-off: restart now.
  assert.equal(doBackOff(pod([{ name: 'app' }]), container({ name: 'app', state: exited(1, exitAt) }), exitAt + 20_000, backoff).backOff, undefined);
});

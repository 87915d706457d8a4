import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logInstance, selectLines, validatePodLogOptions, parsePodLogOptions } from '../../src/api/pod-log.js';
import { rfc3339Nano } from '../../src/apimachinery/time.js';
import { validateContainer } from '../../src/api/streaming/container-name.js';
import { errors, StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { LogLine } from '../../src/apimachinery/container-log.js';

function pod(statuses: unknown[], containers = ['app'], init: string[] = []): KObject {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: { containers: containers.map((name) => ({ name })), initContainers: init.map((name) => ({ name })) },
    status: { containerStatuses: statuses },
  } as KObject;
}

function message(f: () => unknown): string {
  try { f(); } catch (e) { assert.ok(e instanceof StatusError); assert.equal(e.status.reason, 'BadRequest'); return e.status.message!; }
  assert.fail('expected an error');
}

const all = () => true;

test('the container: the only one by default, otherwise upstream lists every container', () => {
  assert.equal(validateContainer('', pod([])), 'app');
  assert.equal(message(() => validateContainer('', pod([], ['a', 'b'], ['init']))), 'a container name must be specified for pod p, choose one of: [init a b]');
  assert.equal(message(() => validateContainer('nope', pod([]))), 'container nope is not valid for pod p');
  assert.equal(validateContainer('init', pod([], ['a', 'b'], ['init'])), 'init');
});

test('which instance: running is the current restart count, previous the one before', () => {
  const run = { name: 'app', restartCount: 2, state: { running: {} }, lastState: { terminated: { containerID: 'containerd://1' } } };
  assert.equal(logInstance(pod([run]), 'app', false, all), 2);
  assert.equal(logInstance(pod([run]), 'app', true, all), 1);
  // Waiting to restart: the last instance that exists, whether or not the count was already bumped.
  const backoff = { name: 'app', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { containerID: 'containerd://x' } } };
  assert.equal(logInstance(pod([backoff]), 'app', false, (rc) => rc <= 1), 1);
  assert.equal(logInstance(pod([backoff]), 'app', true, (rc) => rc <= 2), 2);
  const done = { name: 'app', restartCount: 0, state: { terminated: { containerID: 'containerd://0', exitCode: 0 } }, lastState: {} };
  assert.equal(logInstance(pod([done]), 'app', false, all), 0);
});

test('why there are no logs, in the kubelet\'s words', () => {
  const where = 'container "app" in pod "p"';
  const fresh = { name: 'app', restartCount: 0, state: { running: {} }, lastState: {} };
  assert.equal(message(() => logInstance(pod([fresh]), 'app', true, all)), `previous terminated ${where} not found`);
  const creating = { name: 'app', restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} };
  assert.equal(message(() => logInstance(pod([creating]), 'app', false, all)), `${where} is waiting to start: ContainerCreating`);
  const pull = { name: 'app', restartCount: 0, state: { waiting: { reason: 'ErrImagePull' } }, lastState: {} };
  assert.equal(message(() => logInstance(pod([pull]), 'app', false, all)), `${where} is waiting to start: image can't be pulled`);
  const backoff = { name: 'app', restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } }, lastState: {} };
  assert.equal(message(() => logInstance(pod([backoff]), 'app', false, all)), `${where} is waiting to start: trying and failing to pull image`);
  assert.equal(message(() => logInstance(pod([]), 'app', false, all)), `${where} is not available`);
  assert.equal(message(() => logInstance(pod([{ name: 'app', state: {} }]), 'app', false, all)), `${where} is waiting to start - no logs yet`);
});

test('timestamps are RFC3339Nano: no trailing zeros in the fraction', () => {
  assert.equal(rfc3339Nano(new Date('2026-01-02T03:04:05.120Z')), '2026-01-02T03:04:05.12Z');
  assert.equal(rfc3339Nano(new Date('2026-01-02T03:04:05.000Z')), '2026-01-02T03:04:05Z');
});

test('tail first, then since (kubelet ReadLogs)', () => {
  const at = (s: number, text: string): LogLine => ({ time: new Date(s * 1000), stream: 'stdout', text });
  const lines = [at(1, 'a'), at(2, 'b'), at(3, 'c'), at(4, 'd')];
  assert.deepEqual(selectLines(lines, 2, undefined).map((l) => l.text), ['c', 'd']);
  assert.deepEqual(selectLines(lines, 0, undefined), []);
  assert.deepEqual(selectLines(lines, 3, new Date(3000)).map((l) => l.text), ['c', 'd']);
  assert.deepEqual(selectLines(lines, undefined, new Date(2500)).map((l) => l.text), ['c', 'd']);
});

test('PodLogOptions validation messages', () => {
  const invalid = (q: string) => errors.invalid({ group: '', kind: 'PodLogOptions' }, 'p', validatePodLogOptions(parsePodLogOptions(new URLSearchParams(q)))).status.message;
  assert.equal(invalid('tailLines=-1'), 'PodLogOptions "p" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
  assert.equal(invalid('limitBytes=0'), 'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0');
  assert.equal(invalid('sinceSeconds=0'), 'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0');
  assert.equal(invalid('sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z'), 'PodLogOptions "p" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerLogs } from '../../src/node/logs/container-logs.js';

test('lines are kept per container instance, so the previous instance stays readable', () => {
  const logs = new ContainerLogs();
  logs.append('uid', 'web', 0, 'stdout', 'first run');
  logs.append('uid', 'web', 1, 'stderr', 'second run');
  assert.deepEqual(logs.lines('uid', 'web', 0).map((l) => l.text), ['first run']);
  assert.deepEqual(logs.lines('uid', 'web', 1).map((l) => [l.stream, l.text]), [['stderr', 'second run']]);
  assert.equal(logs.has('uid', 'web', 2), false);
  assert.deepEqual(logs.lines('other', 'web', 0), []);
});

test('followers see new lines and then the end of the instance', () => {
  const logs = new ContainerLogs();
  const seen: (string | null)[] = [];
  logs.follow('uid', 'c', 0, (l) => seen.push(l ? l.text : null));
  logs.append('uid', 'c', 0, 'stdout', 'a');
  logs.append('uid', 'c', 0, 'stdout', 'b');
  logs.end('uid', 'c', 0);
  logs.append('uid', 'c', 0, 'stdout', 'after end');
  assert.deepEqual(seen, ['a', 'b', null]);
});

test('rotation drops the oldest lines past the size bound; dropping a pod ends its followers', () => {
  const logs = new ContainerLogs(10);
  let ended = false;
  logs.follow('uid', 'c', 0, (l) => { if (l === null) ended = true; });
  for (const t of ['1234', '5678', 'abcd']) logs.append('uid', 'c', 0, 'stdout', t);
  assert.deepEqual(logs.lines('uid', 'c', 0).map((l) => l.text), ['5678', 'abcd']);
  logs.dropPod('uid');
  assert.equal(ended, true);
  assert.equal(logs.has('uid', 'c', 0), false);
});

/** kubectl logs against the API server with container logs put in place directly (no kubelet). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { running, startStreamingServer, type StreamingServer } from '../helpers/streaming-server.js';

let s: StreamingServer;
let webUID = '';
const t0 = Date.parse('2026-01-01T00:00:00Z');

before(async () => {
  s = await startStreamingServer();
  const web = await s.pod('web', ['app'], { containerStatuses: [running('app', 1, { terminated: { exitCode: 1, reason: 'Error', containerID: 'containerd://app0' } })] });
  webUID = web.metadata.uid!;
  s.logs.append(webUID, 'app', 0, 'stdout', 'old life', new Date(t0));
  s.logs.end(webUID, 'app', 0);
  s.logs.append(webUID, 'app', 1, 'stdout', 'line 1', new Date(t0 + 1500));
  s.logs.append(webUID, 'app', 1, 'stderr', 'line 2', new Date(t0 + 2000));
  s.logs.append(webUID, 'app', 1, 'stdout', 'line 3', new Date(t0 + 3250));
  await s.pod('fresh', ['app'], { containerStatuses: [running('app')] });
  await s.pod('two', ['a', 'b'], { containerStatuses: [running('a'), running('b')] });
  await s.pod('starting', ['app'], {
    phase: 'Pending',
    containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: 'busybox', imageID: '', started: false, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} }],
  });
  const recent = await s.pod('recent', ['app'], { containerStatuses: [running('app')] });
  s.logs.append(recent.metadata.uid!, 'app', 0, 'stdout', 'two hours ago', new Date(Date.now() - 2 * 3600_000));
  s.logs.append(recent.metadata.uid!, 'app', 0, 'stdout', 'ten minutes ago', new Date(Date.now() - 600_000));
});

after(async () => { await s.stop(); });

test('logs, --tail, --timestamps, --limit-bytes, --previous, --since', async () => {
  for (const version of ['1.33', '1.27']) {
    const logs = (...args: string[]) => s.kubectl(['logs', ...args], { version });
    assert.deepEqual(await logs('web'), { code: 0, stdout: 'line 1\nline 2\nline 3\n', stderr: '' });
    assert.equal((await logs('web', '--tail=2')).stdout, 'line 2\nline 3\n');
    assert.equal((await logs('web', '--tail=1', '--timestamps')).stdout, '2026-01-01T00:00:03.25Z line 3\n');
    assert.equal((await logs('web', '--timestamps', '--tail=2')).stdout, '2026-01-01T00:00:02Z line 2\n2026-01-01T00:00:03.25Z line 3\n');
    assert.equal((await logs('web', '--limit-bytes=9')).stdout, 'line 1\nli');
    assert.equal((await logs('web', '--previous')).stdout, 'old life\n');
    assert.equal((await logs('web', '--since-time=2026-01-01T00:00:02Z')).stdout, 'line 2\nline 3\n');
    assert.equal((await logs('recent', '--since=1h')).stdout, 'ten minutes ago\n');
    assert.deepEqual(await logs('fresh', '--previous'), {
      code: 1, stdout: '', stderr: 'Error from server (BadRequest): previous terminated container "app" in pod "fresh" not found\n',
    });
    assert.deepEqual(await logs('starting'), {
      code: 1, stdout: '', stderr: 'Error from server (BadRequest): container "app" in pod "starting" is waiting to start: ContainerCreating\n',
    });
    assert.equal((await logs('two', '-c', 'b')).code, 0);
  }
  const raw = await s.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/two/log']);
  assert.equal(raw.stderr, 'Error from server (BadRequest): a container name must be specified for pod two, choose one of: [a b]\n');
});

test('logs -f streams new lines and ends when the container exits', async () => {
  const fresh = (await s.store.get('', 'pods', 'default', 'fresh'))!;
  const uid = fresh.metadata.uid!;
  s.logs.append(uid, 'app', 0, 'stdout', 'before');
  const follow = s.kubectl(['logs', '-f', 'fresh'], { version: '1.33' });
  // The lines below must arrive while kubectl follows: wait until its request is being served.
  while (!s.logs.followed(uid, 'app', 0)) await new Promise((r) => setTimeout(r, 20));
  s.logs.append(uid, 'app', 0, 'stdout', 'after 1');
  s.logs.append(uid, 'app', 0, 'stderr', 'after 2');
  s.logs.end(uid, 'app', 0);
  const r = await follow;
  assert.deepEqual(r, { code: 0, stdout: 'before\nafter 1\nafter 2\n', stderr: '' });
});

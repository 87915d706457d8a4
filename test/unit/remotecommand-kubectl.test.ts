/**
 * exec/attach protocols against the real kubectl: WebSocket v5 (kubectl 1.33),
 * SPDY/3.1 (kubectl 1.27, and 1.33 with WebSockets turned off). The commands
 * run in a small scripted shell here; the emulated shells have tests of their own.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecShellFactory } from '../../src/node/exec/container-streams.js';
import type { Step } from '../../src/node/exec/steps.js';
import { running, startStreamingServer, type StreamingServer } from '../helpers/streaming-server.js';

function* scripted(argv: string[], stdin: string | undefined): Generator<Step, void> {
  const [cmd, ...args] = argv;
  if (cmd === 'echo') { yield { kind: 'stdout', text: args.join(' ') + '\n' }; yield { kind: 'exit', code: 0 }; return; }
  if (cmd === 'sh' && args[0] === '-c') {
    const m = /^exit (\d+)$/.exec(args[1] ?? '');
    if (m) { yield { kind: 'exit', code: Number(m[1]) }; return; }
  }
  if (cmd === 'cat') { yield { kind: 'stdout', text: stdin ?? '' }; yield { kind: 'exit', code: 0 }; return; }
  if (cmd === 'warn') { yield { kind: 'stderr', text: 'careful\n' }; yield { kind: 'stdout', text: 'done\n' }; yield { kind: 'exit', code: 0 }; return; }
  if (cmd === 'big') { yield { kind: 'stdout', text: 'x'.repeat(200_000) + '\n' }; yield { kind: 'exit', code: 0 }; return; }
  if (cmd === 'nap') { yield { kind: 'sleep', ms: 50 }; yield { kind: 'stdout', text: 'awake\n' }; yield { kind: 'exit', code: 0 }; return; }
  yield { kind: 'stderr', text: `sh: ${cmd}: not found\n` };
  yield { kind: 'exit', code: 127 };
}

/** In a shell session only `exit N` ends the shell; other lines just run. */
function* sessionLine(src: string): Generator<Step, void> {
  const m = /^exit (\d+)$/.exec(src.trim());
  if (m) { yield { kind: 'exit', code: Number(m[1]) }; return; }
  for (const step of scripted(src.trim().split(/\s+/), undefined)) if (step.kind !== 'exit') yield step;
}

const shell: ExecShellFactory = () => ({
  program: (argv, stdin) => scripted(argv, stdin?.toString('utf8')),
  session: (argv) => (argv.length === 1 && argv[0] === 'sh'
    ? { prompt: () => '/ # ', line: (src: string) => sessionLine(src) }
    : undefined),
});

let s: StreamingServer;

before(async () => {
  s = await startStreamingServer(shell);
  await s.pod('web', ['app'], { containerStatuses: [running('app')] });
  await s.pod('two', ['a', 'b'], { containerStatuses: [running('a'), running('b')] });
  await s.pod('starting', ['app'], {
    phase: 'Pending',
    containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: 'busybox', imageID: '', started: false, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} }],
  });
  await s.pod('unscheduled', ['app'], { phase: 'Pending' }, '');
});

after(async () => { await s.stop(); });

const modes: { name: string; version: string; env?: Record<string, string> }[] = [
  { name: 'WebSocket v5 (kubectl 1.33)', version: '1.33' },
  { name: 'SPDY (kubectl 1.27)', version: '1.27' },
  { name: 'SPDY fallback (kubectl 1.33, websockets off)', version: '1.33', env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' } },
];

for (const m of modes) {
  test(`${m.name}: output, exit codes, stderr and stdin`, async () => {
    const run = (args: string[], input?: string) => s.kubectl(args, { version: m.version, env: m.env, input });
    let r = await run(['exec', 'web', '--', 'echo', 'hi']);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'hi\n', '']);

    r = await run(['exec', 'web', '--', 'sh', '-c', 'exit 3']);
    assert.deepEqual([r.code, r.stdout, r.stderr], [3, '', 'command terminated with exit code 3\n']);

    r = await run(['exec', 'web', '--', 'warn']);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'done\n', 'careful\n']);

    r = await run(['exec', '-i', 'web', '--', 'cat'], 'input-data\nmore\n');
    assert.deepEqual([r.code, r.stdout], [0, 'input-data\nmore\n']);

    r = await run(['exec', '-i', 'web', '--', 'sh'], 'echo one\nnap\necho two\nexit 4\necho never\n');
    assert.deepEqual([r.code, r.stdout, r.stderr], [4, 'one\nawake\ntwo\n', 'command terminated with exit code 4\n']);

    r = await run(['exec', 'web', '--', 'big']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'x'.repeat(200_000) + '\n');

    r = await run(['exec', 'two', '-c', 'b', '--', 'echo', 'from', 'b']);
    assert.deepEqual([r.code, r.stdout], [0, 'from b\n']);
  });
}

test('exec refusals: the API server\'s as Status objects, the kubelet\'s as upgrade errors', async () => {
  for (const m of modes) {
    const run = (args: string[]) => s.kubectl(args, { version: m.version, env: m.env });
    let r = await run(['exec', 'starting', '--', 'echo', 'hi']);
    assert.equal(r.code, 1, m.name);
    assert.equal(r.stderr, 'error: unable to upgrade connection: container not found ("app")\n', m.name);

    r = await run(['exec', 'unscheduled', '--', 'echo', 'hi']);
    assert.equal(r.stderr, 'Error from server (BadRequest): pod unscheduled does not have a host assigned\n', m.name);

    r = await run(['exec', 'missing', '--', 'echo', 'hi']);
    assert.equal(r.stderr, 'Error from server (NotFound): pods "missing" not found\n', m.name);
  }
  const plain = await s.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true']);
  assert.equal(plain.stderr, 'Error from server (BadRequest): Upgrade request required\n');
  const wrong = await s.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true&container=nope']);
  assert.equal(wrong.stderr, 'Error from server (BadRequest): container nope is not valid for pod web\n');
});

test('attach streams the running instance\'s output until it exits, over WebSocket and SPDY', async () => {
  const web = (await s.store.get('', 'pods', 'default', 'web'))!;
  const uid = web.metadata.uid!;
  for (const [i, version] of ['1.33', '1.27'].entries()) {
    // Each round attaches to a fresh instance number, so the previous round's end does not count.
    await s.store.update(s.store.find('', 'v1', 'pods')!, 'default', 'web', (p: any) => {
      p.status.containerStatuses[0].restartCount = i + 1;
      return p;
    }, { now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {}, namespace: 'default' }, 'status');
    s.logs.append(uid, 'app', i + 1, 'stdout', 'before attach');
    const attach = s.kubectl(['attach', 'web'], { version });
    while (!s.logs.followed(uid, 'app', i + 1)) await new Promise((r) => setTimeout(r, 20));
    s.logs.append(uid, 'app', i + 1, 'stdout', 'live 1');
    s.logs.append(uid, 'app', i + 1, 'stderr', 'live 2');
    s.logs.end(uid, 'app', i + 1);
    const r = await attach;
    assert.deepEqual([r.code, r.stdout], [0, 'live 1\n'], version);
    assert.match(r.stderr, /live 2\n/, version);
  }
  const r = await s.kubectl(['attach', 'starting'], { version: '1.33' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /\nerror: unable to upgrade connection: container app not found in pod starting_default\n$/);
});

test('WebSocket clients offering v4 (the Python client) and base64 framing are served too', async () => {
  const { WebSocket } = await import('ws');
  const { credentials } = await import('../helpers/cluster.js');
  const creds = credentials({ kubeconfig: s.kubeconfigPath } as Parameters<typeof credentials>[0]);
  const talk = (protocol: string) => new Promise<{ protocol: string; messages: string[] }>((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${s.port}/api/v1/namespaces/default/pods/web/exec?command=echo&command=hi&stdout=true&stderr=true`,
      [protocol], { ca: creds.ca, cert: creds.cert, key: creds.key });
    const messages: string[] = [];
    ws.on('message', (d: Buffer, isBinary: boolean) => messages.push(isBinary ? `bin:${d.toString('hex')}` : `txt:${d.toString()}`));
    ws.on('close', () => resolve({ protocol: ws.protocol, messages }));
    ws.on('error', reject);
  });
  const b64 = await talk('v4.base64.channel.k8s.io');
  assert.deepEqual(b64, {
    protocol: 'v4.base64.channel.k8s.io',
    messages: ['txt:1', `txt:1${Buffer.from('hi\n').toString('base64')}`, `txt:3${Buffer.from('{"metadata":{},"status":"Success"}').toString('base64')}`],
  });
  const v4 = await talk('v4.channel.k8s.io');
  assert.deepEqual(v4, {
    protocol: 'v4.channel.k8s.io',
    messages: ['bin:01', `bin:01${Buffer.from('hi\n').toString('hex')}`, `bin:03${Buffer.from('{"metadata":{},"status":"Success"}').toString('hex')}`],
  });
});

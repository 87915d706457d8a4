/**
 * kubectl exec into emulated containers: the kubelet's shell model with the
 * container's environment, hostname and mounted files, sh on Linux nodes and
 * cmd/PowerShell on Windows nodes (the node's OS decides).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { execContext } from '../../src/node/exec/container-context.js';
import { execShellFor } from '../../src/node/exec/shell-exec.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { spawn } from 'node:child_process';
import { kubectlPath } from '../helpers/cluster.js';
import { running, startStreamingServer, type StreamingServer } from '../helpers/streaming-server.js';
import { kubeletClient } from '../helpers/kubelet-client.js';

let s: StreamingServer;

before(async () => {
  let store: StreamingServer['store'] | undefined;
  s = await startStreamingServer(async (pod, container, node) => execShellFor(await execContext(kubeletClient(store!), pod, container, node)));
  store = s.store;
  const ctx = { ...inProcessWriteContext('test'), namespace: 'default' };
  const def = (r: string) => s.store.find('', 'v1', r)!;
  for (const [name, os] of [['linux-1', 'linux'], ['win2022-1', 'windows']]) {
    await s.store.create(def('nodes'), '', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/os': os } } } as KObject, { ...ctx, namespace: '' });
  }
  await s.store.create(def('configmaps'), 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { 'app.conf': 'port=8080\n' } } as KObject, ctx);
  await s.store.create(def('pods'), 'default', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
    spec: {
      nodeName: 'linux-1', automountServiceAccountToken: false,
      containers: [{ name: 'app', image: 'busybox', env: [{ name: 'GREETING', value: 'hello' }], volumeMounts: [{ name: 'cfg', mountPath: '/etc/app' }] }],
      volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }],
    },
  } as KObject, ctx);
  await s.store.update(def('pods'), 'default', 'web', (p: any) => { p.status = { phase: 'Running', containerStatuses: [running('app')] }; return p; }, ctx, 'status');
  await s.pod('winweb', ['iis'], { containerStatuses: [running('iis')] }, 'win2022-1');
});

after(async () => { await s.stop(); });

test('Linux: environment, hostname and mounted configMap files through sh, in both protocol families', async () => {
  for (const version of ['1.33', '1.27']) {
    let r = await s.kubectl(['exec', 'web', '--', 'sh', '-c', 'echo $GREETING from $(hostname); cat /etc/app/app.conf'], { version });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'hello from web\nport=8080\n', ''], version);
    r = await s.kubectl(['exec', 'web', '--', 'sh', '-c', 'exit 3'], { version });
    assert.deepEqual([r.code, r.stderr], [3, 'command terminated with exit code 3\n'], version);
    r = await s.kubectl(['exec', '-i', 'web', '--', 'sh'], { version, input: 'echo hi\necho $GREETING\n' });
    assert.deepEqual([r.code, r.stdout], [0, 'hi\nhello\n'], version);
  }
});

test('an executable the image does not have fails to start, as containerd reports it', async () => {
  for (const version of ['1.33', '1.27']) {
    const r = await s.kubectl(['exec', 'web', '--', 'nosuchtool', '--flag'], { version });
    assert.equal(r.code, 1, version);
    assert.match(r.stderr, /^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchtool": executable file not found in \$PATH: unknown\n$/, version);
  }
  const r = await s.kubectl(['exec', 'web', '--', 'cmd', '/c', 'ver']);
  assert.match(r.stderr, /exec: "cmd": executable file not found in \$PATH: unknown\n$/);
});

test('Windows: cmd and hostname on a Windows node', async () => {
  let r = await s.kubectl(['exec', 'winweb', '--', 'cmd', '/c', 'echo %COMPUTERNAME%'], { version: '1.33' });
  assert.deepEqual([r.code, r.stdout.trim()], [0, 'WINWEB']);
  r = await s.kubectl(['exec', 'winweb', '--', 'hostname'], { version: '1.27' });
  assert.deepEqual([r.code, r.stdout.trim()], [0, 'winweb']);
});

/** Runs kubectl on a pseudo-terminal (Python's pty), typing `keys` once the prompt shows; returns what the terminal showed. */
function onTerminal(args: string[], version: string, keys: string[]): Promise<string> {
  const py = [
    'import pty,os,sys,time,select',
    'keys=[k.encode() for k in sys.argv[-1].split("\\n")]',
    'argv=sys.argv[1:-1]',
    'pid,fd=pty.fork()',
    'if pid==0: os.execvpe(argv[0], argv, os.environ)',
    'out=b""',
    'deadline=time.time()+20',
    'while time.time()<deadline:',
    '  if not select.select([fd],[],[],0.2)[0]: continue',
    '  try: d=os.read(fd,4096)',
    '  except OSError: break',
    '  if not d: break',
    '  out+=d',
    '  if keys and out.rstrip().endswith(b"#"): os.write(fd,keys.pop(0)+b"\\r")',
    'os.kill(pid,9) if time.time()>=deadline else None',
    '_,st=os.waitpid(pid,0)',
    'sys.stdout.write(out.decode()+"rc="+str(os.WEXITSTATUS(st)))',
  ].join('\n');
  return new Promise((resolve) => {
    const p = spawn('python3', ['-c', py, kubectlPath(version), ...args, keys.join('\n')], {
      env: { PATH: process.env.PATH ?? '', KUBECONFIG: s.kubeconfigPath, HOME: `${s.kubeconfigPath}.home${version}` },
    });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', () => resolve(out));
  });
}

test('exec -it on a real terminal: prompt, echo of typed keys, CRLF output, exit code', async () => {
  for (const version of ['1.33', '1.27']) {
    const shown = await onTerminal(['exec', '-it', 'web', '--', 'sh'], version, ['echo $GREETING', 'exit 5']);
    assert.equal(shown, '/ # echo $GREETING\r\nhello\r\n/ # exit 5\r\ncommand terminated with exit code 5\r\nrc=5', version);
  }
});

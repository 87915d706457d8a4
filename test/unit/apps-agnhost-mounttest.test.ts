/**
 * agnhost mounttest and entrypoint-tester as mt.go and ep.go print them,
 * against the modes, owners and filesystem types the kubelet gives volumes
 * (defaultMode, item mode, fsGroup, emptyDir medium).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFileModeString, mounttest, mounttestFlags, type ProcessIdentity } from '../../src/node/apps/agnhost-mounttest.js';
import { agnhost, parseAgnhost } from '../../src/node/apps/agnhost.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { HostDir, type ContainerFS } from '../../src/node/shell/fs.js';
import type { Program } from '../../src/node/shell/types.js';
import { containerFS, refreshVolumeFiles } from '../../src/node/runtime/volumes.js';
import { volumeFileMode } from '../../src/node/runtime/volume-modes.js';

/** Runs a program to its end on a fake clock: its stdout, exit code and the time it slept. */
function run(make: (nowMs: () => number) => Program): { stdout: string; code: number | undefined; sleptMs: number } {
  let now = 0;
  const p = make(() => now);
  let stdout = '';
  for (let r = p.next(); !r.done; r = p.next()) {
    const s = r.value;
    if (s.kind === 'stdout') stdout += s.text;
    else if (s.kind === 'sleep') now += s.ms;
    else if (s.kind === 'exit') return { stdout, code: s.code, sleptMs: now };
    else throw new Error(`unexpected step ${s.kind}`);
  }
  return { stdout, code: undefined, sleptMs: now };
}

const mt = (fs: ContainerFS, args: string[], user: ProcessIdentity = { uid: 0, gid: 0 }) =>
  run((nowMs) => mounttest({ fs, user, nowMs }, mounttestFlags(parseAgnhost(['mounttest', ...args])!.flags)));

const pod = (spec: Record<string, unknown>): KObject => ({ metadata: { name: 'p', namespace: 'ns' }, spec });
const sources = (cm: Record<string, string>, secret: Record<string, string> = {}) => ({
  configMap: () => ({ metadata: { name: 'cm', namespace: 'ns' }, data: cm }) as KObject,
  secret: () => ({ metadata: { name: 's', namespace: 'ns' }, data: Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) }) as KObject,
  services: () => [],
});
const net = { nodeName: 'n', hostIPs: [], podIPs: [], allocatable: { cpu: '2', memory: '4Gi' }, os: 'linux' as const };

function fsOf(p: KObject, emptyDirs = new Map<string, HostDir>()): ContainerFS {
  const c = (p.spec as { containers: Record<string, unknown>[] }).containers[0]!;
  return containerFS(p, c, 'linux', {
    sources: sources({ 'data-1': 'value-1\n', 'data-2': 'value-2\n' }, { 'data-1': 'secret-1\n' }), net,
    emptyDir: (v) => { let d = emptyDirs.get(v); if (!d) { d = new HostDir(); emptyDirs.set(v, d); } return d; },
  });
}

test('Go FileMode strings: type and special bits before rwx', () => {
  assert.equal(goFileModeString(0o644, false), '-rw-r--r--');
  assert.equal(goFileModeString(0o400, false), '-r--------');
  assert.equal(goFileModeString(0o777, true), 'drwxrwxrwx');
  assert.equal(goFileModeString(0o1777, true), 'dtrwxrwxrwx');
  assert.equal(goFileModeString(0o3777, true), 'dgtrwxrwxrwx');
});

test('configMap volume: defaultMode 0644, item mode, content; the mount is ext4 (its statfs magic)', () => {
  const p = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/configmap-volume' }] }],
    volumes: [{ name: 'v', configMap: { name: 'cm', items: [{ key: 'data-2', path: 'path/to/data-2', mode: 0o400 }, { key: 'data-1', path: 'data-1' }] } }] });
  const r = mt(fsOf(p), ['--file_content=/etc/configmap-volume/path/to/data-2', '--file_mode=/etc/configmap-volume/path/to/data-2',
    '--file_perm=/etc/configmap-volume/data-1', '--fs_type=/etc/configmap-volume']);
  assert.deepEqual(r, {
    stdout: 'mount type of "/etc/configmap-volume": 61267\n'
      + 'mode of file "/etc/configmap-volume/path/to/data-2": -r--------\n'
      + 'perms of file "/etc/configmap-volume/data-1": -rw-r--r--\n'
      + 'content of file "/etc/configmap-volume/path/to/data-2": value-2\n\n',
    code: 0, sleptMs: 0,
  });
});

test('secret volume with defaultMode 0440 and fsGroup: mode -r--r-----, group the fsGroup, on tmpfs', () => {
  const p = pod({ securityContext: { runAsUser: 1000, fsGroup: 1001 }, containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/secret-volume' }] }],
    volumes: [{ name: 'v', secret: { secretName: 's', defaultMode: 0o440 } }] });
  const r = mt(fsOf(p), ['--file_content=/etc/secret-volume/data-1', '--file_mode=/etc/secret-volume/data-1', '--file_owner=/etc/secret-volume/data-1',
    '--fs_type=/etc/secret-volume'], { uid: 1000, gid: 0 });
  assert.equal(r.stdout, 'mount type of "/etc/secret-volume": tmpfs\n'
    + 'mode of file "/etc/secret-volume/data-1": -r--r-----\n'
    + 'owner UID of "/etc/secret-volume/data-1": 0\nowner GID of "/etc/secret-volume/data-1": 1001\n'
    + 'content of file "/etc/secret-volume/data-1": secret-1\n\n');
  assert.equal(r.code, 0);
});

test('fsGroup ORs 0440 into an atomic writer file: 0400 becomes 0440', () => {
  const p = pod({ securityContext: { fsGroup: 1001 }, containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    volumes: [{ name: 'v', downwardAPI: { defaultMode: 0o400, items: [{ path: 'podname', fieldRef: { fieldPath: 'metadata.name' } }] } }] });
  assert.equal(mt(fsOf(p), ['--file_mode=/v/podname']).stdout, 'mode of file "/v/podname": -r--r-----\n');
});

test('projected volume: item mode over defaultMode, defaultMode over 0644', () => {
  const v = { projected: { defaultMode: 0o600, sources: [{ configMap: { name: 'cm', items: [{ key: 'data-1', path: 'a', mode: 0o400 }, { key: 'data-2', path: 'b' }] } }] } };
  assert.deepEqual([volumeFileMode(v, 'a'), volumeFileMode(v, 'b')], [0o400, 0o600]);
  assert.equal(volumeFileMode({ secret: { secretName: 's' } }, 'x'), 0o644);
});

test('emptyDir: new files get the asked mode under umask 0; default medium 0777, Memory 1777 on tmpfs', () => {
  const mk = (medium?: string) => pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'test-volume', mountPath: '/test-volume' }] }],
    volumes: [{ name: 'test-volume', emptyDir: medium ? { medium } : {} }] });
  assert.deepEqual(mt(fsOf(mk()), ['--fs_type=/test-volume', '--new_file_0644=/test-volume/test-file', '--file_perm=/test-volume/test-file']), {
    stdout: 'mount type of "/test-volume": 61267\ncontent of file "/test-volume/test-file": mount-tester new file\n\n'
      + 'perms of file "/test-volume/test-file": -rw-r--r--\n', code: 0, sleptMs: 0,
  });
  assert.equal(mt(fsOf(mk('Memory')), ['--fs_type=/test-volume', '--file_perm=/test-volume', '--file_mode=/test-volume']).stdout,
    'mount type of "/test-volume": tmpfs\nmode of file "/test-volume": dtrwxrwxrwx\nperms of file "/test-volume": -rwxrwxrwx\n');
  assert.equal(mt(fsOf(mk()), ['--file_mode=/test-volume']).stdout, 'mode of file "/test-volume": drwxrwxrwx\n');
});

test('emptyDir with fsGroup: the directory is setgid, so a non-root process\'s new file takes the fsGroup', () => {
  const p = pod({ securityContext: { runAsUser: 1001, fsGroup: 123 }, containers: [{ name: 'c', volumeMounts: [{ name: 'test-volume', mountPath: '/test-volume' }] }],
    volumes: [{ name: 'test-volume', emptyDir: { medium: 'Memory' } }] });
  const r = mt(fsOf(p), ['--new_file_0660=/test-volume/test-file', '--file_perm=/test-volume/test-file', '--file_owner=/test-volume/test-file', '--file_mode=/test-volume'],
    { uid: 1001, gid: 0 });
  assert.equal(r.stdout, 'content of file "/test-volume/test-file": mount-tester new file\n\n'
    + 'mode of file "/test-volume": dgtrwxrwxrwx\nperms of file "/test-volume/test-file": -rw-rw----\n'
    + 'owner UID of "/test-volume/test-file": 1001\nowner GID of "/test-volume/test-file": 123\n');
});

test('emptyDir is one directory for every container of the pod', () => {
  const dirs = new Map<string, HostDir>();
  const spec = (path: string) => pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'shared', mountPath: path }] }], volumes: [{ name: 'shared', emptyDir: {} }] });
  const writer = fsOf(spec('/pod-data'), dirs);
  assert.equal(writer.write('/pod-data/shareddata.txt', 'hello\n'), 'ok');
  assert.equal(fsOf(spec('/usr/share/volumeshare'), dirs).read('/usr/share/volumeshare/shareddata.txt'), 'hello\n');
});

test('failures print their line, the rest still runs, and the exit code is 1', () => {
  const p = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/cm' }] }], volumes: [{ name: 'v', configMap: { name: 'cm' } }] });
  assert.deepEqual(mt(fsOf(p), ['--new_file_0644=/etc/cm/new', '--file_mode=/nope', '--file_content=/etc/cm/data-1']), {
    stdout: 'error writing new file "/etc/cm/new": open /etc/cm/new: read-only file system\n'
      + 'error from Stat("/nope"): stat /nope: no such file or directory\n'
      + 'content of file "/etc/cm/data-1": value-1\n\n',
    code: 1, sleptMs: 0,
  });
});

test('--file_content_in_loop without breaking: reads every 2 s until --retry_time has passed', () => {
  const p = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/cm' }] }], volumes: [{ name: 'v', configMap: { name: 'cm' } }] });
  const r = mt(fsOf(p), ['--break_on_expected_content=false', '--retry_time=5', '--file_content_in_loop=/etc/cm/data-1']);
  const line = 'content of file "/etc/cm/data-1": value-1\n\n';
  assert.deepEqual(r, { stdout: line.repeat(3), code: 0, sleptMs: 6000 });
  const missing = mt(fsOf(p), ['--retry_time=3', '--file_content_in_loop=/etc/cm/nope']);
  assert.deepEqual(missing, { stdout: 'Error reading file /etc/cm/nope: open /etc/cm/nope: no such file or directory, retrying\n'.repeat(2), code: 1, sleptMs: 4000 });
});

test('entrypoint-tester prints os.Args as Go formats a []string, with the binary the command names', () => {
  const out = (command: string[], args: string[]) => {
    const app = applicationFor({ image: 'registry.k8s.io/e2e-test-images/agnhost:2.32', command, args })!;
    return run(() => app({ now: () => new Date(0), hostname: 'h', cpus: 1, env: {} }));
  };
  assert.deepEqual(out([], ['entrypoint-tester', 'override', 'arguments']), { stdout: '[/agnhost entrypoint-tester override arguments]\n', code: 0, sleptMs: 0 });
  assert.deepEqual(out(['/agnhost-2'], ['entrypoint-tester']), { stdout: '[/agnhost-2 entrypoint-tester]\n', code: 0, sleptMs: 0 });
  assert.equal(agnhost({ now: () => new Date(0), hostname: 'h', cpus: 1, env: {} }, ['no-such-subcommand']), undefined);
});

test('k8s.gcr.io, the registry\'s former name, serves the same agnhost', () => {
  const app = applicationFor({ image: 'k8s.gcr.io/e2e-test-images/agnhost:2.33', command: [], args: ['entrypoint-tester'] })!;
  assert.deepEqual(run(() => app({ now: () => new Date(0), hostname: 'h', cpus: 1, env: {} })), { stdout: '[/agnhost entrypoint-tester]\n', code: 0, sleptMs: 0 });
});

test('agnhost without command or args runs its CMD, pause', () => {
  const app = applicationFor({ image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', command: [], args: [] })!;
  const p = app({ now: () => new Date(0), hostname: 'h', cpus: 1, env: {} });
  assert.deepEqual(p.next().value, { kind: 'stdout', text: 'Paused\n' });
});

test('downward API resource files: an unset divisor ("0") is 1; a missing limit is the node\'s allocatable', () => {
  const p = pod({ containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '32Mi' } }, volumeMounts: [{ name: 'v', mountPath: '/etc/podinfo' }] }],
    volumes: [{ name: 'v', downwardAPI: { items: [
      { path: 'cpu_request', resourceFieldRef: { containerName: 'c', resource: 'requests.cpu', divisor: '0' } },
      { path: 'cpu_request_m', resourceFieldRef: { containerName: 'c', resource: 'requests.cpu', divisor: '1m' } },
      { path: 'memory_request', resourceFieldRef: { containerName: 'c', resource: 'requests.memory', divisor: '0' } },
      { path: 'cpu_limit', resourceFieldRef: { containerName: 'c', resource: 'limits.cpu', divisor: '0' } },
      { path: 'memory_limit', resourceFieldRef: { containerName: 'c', resource: 'limits.memory' } },
    ] } }] });
  const fs = fsOf(p);
  assert.deepEqual(['cpu_request', 'cpu_request_m', 'memory_request', 'cpu_limit', 'memory_limit'].map((f) => fs.read(`/etc/podinfo/${f}`)),
    ['1', '250', '33554432', '2', String(4 * 1024 ** 3)]);
});

test('a running container\'s volumes are remounted with the sources\' new data; subPath mounts keep theirs', () => {
  const p = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/cm' }, { name: 'v', mountPath: '/one', subPath: 'data-1' }] }],
    volumes: [{ name: 'v', configMap: { name: 'cm', defaultMode: 0o400 } }] });
  const fs = fsOf(p);
  const c = (p.spec as { containers: Record<string, unknown>[] }).containers[0]!;
  refreshVolumeFiles(fs, p, c, 'linux', new Map([['v', new Map([['data-3', 'value-3\n']])]]));
  assert.deepEqual([fs.list('/etc/cm'), fs.read('/etc/cm/data-3'), fs.read('/one')], [['data-3'], 'value-3\n', 'value-1\n']);
  assert.equal(mt(fs, ['--file_mode=/etc/cm/data-3']).stdout, 'mode of file "/etc/cm/data-3": -r--------\n');
});

/**
 * A subPath of an emptyDir binds that directory of the pod's one emptyDir
 * (created when missing, as the kubelet's makeMounts does): what is written
 * through one mount is read through the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, interpret } from '../../src/node/shell/index.js';
import { containerFS, type VolumeContext } from '../../src/node/runtime/volumes.js';
import { HostDir } from '../../src/node/shell/fs.js';
import type { KObject } from '../../src/apimachinery/object.js';

const dirs = new Map<string, HostDir>();
const VCTX = {
  sources: { configMap: () => undefined, secret: () => undefined, services: () => [] },
  net: { nodeName: 'n', hostIPs: [], podIPs: [], allocatable: { cpu: '1', memory: '1Gi' }, os: 'linux' },
  emptyDir: (v: string) => { let d = dirs.get(v); if (!d) { d = new HostDir(); dirs.set(v, d); } return d; },
} as unknown as VolumeContext;

const pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { volumes: [{ name: 'workdir1', emptyDir: {} }] } } as unknown as KObject;

test('emptyDir subPath: the directory exists in the volume and shares its files with the whole-volume mount', () => {
  dirs.clear();
  const fs = containerFS(pod, { name: 'c', volumeMounts: [
    { name: 'workdir1', mountPath: '/subpath_mount', subPath: 'mypath/foo' },
    { name: 'workdir1', mountPath: '/volume_mount' },
  ] }, 'linux', VCTX);
  const run = (script: string) => collect(interpret(['sh', '-c', script], { os: 'linux', env: {}, hostname: 'p', fs }));
  assert.deepEqual(run('test -d /volume_mount/mypath/foo; echo $?; ls /volume_mount /volume_mount/mypath').stdout, '0\n/volume_mount:\nmypath\n\n/volume_mount/mypath:\nfoo\n');
  assert.equal(run('touch /volume_mount/mypath/foo/test.log && test -f /subpath_mount/test.log && echo yes').stdout, 'yes\n');
  assert.equal(run('echo hi > /subpath_mount/b && cat /volume_mount/mypath/foo/b').stdout, 'hi\n');
  assert.equal(run('rm -r /subpath_mount').stderr, "rm: can't remove '/subpath_mount': Read-only file system\n");
});

test('emptyDir subPath: another container of the pod sees the directory the first one wrote into', () => {
  dirs.clear();
  const a = containerFS(pod, { name: 'a', volumeMounts: [{ name: 'workdir1', mountPath: '/logs', subPath: 'a' }] }, 'linux', VCTX);
  const b = containerFS(pod, { name: 'b', volumeMounts: [{ name: 'workdir1', mountPath: '/all' }] }, 'linux', VCTX);
  collect(interpret(['sh', '-c', 'echo x > /logs/out'], { os: 'linux', env: {}, hostname: 'p', fs: a }));
  assert.equal(collect(interpret(['cat', '/all/a/out'], { os: 'linux', env: {}, hostname: 'p', fs: b })).stdout, 'x\n');
});

test('emptyDir subPath on Windows: the directory keeps the case it was named with', () => {
  dirs.clear();
  const fs = containerFS(pod, { name: 'c', volumeMounts: [
    { name: 'workdir1', mountPath: 'C:\\logs', subPath: 'Logs/App' },
    { name: 'workdir1', mountPath: 'C:\\all' },
  ] }, 'windows', VCTX);
  const run = (script: string) => collect(interpret(['cmd', '/c', script], { os: 'windows', env: {}, hostname: 'p', fs }));
  run('echo x> C:\\logs\\Out.txt');
  assert.deepEqual(fs.list('C:\\all'), ['Logs']);
  assert.deepEqual(fs.list('C:\\all\\logs\\app'), ['Out.txt']);
});

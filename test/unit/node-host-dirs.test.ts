/**
 * hostPath volumes are the node's directories: the pods of one node share
 * what they write there, pods of another node do not see it, a read-only
 * mount reads but does not write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, interpret } from '../../src/node/shell/index.js';
import { containerFS, type VolumeContext } from '../../src/node/runtime/volumes.js';
import { HostDirs } from '../../src/node/kubelet/host-dirs.js';
import type { KObject } from '../../src/apimachinery/object.js';

function podFS(nodeDirs: HostDirs, os: 'linux' | 'windows', hostPath: string, mountPath: string, readOnly = false) {
  const vctx = {
    sources: { configMap: () => undefined, secret: () => undefined, services: () => [] },
    net: { nodeName: 'n', hostIPs: [], podIPs: [], allocatable: { cpu: '1', memory: '1Gi' }, os },
    hostDir: (p: string) => nodeDirs.get(p),
  } as unknown as VolumeContext;
  const pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { volumes: [{ name: 'h', hostPath: { path: hostPath } }] } } as unknown as KObject;
  return containerFS(pod, { name: 'c', volumeMounts: [{ name: 'h', mountPath, readOnly }] }, os, vctx);
}
const sh = (fs: ReturnType<typeof podFS>, script: string) => collect(interpret(['sh', '-c', script], { os: 'linux', env: {}, hostname: 'p', fs }));
const cmd = (fs: ReturnType<typeof podFS>, line: string) => collect(interpret(['cmd', '/c', line], { os: 'windows', env: {}, hostname: 'p', fs }));

test('Linux: two pods of one node share a hostPath; a pod of another node does not see it', () => {
  const node1 = new HostDirs('linux');
  const node2 = new HostDirs('linux');
  const a = podFS(node1, 'linux', '/var/data', '/data');
  const b = podFS(node1, 'linux', '/var/data/', '/mnt/shared');
  const c = podFS(node2, 'linux', '/var/data', '/data');
  assert.equal(sh(a, 'mkdir /data/sub && echo hello > /data/sub/f.txt').code, 0);
  assert.deepEqual(sh(b, 'cat /mnt/shared/sub/f.txt'), { stdout: 'hello\n', stderr: '', code: 0, slept: 0 });
  assert.equal(sh(b, 'ls /mnt/shared').stdout, 'sub\n');
  assert.deepEqual(sh(c, 'cat /data/sub/f.txt'), { stdout: '', stderr: 'cat: can\'t open \'/data/sub/f.txt\': No such file or directory\n', code: 1, slept: 0 });
  assert.equal(sh(b, 'rm /mnt/shared/sub/f.txt').code, 0);
  assert.equal(sh(a, 'cat /data/sub/f.txt').code, 1);
});

test('Windows: host paths compare case-insensitively; a read-only mount reads the node\'s files but cannot write', () => {
  const node = new HostDirs('windows');
  const writer = podFS(node, 'windows', 'C:\\Logs', 'C:\\logs');
  const reader = podFS(node, 'windows', 'c:/logs', 'D:\\ro', true);
  assert.equal(cmd(writer, 'echo line> C:\\logs\\app.log').code, 0);
  assert.deepEqual(cmd(reader, 'type D:\\ro\\app.log'), { stdout: 'line\r\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(cmd(reader, 'echo x> D:\\ro\\other.log'), { stdout: '', stderr: 'Access is denied.\r\n', code: 1, slept: 0 });
});

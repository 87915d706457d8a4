/** busybox's sysctl over a container's /proc/sys, and the runtime's read-only root filesystem, as the shell meets them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { collect, interpret } from '../../src/node/shell/index.js';
import { ContainerFS } from '../../src/node/shell/fs.js';
import { applyRuntimeFS } from '../../src/node/kubelet/runtime-fs.js';

const POD: Pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } } };

function run(argv: string[], container: Container = { name: 'c' }) {
  const fs = new ContainerFS('linux');
  fs.mountDir('/data', false);
  fs.mountFile('/etc/hosts', '127.0.0.1\tlocalhost\n', false);
  applyRuntimeFS(fs, POD, container, 'linux');
  return collect(interpret(argv, { os: 'linux', env: {}, hostname: 'p', fs, image: 'busybox:1.29' }));
}

test('sysctl: the pod\'s value as key = value; -n the value only; an unknown key fails', () => {
  assert.deepEqual(pick(run(['/bin/sysctl', 'kernel.shm_rmid_forced'])), { stdout: 'kernel.shm_rmid_forced = 1\n', stderr: '', code: 0 });
  assert.deepEqual(pick(run(['sysctl', '-n', 'net/ipv4/ip_local_port_range', 'kernel.shm_rmid_forced'])), { stdout: '32768\t60999\n1\n', stderr: '', code: 0 });
  assert.deepEqual(pick(run(['sysctl', 'kernel.msgmax'])), { stdout: '', stderr: "sysctl: error: 'kernel.msgmax' is an unknown key\n", code: 1 });
  assert.deepEqual(pick(run(['sysctl', '-e', 'kernel.msgmax'])), { stdout: '', stderr: '', code: 1 });
  assert.deepEqual(pick(run(['sysctl', '-w', 'kernel.shm_rmid_forced=0'])),
    { stdout: '', stderr: "sysctl: error setting key 'kernel.shm_rmid_forced': Read-only file system\n", code: 1 });
  assert.deepEqual(pick(run(['sh', '-c', 'sysctl kernel | head -n 1'])), { stdout: 'kernel.shm_rmid_forced = 1\n', stderr: '', code: 0 });
  assert.deepEqual(pick(run(['sysctl', 'net.ipv4.tcp_syncookies=0'])),
    { stdout: '', stderr: "sysctl: error setting key 'net.ipv4.tcp_syncookies': Read-only file system\n", code: 1 });
  assert.deepEqual(pick(run(['sysctl', 'kernel.shm_rmid_forced='])), { stdout: '', stderr: "sysctl: error: malformed setting 'kernel.shm_rmid_forced='\n", code: 1 });
  assert.deepEqual(pick(run(['sysctl'])), { stdout: '', stderr: '', code: 0 });
});

test('sysctl: a dotted name turns as few dots into slashes as name an existing file', () => {
  const fs = new ContainerFS('linux');
  fs.mountFile('/proc/sys/net/ipv4/conf/eth0.100/mc_forwarding', '0\n', true);
  fs.mountFile('/proc/sys/net/ipv4/conf/eth0/mc_forwarding', '1\n', true);
  const r = collect(interpret(['sysctl', 'net.ipv4.conf.eth0.100.mc_forwarding', 'net.ipv4.conf.eth0.mc_forwarding'], { os: 'linux', env: {}, hostname: 'p', fs, image: 'busybox:1.29' }));
  assert.deepEqual(pick(r), { stdout: 'net.ipv4.conf.eth0.100.mc_forwarding = 0\nnet.ipv4.conf.eth0.mc_forwarding = 1\n', stderr: '', code: 0 });
});

test('readOnlyRootFilesystem: the image\'s files cannot be written, volumes and /dev still can', () => {
  const ro = { name: 'c', securityContext: { readOnlyRootFilesystem: true } };
  assert.deepEqual(pick(run(['/bin/sh', '-c', 'echo test > /file'], ro)), { stdout: '', stderr: "/bin/sh: can't create /file: Read-only file system\n", code: 1 });
  assert.deepEqual(pick(run(['sh', '-c', 'mkdir /tmp/x'], ro)), { stdout: '', stderr: "mkdir: can't create directory '/tmp/x': Read-only file system\n", code: 1 });
  assert.deepEqual(pick(run(['sh', '-c', 'echo a > /data/f && cat /data/f && echo b > /etc/hosts && echo c > /dev/termination-log && echo ok'], ro)),
    { stdout: 'a\nok\n', stderr: '', code: 0 });
  assert.deepEqual(pick(run(['sh', '-c', 'echo test > /file && cat /file'])), { stdout: 'test\n', stderr: '', code: 0 });
});

function pick(r: { stdout: string; stderr: string; code: number | 'forever' }) { return { stdout: r.stdout, stderr: r.stderr, code: r.code }; }

/** The kubelet's sysctl allowlist admission (SysctlForbidden) and the values a container's /proc/sys then holds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { containerSysctls, sysctlAdmission, sysctlProcPath } from '../../src/node/kubelet/sysctls.js';

const pod = (sysctls: { name: string; value: string }[], extra: Partial<NonNullable<Pod['spec']>> = {}): Pod =>
  ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], securityContext: { sysctls }, ...extra } });

test('sysctl admission: safe sysctls are admitted; anything else is SysctlForbidden with the allowlist error', () => {
  assert.equal(sysctlAdmission(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }]), 'linux'), undefined);
  assert.equal(sysctlAdmission(pod([{ name: 'net.ipv4.tcp_rmem', value: '4096 87380 6291456' }]), 'linux'), undefined);
  assert.equal(sysctlAdmission(pod([]), 'linux'), undefined);
  assert.deepEqual(sysctlAdmission(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'kernel.msgmax', value: '10000000000' }]), 'linux'),
    { reason: 'SysctlForbidden', message: 'forbidden sysctl: "kernel.msgmax" not allowlisted' });
  assert.equal(sysctlAdmission(pod([{ name: 'kernel.msgmax', value: '1' }]), 'linux', ['kernel.msgmax']), undefined);
});

test('sysctl admission: a safe sysctl of a namespace shared with the host is refused; Windows allows none', () => {
  assert.deepEqual(sysctlAdmission(pod([{ name: 'net.ipv4.tcp_syncookies', value: '1' }], { hostNetwork: true }), 'linux'),
    { reason: 'SysctlForbidden', message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host Net enabled' });
  assert.deepEqual(sysctlAdmission(pod([{ name: 'kernel/shm_rmid_forced', value: '1' }], { hostIPC: true }), 'linux'),
    { reason: 'SysctlForbidden', message: 'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host IPC enabled' });
  assert.deepEqual(sysctlAdmission(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }]), 'windows'),
    { reason: 'SysctlForbidden', message: 'forbidden sysctl: "kernel.shm_rmid_forced" not allowlisted' });
});

test('sysctl values: /proc/sys paths, container values over the defaults', () => {
  assert.equal(sysctlProcPath('net.ipv4.conf.eno2/100.rp_filter'), '/proc/sys/net/ipv4/conf/eno2.100/rp_filter');
  const values = containerSysctls(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }]));
  assert.equal(values.get('kernel.shm_rmid_forced'), '1');
  assert.equal(values.get('net.ipv4.ip_local_port_range'), '32768\t60999');
});

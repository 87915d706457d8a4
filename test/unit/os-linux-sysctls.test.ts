/** Which namespace a sysctl belongs to (component-helpers' GetNamespace), for validation and the kubelet alike. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeSysctlName, sysctlNamespace } from '../../src/os/linux-sysctls.js';

test('names written with slashes are normalised to dots, a slash inside a segment kept as one', () => {
  assert.equal(normalizeSysctlName('net/ipv4/conf/eno2.100/rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
  assert.equal(normalizeSysctlName('net.ipv4.conf.eno2/100.rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
  assert.equal(normalizeSysctlName('vm'), 'vm');
});

test('IPC: the semaphore, shared memory and message queue names and fs.mqueue.*; Net: net.*; the rest belong to the node', () => {
  for (const ipc of ['kernel.sem', 'kernel.shmmax', 'kernel.shm_rmid_forced', 'kernel.msgmax', 'kernel.msgmnb', 'kernel/msgmni', 'fs.mqueue.msg_max', 'kernel.msg*']) {
    assert.equal(sysctlNamespace(ipc), 'ipc', ipc);
  }
  for (const net of ['net.core.somaxconn', 'net/ipv4/tcp_syncookies', 'net.ipv6.neigh.*']) assert.equal(sysctlNamespace(net), 'net', net);
  // Only the names above are IPC; a prefix is no namespace without its separator.
  for (const node of ['vm.swappiness', 'kernel.shmfoo', 'kernel.msg_next_id', 'kernel.domainname', 'netfilter.x', 'fs.mqueue', 'net']) {
    assert.equal(sysctlNamespace(node), undefined, node);
  }
});

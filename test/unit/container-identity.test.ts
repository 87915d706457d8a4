/**
 * The uid and groups a Linux container's process runs as (the pod's and the
 * container's securityContext) and what `id` and `whoami` print for them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { processIdentity } from '../../src/node/runtime/process-identity.js';
import { idCommand, ROOT_IDENTITY, whoamiCommand } from '../../src/node/shell/posix-id.js';
import { collect, ContainerFS, interpret } from '../../src/node/shell/index.js';
import { isNonewprivsImage } from '../../src/node/shell/image-nonewprivs.js';

const pod = (sc: NonNullable<Pod['spec']>['securityContext']): Pod => ({ metadata: { name: 'p' }, spec: { containers: [], securityContext: sc } });
const c: Container = { name: 'c', image: 'busybox' };

test('identity: the container securityContext over the pod, fsGroup and supplementalGroups sorted into the groups', () => {
  assert.deepEqual(processIdentity(pod(undefined), c), { uid: 0, gid: 0, groups: [0] });
  assert.deepEqual(processIdentity(pod({ runAsUser: 1001, runAsGroup: 2002 }), c), { uid: 1001, gid: 2002, groups: [2002] });
  assert.deepEqual(processIdentity(pod({ runAsUser: 1001, runAsGroup: 2002 }), { ...c, securityContext: { runAsUser: 1002, runAsGroup: 2003 } }),
    { uid: 1002, gid: 2003, groups: [2003] });
  assert.deepEqual(processIdentity(pod({ runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000, 3000] }), c),
    { uid: 1000, gid: 3000, groups: [2000, 3000, 4000] });
  // An unknown uid without a group runs with gid 0 (runc: no passwd entry).
  assert.deepEqual(processIdentity(pod(undefined), { ...c, securityContext: { runAsUser: 65534 } }), { uid: 65534, gid: 0, groups: [0] });
});

test('id: names for root only, -u -g -G, -n for an unknown uid fails', () => {
  const who = { uid: 1001, gid: 2002, groups: [2002, 3000] };
  assert.deepEqual(idCommand(ROOT_IDENTITY, []), { out: 'uid=0(root) gid=0(root) groups=0(root)\n', err: '', code: 0 });
  assert.deepEqual(idCommand(who, []), { out: 'uid=1001 gid=2002 groups=2002,3000\n', err: '', code: 0 });
  assert.deepEqual(idCommand(who, ['-u']), { out: '1001\n', err: '', code: 0 });
  assert.deepEqual(idCommand(who, ['-g']), { out: '2002\n', err: '', code: 0 });
  assert.deepEqual(idCommand(who, ['-G']), { out: '2002 3000\n', err: '', code: 0 });
  assert.deepEqual(idCommand(ROOT_IDENTITY, ['-un']), { out: 'root\n', err: '', code: 0 });
  assert.deepEqual(idCommand(who, ['-un']), { out: '1001\n', err: '', code: 1 });
  assert.deepEqual(whoamiCommand(who), { out: '', err: 'whoami: unknown uid 1001\n', code: 1 });
  assert.deepEqual(whoamiCommand(ROOT_IDENTITY), { out: 'root\n', err: '', code: 0 });
});

test('the shell runs id as the context identity', () => {
  const r = collect(interpret(['sh', '-c', 'id; id -u'], { os: 'linux', env: {}, hostname: 'p', fs: new ContainerFS('linux'), identity: { uid: 65534, gid: 0, groups: [0] } }), 100);
  assert.deepEqual(r, { stdout: 'uid=65534 gid=0(root) groups=0(root)\n65534\n', stderr: '', code: 0, slept: 0 });
});

test('nonewprivs: the setuid nnp runs as root unless allowPrivilegeEscalation is false', () => {
  const run = (sc: Container['securityContext']) => collect(interpret([], { os: 'linux', env: {}, hostname: 'p', fs: new ContainerFS('linux'),
    image: 'registry.k8s.io/e2e-test-images/nonewprivs:1.3', identity: processIdentity(pod(undefined), { ...c, securityContext: sc }) }), 10);
  assert.deepEqual(run({ runAsUser: 1000, allowPrivilegeEscalation: false }), { stdout: 'Effective uid: 1000\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(run({ runAsUser: 1000, allowPrivilegeEscalation: true }), { stdout: 'Effective uid: 0\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(run({ runAsUser: 1000 }), { stdout: 'Effective uid: 0\n', stderr: '', code: 0, slept: 0 });
  assert.equal(isNonewprivsImage('k8s.gcr.io/e2e-test-images/nonewprivs:1.3'), true);
  assert.equal(isNonewprivsImage('busybox:1.36'), false);
});

test('ip link add: refused without CAP_NET_ADMIN, allowed in a privileged container; other ip forms are not there', () => {
  const run = (sc: Container['securityContext'], script: string) => collect(interpret(['sh', '-c', script], { os: 'linux', env: {}, hostname: 'p', fs: new ContainerFS('linux'),
    identity: processIdentity(pod(undefined), { ...c, securityContext: sc }) }), 20);
  assert.deepEqual(run({ privileged: false }, 'ip link add dummy0 type dummy || true'),
    { stdout: '', stderr: 'ip: RTNETLINK answers: Operation not permitted\n', code: 0, slept: 0 });
  assert.deepEqual(run({ privileged: true }, 'ip link add dummy0 type dummy; echo $?'), { stdout: '0\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(run({ capabilities: { add: ['NET_ADMIN'] } }, 'ip link add dummy0 type dummy; echo $?'), { stdout: '0\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(run({ privileged: true, runAsUser: 1000 }, 'ip link add dummy0 type dummy; echo $?'),
    { stdout: '2\n', stderr: 'ip: RTNETLINK answers: Operation not permitted\n', code: 0, slept: 0 });
  assert.deepEqual(run({}, 'ip addr'), { stdout: '', stderr: 'sh: ip: not found\n', code: 127, slept: 0 });
});

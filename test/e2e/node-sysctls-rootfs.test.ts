import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/**
 * Container facts of the sig-node conformance tests: a read-only root
 * filesystem, pod sysctls read back with busybox's sysctl (and an unsafe
 * one rejected by the kubelet), and a subPathExpr of an emptyDir that is a
 * directory of the same volume.
 */
let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);
const jsonpath = (name: string, path: string) => ok(['get', 'pod', name, '-o', `jsonpath=${path}`]);
const running = (name: string) => eventually(`${name} running`, async () => ((await jsonpath(name, '{.status.phase}')) === 'Running' ? true : undefined));

test('readOnlyRootFilesystem: busybox sh cannot create a file in /, a volume stays writable', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: rofs}
spec:
  nodeName: linux-1
  restartPolicy: Never
  volumes: [{name: scratch, emptyDir: {}}]
  containers:
  - name: main
    image: k8s.gcr.io/e2e-test-images/busybox:1.29-2
    command: ["/bin/sh", "-c", "echo test > /file; sleep 240"]
    securityContext: {readOnlyRootFilesystem: true}
    volumeMounts: [{name: scratch, mountPath: /scratch}]
`);
  await running('rofs');
  assert.equal(await eventually('rofs log', async () => (await ok(['logs', 'rofs'])) || undefined), '/bin/sh: can\'t create /file: Read-only file system\n');
  assert.equal(await ok(['exec', 'rofs', '--', 'sh', '-c', 'echo x > /scratch/f; cat /scratch/f; mkdir /tmp/d || true']), 'x\n');
});

test('sysctls: the pod\'s kernel.shm_rmid_forced read by /bin/sysctl; an unsafe sysctl is SysctlForbidden', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: sysctl-safe}
spec:
  nodeName: linux-1
  restartPolicy: Never
  securityContext: {sysctls: [{name: kernel.shm_rmid_forced, value: "1"}]}
  containers:
  - {name: main, image: "k8s.gcr.io/e2e-test-images/busybox:1.29-2", command: ["/bin/sysctl", "kernel.shm_rmid_forced"]}
---
apiVersion: v1
kind: Pod
metadata: {name: sysctl-unsafe}
spec:
  nodeName: linux-1
  restartPolicy: Never
  securityContext: {sysctls: [{name: kernel.msgmax, value: "10000000000"}]}
  containers:
  - {name: main, image: "k8s.gcr.io/e2e-test-images/busybox:1.29-2", command: ["/bin/sysctl", "kernel.msgmax"]}
`);
  assert.equal(await eventually('sysctl-safe succeeded', async () => {
    const p = await jsonpath('sysctl-safe', '{.status.phase}');
    return p === 'Succeeded' || p === 'Failed' ? p : undefined;
  }), 'Succeeded');
  assert.equal(await ok(['logs', 'sysctl-safe']), 'kernel.shm_rmid_forced = 1\n');
  assert.equal(await eventually('sysctl-unsafe rejected', async () => (await jsonpath('sysctl-unsafe', '{.status.phase}')) === 'Failed'
    ? jsonpath('sysctl-unsafe', '{.status.reason}|{.status.message}') : undefined),
  'SysctlForbidden|Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted');
});

test('subPathExpr of an emptyDir: the expanded directory exists in the volume and files written through either mount are shared', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: subpaths, annotations: {mysubpath: mypath}}
spec:
  nodeName: linux-1
  volumes: [{name: workdir1, emptyDir: {}}]
  containers:
  - name: main
    image: k8s.gcr.io/e2e-test-images/busybox:1.29-2
    command: ["sh", "-c", "test -d /volume_mount/subpaths; echo $?; tail -f /dev/null"]
    env:
    - {name: POD_NAME, value: subpaths}
    - name: ANNOTATION
      valueFrom: {fieldRef: {apiVersion: v1, fieldPath: "metadata.annotations['mysubpath']"}}
    volumeMounts:
    - {name: workdir1, mountPath: /logscontainer, subPathExpr: "$(POD_NAME)"}
    - {name: workdir1, mountPath: /subpath_mount, subPathExpr: "$(ANNOTATION)/$(POD_NAME)"}
    - {name: workdir1, mountPath: /volume_mount}
`);
  await running('subpaths');
  assert.equal(await ok(['logs', 'subpaths']), '0\n');
  await ok(['exec', 'subpaths', '--', 'sh', '-c', 'touch /volume_mount/mypath/subpaths/test.log']);
  assert.equal(await ok(['exec', 'subpaths', '--', 'sh', '-c', 'test -f /subpath_mount/test.log && echo found']), 'found\n');
});

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { credentials, eventually, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/**
 * What the conformance tests read inside Linux containers and of their
 * statuses: the process's ids, the kubelet-managed /etc/hosts, termination
 * messages, an updated activeDeadlineSeconds, lifecycle hooks that call
 * another pod, and a container's log over a WebSocket.
 */
let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);
const jsonpath = (name: string, path: string) => ok(['get', 'pod', name, '-o', `jsonpath=${path}`]);

test('id and /etc/hosts: runAsUser, runAsGroup, fsGroup and supplementalGroups; hostAliases in the managed file', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: facts}
spec:
  nodeName: linux-1
  hostAliases: [{ip: "123.45.67.89", hostnames: [foo.local, bar.local]}]
  securityContext: {runAsUser: 1001, runAsGroup: 2002, fsGroup: 3000, supplementalGroups: [4000]}
  containers:
  - {name: main, image: "busybox:1.36", command: ["sh", "-c", "id; sleep 3600"]}
`);
  await eventually('facts running', async () => ((await jsonpath('facts', '{.status.phase}')) === 'Running' ? true : undefined));
  assert.equal(await ok(['logs', 'facts']), 'uid=1001 gid=2002 groups=2002,3000,4000\n');
  assert.equal(await ok(['exec', 'facts', '--', 'id', '-u']), '1001\n');
  const ip = await jsonpath('facts', '{.status.podIP}');
  assert.equal(await ok(['exec', 'facts', '--', 'cat', '/etc/hosts']),
    '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\n'
    + `fe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n${ip}\tfacts\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo.local\tbar.local\n`);
});

test('termination messages: the file as non-root, the log on error with FallbackToLogsOnError', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: term-file}
spec:
  nodeName: linux-1
  restartPolicy: Never
  containers:
  - name: main
    image: busybox:1.36
    command: ["/bin/sh", "-c", "/bin/echo -n DONE > /dev/termination-custom-log-path"]
    terminationMessagePath: /dev/termination-custom-log-path
    securityContext: {runAsUser: 1000}
---
apiVersion: v1
kind: Pod
metadata: {name: term-logs}
spec:
  nodeName: linux-1
  restartPolicy: Never
  containers:
  - {name: main, image: "busybox:1.36", command: ["/bin/sh", "-c", "printf DONE; exit 1"], terminationMessagePolicy: FallbackToLogsOnError}
`);
  for (const name of ['term-file', 'term-logs']) {
    const message = await eventually(`${name} terminated`, async () => {
      const t = await jsonpath(name, '{.status.containerStatuses[0].state.terminated.reason}');
      return t ? jsonpath(name, '{.status.containerStatuses[0].state.terminated.message}') : undefined;
    });
    assert.equal(message, 'DONE', name);
  }
});

test('activeDeadlineSeconds set on a running pod: Failed with DeadlineExceeded', async () => {
  await ok(['run', 'deadline', '--image=busybox:1.36', '--overrides={"spec":{"nodeName":"linux-1"}}', '--', 'sleep', '3600']);
  await eventually('deadline running', async () => ((await jsonpath('deadline', '{.status.phase}')) === 'Running' ? true : undefined));
  await ok(['patch', 'pod', 'deadline', '-p', '{"spec":{"activeDeadlineSeconds":1}}']);
  const status = await eventually('deadline failed', async () => {
    const s = await jsonpath('deadline', '{.status.phase} {.status.reason}');
    return s.startsWith('Failed') ? s : undefined;
  });
  assert.equal(status, 'Failed DeadlineExceeded');
});

test('a postStart exec hook that curls another pod reaches it; an httpGet hook to it is sent', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: handler}
spec:
  nodeName: linux-2
  containers:
  - {name: main, image: "registry.k8s.io/e2e-test-images/agnhost:2.53", args: ["netexec"]}
`);
  const handlerIP = await eventually('handler IP', async () => (await jsonpath('handler', '{.status.podIP}')) || undefined);
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: hooked}
spec:
  nodeName: linux-1
  containers:
  - name: main
    image: registry.k8s.io/e2e-test-images/agnhost:2.53
    args: ["pause"]
    lifecycle:
      postStart: {exec: {command: ["sh", "-c", "curl http://${handlerIP}:8080/echo?msg=poststart"]}}
      preStop: {httpGet: {host: "${handlerIP}", port: 8080, path: "/echo?msg=prestop"}}
`);
  await eventually('hooked running', async () => ((await jsonpath('hooked', '{.status.phase}')) === 'Running' ? true : undefined));
  await ok(['delete', 'pod', 'hooked', '--wait=true']);
  const lines = (await ok(['logs', 'handler'])).split('\n').map((l) => l.replace(/^\S+ \S+ /, ''));
  assert.deepEqual(lines.filter((l) => l.startsWith('GET /echo')), ['GET /echo?msg=poststart&code=', 'GET /echo?msg=prestop&code=']);
});

test('pods/log over a WebSocket: binary.k8s.io messages, then the server closes', async () => {
  await ok(['run', 'ws-logs', '--image=busybox:1.36', '--overrides={"spec":{"nodeName":"linux-1"}}', '--', 'sh', '-c', 'echo container is alive; sleep 3600']);
  await eventually('ws-logs running', async () => ((await jsonpath('ws-logs', '{.status.phase}')) === 'Running' ? true : undefined));
  const { ca, cert, key } = credentials(cluster);
  const read = (protocols: string[]) => new Promise<{ protocol: string; text: string; binary: boolean[] }>((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${cluster.port}/api/v1/namespaces/default/pods/ws-logs/log?container=ws-logs`, protocols, { ca, cert, key });
    const chunks: Buffer[] = [];
    const binary: boolean[] = [];
    ws.on('message', (data: Buffer, isBinary: boolean) => { chunks.push(data); binary.push(isBinary); });
    ws.on('close', () => resolve({ protocol: ws.protocol, text: Buffer.concat(chunks).toString(), binary }));
    ws.on('error', reject);
  });
  const plain = await read(['binary.k8s.io']);
  assert.deepEqual(plain, { protocol: 'binary.k8s.io', text: 'container is alive\n', binary: [true] });
  const b64 = await read(['base64.binary.k8s.io']);
  assert.deepEqual(b64, { protocol: 'base64.binary.k8s.io', text: Buffer.from('container is alive\n').toString('base64'), binary: [false] });
  await assert.rejects(read(['v4.channel.k8s.io']), /Unexpected server response: 403/);
});

test('a subPathExpr that expands to a backstep: CreateContainerConfigError with the kubelet\'s message', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: subpath-backstep}
spec:
  nodeName: linux-1
  volumes: [{name: workdir1, emptyDir: {}}]
  containers:
  - name: main
    image: busybox:1.36
    command: ["sleep", "3600"]
    env: [{name: POD_NAME, value: ".."}]
    volumeMounts: [{name: workdir1, mountPath: /logscontainer, subPathExpr: "$(POD_NAME)"}]
`);
  const waiting = await eventually('config error', async () => (await jsonpath('subpath-backstep', '{.status.containerStatuses[0].state.waiting.reason}')) === 'CreateContainerConfigError'
    ? jsonpath('subpath-backstep', '{.status.containerStatuses[0].state.waiting.message}') : undefined);
  assert.equal(waiting, "unable to provision SubPath `..`: must not contain '..'");
});

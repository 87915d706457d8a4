/**
 * What the conformance suite's networking and kubectl logs checks do,
 * through real kubectl against a real server process: agnhost netexec's
 * /dial over http and udp between two pods on different nodes (`curl -g -q
 * -s` in one pod), the node-pod checks from a hostNetwork pod (`curl` and
 * `echo hostName | nc -w 1 -u`), and agnhost logs-generator's lines read
 * back with kubectl logs --tail, --limit-bytes and --timestamps.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.52';

const netserver = (name: string, node: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  nodeSelector: {kubernetes.io/hostname: ${node}}
  containers:
  - name: webserver
    image: ${AGNHOST}
    args: [netexec, --http-port=8083, --udp-port=8081]
`;

const MANIFEST = `${netserver('netserver-0', 'linux-1')}---
${netserver('netserver-1', 'linux-2')}---
apiVersion: v1
kind: Pod
metadata:
  name: host-test-container-pod
spec:
  hostNetwork: true
  nodeSelector: {kubernetes.io/hostname: linux-1}
  containers:
  - name: agnhost-container
    image: ${AGNHOST}
---
apiVersion: v1
kind: Pod
metadata:
  name: logs-generator
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: logs-generator
    image: ${AGNHOST}
    args: [logs-generator, --log-lines-total, "3", --run-duration, 3s]
`;

interface PodView { status?: { podIP?: string; phase?: string; containerStatuses?: { ready?: boolean }[] } }

const podIP = (name: string) => eventually(`pod ${name}`, async () => {
  const p = JSON.parse(await kubectlOk(cluster, ['get', 'pod', name, '-o', 'json'])) as PodView;
  return p.status?.containerStatuses?.[0]?.ready && p.status.podIP ? p.status.podIP : undefined;
});

const sh = async (pod: string, cmd: string) => {
  const r = await kubectl(cluster, ['exec', pod, '--', '/bin/sh', '-c', cmd]);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};

before(async () => {
  cluster = await startCluster();
  assert.equal(await kubectlOk(cluster, ['apply', '-f', '-'], MANIFEST),
    'pod/netserver-0 created\npod/netserver-1 created\npod/host-test-container-pod created\npod/logs-generator created\n');
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('netexec /dial from one pod to another over http and udp, and its errors as JSON', async () => {
  const [ip0, ip1] = [await podIP('netserver-0'), await podIP('netserver-1')];
  const dial = (q: string) => sh('netserver-0', `curl -g -q -s 'http://${ip0}:8083/dial?${q}'`);
  assert.deepEqual(await dial(`request=hostname&protocol=http&host=${ip1}&port=8083&tries=1`), { code: 0, stdout: '{"responses":["netserver-1"]}', stderr: '' });
  assert.deepEqual(await dial(`request=hostname&protocol=udp&host=${ip1}&port=8081&tries=1`), { code: 0, stdout: '{"responses":["netserver-1"]}', stderr: '' });
  assert.deepEqual(await dial(`request=echo%20Hello&protocol=udp&host=${ip1}&port=8081&tries=1`), { code: 0, stdout: '{"responses":["hello"]}', stderr: '' });
  assert.deepEqual(await dial(`request=hostname&protocol=http&host=${ip1}&port=9999&tries=1`),
    { code: 0, stdout: `{"errors":["Get \\"http://${ip1}:9999/hostname\\": dial tcp ${ip1}:9999: connect: connection refused"]}`, stderr: '' });
  assert.deepEqual(await dial('request=hostname&protocol=sctp&host=x&port=1'), { code: 0, stdout: 'unsupported protocol. sctp\n', stderr: '' });
  const logs = (await kubectlOk(cluster, ['logs', 'netserver-1'])).replace(/\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d/g, 'TIME');
  assert.equal(logs, 'TIME Started HTTP server on port 8083\nTIME Started UDP server on port  8081\nTIME GET /hostname\nTIME Sending udp hostName response\n' +
    `TIME Echoing hello to UDP client ${ip0}:${/UDP client [\d.]+:(\d+)/.exec(logs)?.[1] ?? ''}\n`);
});

test('the node-pod checks from a hostNetwork pod: curl and nc -u print the pod\'s hostname', async () => {
  const ip1 = await podIP('netserver-1');
  await podIP('host-test-container-pod');
  assert.deepEqual(await sh('host-test-container-pod', `curl -g -q -s --max-time 15 --connect-timeout 1 http://${ip1}:8083/hostName | grep -v '^\\s*$'`),
    { code: 0, stdout: 'netserver-1\n', stderr: '' });
  assert.deepEqual(await sh('host-test-container-pod', `echo hostName | nc -w 1 -u ${ip1} 8081 | grep -v '^\\s*$'`), { code: 0, stdout: 'netserver-1\n', stderr: '' });
});

test('logs-generator: klog lines read back with --tail, --limit-bytes and --timestamps', async () => {
  const out = await eventually('three lines', async () => {
    const s = await kubectlOk(cluster, ['logs', 'logs-generator']);
    return s.split('\n').length === 4 ? s : undefined;
  }, 30_000);
  const line = (id: number) => `I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6}       1 logs_generator\\.go:76\\] ${id} (GET|POST|PUT) /api/v1/namespaces/(kube-system|default|ns)/pods/[bcdfghjklmnpqrstvwxz2456789]{3,4} [2-5]\\d\\d\\n`;
  assert.match(out, new RegExp(`^${line(0)}${line(1)}${line(2)}$`));
  const last = out.split('\n')[2]!;
  assert.equal(await kubectlOk(cluster, ['logs', 'logs-generator', '--tail=1']), `${last}\n`);
  assert.equal(await kubectlOk(cluster, ['logs', 'logs-generator', '--limit-bytes=1']), 'I');
  assert.match(await kubectlOk(cluster, ['logs', 'logs-generator', '--tail=1', '--timestamps']), new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+Z ${last.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\n$`));
  const phase = await eventually('Succeeded', async () => {
    const p = JSON.parse(await kubectlOk(cluster, ['get', 'pod', 'logs-generator', '-o', 'json'])) as PodView;
    return p.status?.phase === 'Succeeded' ? p.status.phase : undefined;
  }, 30_000);
  assert.equal(phase, 'Succeeded');
});

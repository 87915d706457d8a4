/**
 * The Kubernetes docs' "Debugging DNS Resolution" page through real
 * `kubectl exec` (without -i -t: no terminal here): its dnsutils pod (jessie-dnsutils, bind9's nslookup) and
 * the busybox:1.28 pod older docs used both resolve `kubernetes.default`
 * through the pod's search list, each in its own output format.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;

// https://k8s.io/examples/admin/dns/dnsutils.yaml (with the nodeSelector a cluster with Windows nodes needs
// for a Linux image), and the same pod on busybox:1.28.
const PODS = `apiVersion: v1
kind: Pod
metadata:
  name: dnsutils
  namespace: default
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: dnsutils
    image: registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3
    command:
      - sleep
      - "infinity"
    imagePullPolicy: IfNotPresent
  restartPolicy: Always
---
apiVersion: v1
kind: Pod
metadata:
  name: busybox
  namespace: default
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: busybox
    image: busybox:1.28
    command: ["sleep", "3600"]
`;

before(async () => {
  cluster = await startCluster();
  await kubectlOk(cluster, ['apply', '-f', '-'], PODS);
  const running = new Set<string>();
  for (let i = 0; i < 300 && running.size < 2; i++) {
    for (const name of ['dnsutils', 'busybox']) {
      const pod = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`)).body as { status?: { containerStatuses?: { state?: { running?: unknown } }[] } };
      if (pod.status?.containerStatuses?.[0]?.state?.running) running.add(name);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(running.size, 2, 'the dnsutils and busybox pods run');
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const exec = async (pod: string, argv: string[]) => {
  const r = await kubectl(cluster, ['exec', pod, '--', ...argv]);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};

test('dnsutils: bind9 nslookup kubernetes.default through the search list', async () => {
  assert.deepEqual(await exec('dnsutils', ['nslookup', 'kubernetes.default']), {
    code: 0, stderr: '',
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n',
  });
  assert.deepEqual(await exec('dnsutils', ['host', 'kubernetes.default']), { code: 0, stderr: '', stdout: 'kubernetes.default.svc.cluster.local has address 10.96.0.1\n' });
  assert.deepEqual(await exec('dnsutils', ['dig', '+short', '+search', 'kubernetes.default']), { code: 0, stderr: '', stdout: '10.96.0.1\n' });
});

test('dnsutils: dig without +search asks the name as typed; its whole reply shows why kubernetes.default fails', async () => {
  const full = await exec('dnsutils', ['dig', 'kubernetes.default.svc.cluster.local']);
  assert.equal(full.code, 0);
  assert.match(full.stdout, /^\n; <<>> DiG 9\.9\.5-9\+deb8u19-Debian <<>> kubernetes\.default\.svc\.cluster\.local\n;; global options: \+cmd\n;; Got answer:\n;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: \d+\n;; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1\n/);
  assert.ok(full.stdout.includes(';; ANSWER SECTION:\nkubernetes.default.svc.cluster.local. 30 IN A\t10.96.0.1\n\n;; Query time: 0 msec\n;; SERVER: 10.96.0.10#53(10.96.0.10)\n'), full.stdout);
  assert.match(full.stdout, /;; MSG SIZE {2}rcvd: 81\n\n$/);
  const typed = await exec('dnsutils', ['dig', 'kubernetes.default']);
  assert.equal(typed.code, 0);
  assert.match(typed.stdout, /status: NXDOMAIN, id: \d+\n/);
  assert.ok(typed.stdout.includes(';; QUESTION SECTION:\n;kubernetes.default.\t\tIN\tA\n\n'), typed.stdout);
  assert.ok(!typed.stdout.includes('ANSWER SECTION'), typed.stdout);
});

test('busybox:1.28: the old nslookup applet resolves kubernetes.default', async () => {
  assert.deepEqual(await exec('busybox', ['nslookup', 'kubernetes.default']), {
    code: 0, stderr: '',
    stdout: 'Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n' +
      'Name:      kubernetes.default\nAddress 1: 10.96.0.1 kubernetes.default.svc.cluster.local\n',
  });
});

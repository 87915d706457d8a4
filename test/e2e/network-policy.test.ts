/**
 * NetworkPolicy through the real server and kubectl: on a Calico cluster
 * (cluster file `network: {plugin: calico, mode: overlay}`) a default-deny
 * ingress policy makes a Linux pod's curl to the Windows sample web server
 * time out, by Service name and by pod IP; a policy allowing the client's
 * label lets that client through and no other pod; a default-deny egress
 * policy on the client stops it again. On a flannel cluster the same
 * default-deny policy is stored and changes nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { eventually, kubectl, rawJSON, removeDir, startCluster, type KubectlResult, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer } from '../helpers/windows-webserver.js';

let calico: TestCluster;
let flannel: TestCluster;
let calicoWebIP = '';
const dirs: string[] = [];

const CLIENTS = ['client', 'other'].map((name) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels:
    role: ${name}
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: main
    image: nginx
    command: ["sleep", "3600"]
`).join('---\n');

const DENY_INGRESS = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny-ingress
spec:
  podSelector: {}
  policyTypes:
  - Ingress
`;

const ALLOW_CLIENT = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web-allow-client
spec:
  podSelector:
    matchLabels:
      app: win-webserver
  ingress:
  - from:
    - podSelector:
        matchLabels:
          role: client
    ports:
    - protocol: TCP
      port: 80
`;

const DENY_CLIENT_EGRESS = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: client-deny-egress
spec:
  podSelector:
    matchLabels:
      role: client
  policyTypes:
  - Egress
`;

const ok = async (c: TestCluster, args: string[], input?: string): Promise<string> => {
  const r = await kubectl(c, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

/** curl from a Linux pod, the page discarded; one second to connect. */
const curl = (c: TestCluster, pod: string, url: string): Promise<KubectlResult> =>
  kubectl(c, ['exec', pod, '--', 'curl', '-sS', '--connect-timeout', '1', '-o', '/dev/null', url]);

/** The client pods run and the web server is a ready endpoint of its Service. */
async function clientsReady(c: TestCluster, webIP: string): Promise<void> {
  await eventually('the clients run and the web server is a ready endpoint', async () => {
    const running = await Promise.all(['client', 'other'].map(async (name) =>
      !!(await rawJSON(c, 'GET', `/api/v1/namespaces/default/pods/${name}`)).body.status?.containerStatuses?.[0]?.state?.running));
    const slices = (await rawJSON(c, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dwin-webserver')).body.items as EndpointSlice[];
    const ready = slices.some((s) => (s.endpoints ?? []).some((e) => e.addresses[0] === webIP && e.conditions?.ready));
    return running.every(Boolean) && ready ? true : undefined;
  }, 60_000);
}

/** Until the kubelets' informers see the change, the previous outcome holds: wait for `code`. */
const curlUntil = (c: TestCluster, pod: string, url: string, code: number): Promise<KubectlResult> =>
  eventually(`curl from ${pod} to ${url} exits ${code}`, async () => { const r = await curl(c, pod, url); return r.code === code ? r : undefined; });

const timedOut = (host: string) => ({
  code: 28, stdout: '',
  stderr: `curl: (28) Failed to connect to ${host} port 80 after 1000 ms: Timeout was reached\ncommand terminated with exit code 28\n`,
});
const page = { code: 0, stdout: '', stderr: '' };
const result = (r: KubectlResult) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr });

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-netpol-'));
  dirs.push(dir);
  const file = join(dir, 'cluster.yaml');
  writeFileSync(file, `apiVersion: winkube.io/v1alpha1
kind: Cluster
network: {plugin: calico, mode: overlay}
nodePools:
  - {name: cp, os: linux, role: control-plane, exactName: true}
  - {name: lin, os: linux, count: 1}
  - {name: win, os: windows, windowsVersion: ltsc2022, count: 1}
`);
  [calico, flannel] = await Promise.all([startCluster(undefined, ['--config', file]), startCluster()]);
});
after(async () => {
  for (const c of [calico, flannel]) if (c) { await c.stop(); removeDir(c.dataDir); }
  for (const d of dirs) removeDir(d);
});

test('calico: default-deny ingress drops the SYN (curl times out); a policy with the client\'s label lets it in', async () => {
  ({ podIP: calicoWebIP } = await deployWindowsWebServer(calico));
  assert.equal(await ok(calico, ['apply', '-f', '-'], CLIENTS), 'pod/client created\npod/other created\n');
  await clientsReady(calico, calicoWebIP);
  // Before any policy every pod reaches the server (once kube-proxy's view has the endpoint).
  assert.deepEqual(result(await curlUntil(calico, 'other', 'http://win-webserver', 0)), page);

  assert.equal(await ok(calico, ['apply', '-f', '-'], DENY_INGRESS), 'networkpolicy.networking.k8s.io/default-deny-ingress created\n');
  assert.deepEqual(result(await curlUntil(calico, 'client', 'http://win-webserver', 28)), timedOut('win-webserver'));
  assert.deepEqual(result(await curl(calico, 'client', `http://${calicoWebIP}/`)), timedOut(calicoWebIP));
  assert.deepEqual(result(await curl(calico, 'other', 'http://win-webserver')), timedOut('win-webserver'));

  assert.equal(await ok(calico, ['apply', '-f', '-'], ALLOW_CLIENT), 'networkpolicy.networking.k8s.io/web-allow-client created\n');
  assert.deepEqual(result(await curlUntil(calico, 'client', 'http://win-webserver', 0)), page);
  assert.deepEqual(result(await curl(calico, 'client', `http://${calicoWebIP}/`)), page);
  assert.deepEqual(result(await curl(calico, 'other', 'http://win-webserver')), timedOut('win-webserver'));
});

test('calico: default-deny egress on the client stops it again, whatever the server allows', async () => {
  assert.equal(await ok(calico, ['apply', '-f', '-'], DENY_CLIENT_EGRESS), 'networkpolicy.networking.k8s.io/client-deny-egress created\n');
  assert.deepEqual(result(await curlUntil(calico, 'client', `http://${calicoWebIP}/`, 28)), timedOut(calicoWebIP));
  assert.equal(await ok(calico, ['delete', 'networkpolicy', 'client-deny-egress']), 'networkpolicy.networking.k8s.io "client-deny-egress" deleted\n');
  assert.deepEqual(result(await curlUntil(calico, 'client', `http://${calicoWebIP}/`, 0)), page);
});

test('flannel: the same default-deny policy is stored and not enforced', async () => {
  const { podIP } = await deployWindowsWebServer(flannel);
  assert.equal(await ok(flannel, ['apply', '-f', '-'], DENY_INGRESS), 'networkpolicy.networking.k8s.io/default-deny-ingress created\n');
  // The clients start after the policy exists: nothing is waiting on the policy to arrive.
  assert.equal(await ok(flannel, ['apply', '-f', '-'], CLIENTS), 'pod/client created\npod/other created\n');
  await clientsReady(flannel, podIP);
  assert.deepEqual(result(await curlUntil(flannel, 'client', 'http://win-webserver', 0)), page);
  assert.deepEqual(result(await curl(flannel, 'other', `http://${podIP}/`)), page);
});

/**
 * The Windows guide's sample web server (Microsoft SDN's WebServer.yaml,
 * copied unchanged into fixtures/windows-webserver.yaml) on the emulated
 * Windows nodes: the Deployment's PowerShell HttpListener script logs its
 * banner once and then waits for requests; `kubectl exec` into its pod runs
 * the tools a Windows admin types first, with their real output.
 *
 * The image, `microsoft/windowsservercore`, is the retired Docker Hub
 * repository the guide still names; the cluster declares it as a local
 * Windows image for both node builds (kube-system/winkube-images), as a
 * cluster that kept it would have it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { eventually, kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer, WINDOWS_WEBSERVER_MANIFEST as MANIFEST } from '../helpers/windows-webserver.js';

let cluster: TestCluster;
let podName = '';
let podIP = '';

const ok = async (args: string[], input?: string) => {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  cluster = await startCluster();
  let applied: string;
  ({ podName, podIP, applied } = await deployWindowsWebServer(cluster));
  assert.equal(applied, 'service/win-webserver created\ndeployment.apps/win-webserver created\n');
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('the sample web server logs its banner once and waits for requests', async () => {
  assert.equal(await ok(['logs', 'deploy/win-webserver']), 'Listening at http://*:80/\r\n');
  await sleep(1500);
  assert.equal(await ok(['logs', podName]), 'Listening at http://*:80/\r\n', 'nothing more is logged while no request comes');
  const pod = JSON.parse(await ok(['get', 'pod', podName, '-o', 'json']));
  assert.equal(pod.status.containerStatuses[0].restartCount, 0);
});

test('kubectl exec: ipconfig, hostname, PowerShell pipelines and ping as on a Windows container', async () => {
  const gateway = podIP.replace(/\.\d+$/, '.1');
  const ipconfig = await ok(['exec', podName, '--', 'ipconfig']);
  assert.match(ipconfig, new RegExp(
    '^\\r\\nWindows IP Configuration\\r\\n\\r\\n\\r\\nEthernet adapter vEthernet \\(Ethernet\\):\\r\\n\\r\\n' +
    '   Connection-specific DNS Suffix  \\. : default\\.svc\\.cluster\\.local\\r\\n' +
    '   Link-local IPv6 Address \\. \\. \\. \\. \\. : fe80::[0-9a-f:]+%\\d+\\r\\n' +
    `   IPv4 Address\\. \\. \\. \\. \\. \\. \\. \\. \\. \\. \\. : ${podIP.replace(/\./g, '\\.')}\\r\\n` +
    '   Subnet Mask \\. \\. \\. \\. \\. \\. \\. \\. \\. \\. \\. : 255\\.255\\.255\\.0\\r\\n' +
    `   Default Gateway \\. \\. \\. \\. \\. \\. \\. \\. \\. : ${gateway.replace(/\./g, '\\.')}\\r\\n$`));
  assert.equal(await ok(['exec', podName, '--', 'hostname']), `${podName}\r\n`);
  assert.equal(await ok(['exec', podName, '--', 'powershell', '-Command', "(Get-Process | Where-Object { $_.ProcessName -eq 'svchost' } | Measure-Object).Count"]), '3\r\n');
  assert.equal(await ok(['exec', podName, '--', 'powershell', '-Command', '(Get-NetAdapter | Get-NetIPAddress)[1].IPAddress']), `${podIP}\r\n`);
  const ping = await kubectl(cluster, ['exec', podName, '--', 'ping', '-n', '1', '8.8.8.8']);
  assert.deepEqual([ping.code, ping.stdout], [1,
    '\r\nPinging 8.8.8.8 with 32 bytes of data:\r\nRequest timed out.\r\n\r\nPing statistics for 8.8.8.8:\r\n    Packets: Sent = 1, Received = 0, Lost = 1 (100% loss),\r\n']);
  const missing = await kubectl(cluster, ['exec', podName, '--', 'ping', 'no-such-host.invalid']);
  assert.deepEqual([missing.code, missing.stdout], [1, 'Ping request could not find host no-such-host.invalid. Please check the name and try again.\r\n']);
});

const CLIENT = `apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: client
    image: nginx
    command: ["sleep", "3600"]
`;

const page = (counts: string) => `<html><body><H1>Windows Container Web Server</H1>${counts}</body></html>`;

test('a Linux pod gets the page through the Service, by name and by ClusterIP; the server logs each request', async () => {
  assert.equal(await ok(['apply', '-f', '-'], CLIENT), 'pod/client created\n');
  let ready = false;
  for (let i = 0; i < 300 && !ready; i++) {
    const client = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/client')).body;
    const slices = (await rawJSON(cluster, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dwin-webserver')).body.items;
    ready = !!client.status?.containerStatuses?.[0]?.state?.running &&
      (slices as EndpointSlice[]).some((s) => (s.endpoints ?? []).some((e) => e.addresses[0] === podIP && e.conditions?.ready));
    if (!ready) await sleep(100);
  }
  assert.ok(ready, 'the client runs and the server is a ready endpoint of its Service');
  const clusterIP = JSON.parse(await ok(['get', 'svc', 'win-webserver', '-o', 'json'])).spec.clusterIP;

  // The kubelets' informers see the EndpointSlice a moment after the API does: until then the Service refuses (7).
  let first = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-s', 'http://win-webserver']);
  for (let i = 0; i < 50 && first.code === 7; i++) { await sleep(100); first = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-s', 'http://win-webserver']); }
  assert.deepEqual([first.code, first.stdout], [0, page(`<p>IP ${podIP} callerCount 1 `)]);
  assert.equal(await ok(['exec', 'client', '--', 'curl', '-s', `http://${clusterIP}/`]), page(`<p>IP ${podIP} callerCount 2 `));
  assert.equal(await ok(['exec', 'client', '--', 'sh', '-c', 'wget -qO- http://win-webserver.default.svc.cluster.local']), page(`<p>IP ${podIP} callerCount 3 `));
  assert.equal(await ok(['logs', podName]), 'Listening at http://*:80/\r\n' +
    `\r\n> http://win-webserver/\r\n${page(`<p>IP ${podIP} callerCount 1 `)}\r\n< 200\r\n` +
    `\r\n> http://${clusterIP}/\r\n${page(`<p>IP ${podIP} callerCount 2 `)}\r\n< 200\r\n` +
    `\r\n> http://win-webserver.default.svc.cluster.local/\r\n${page(`<p>IP ${podIP} callerCount 3 `)}\r\n< 200\r\n`);
});

test('from the Windows pod: curl.exe and Invoke-WebRequest reach the Service; one DNS suffix', async () => {
  const counts = (own: number) => `<p>IP ${podIP} callerCount 3 <p>IP ${podIP} callerCount ${own} `;
  assert.equal(await ok(['exec', podName, '--', 'curl.exe', '-s', 'http://win-webserver']), page(counts(1)));
  assert.equal(await ok(['exec', podName, '--', 'powershell', '-Command', '(Invoke-WebRequest -UseBasicParsing http://win-webserver).Content']), `${page(counts(2))}\r\n`);
  const pqdn = await kubectl(cluster, ['exec', podName, '--', 'curl.exe', '-sS', 'http://win-webserver.default']);
  assert.deepEqual([pqdn.code, pqdn.stdout], [6, '']);
  assert.match(pqdn.stderr, /^curl: \(6\) Could not resolve host: win-webserver\.default\r\n/);
});

test('the clients\' errors: a name that does not resolve, a port nothing listens on', async () => {
  const unresolved = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-sS', 'http://no-such-svc']);
  assert.deepEqual([unresolved.code, unresolved.stdout], [6, '']);
  assert.match(unresolved.stderr, /^curl: \(6\) Could not resolve host: no-such-svc\n/);
  const refused = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-sS', `http://${podIP}:8080/`]);
  assert.deepEqual([refused.code, refused.stdout], [7, '']);
  assert.match(refused.stderr, new RegExp(`^curl: \\(7\\) Failed to connect to ${podIP.replace(/\./g, '\\.')} port 8080 after 0 ms: Couldn't connect to server\\n`));
});

test('an httpGet readiness probe reaches the port the script listens on', async () => {
  const deployment = parseAllDocuments(MANIFEST).map((d) => d.toJSON() as Deployment).find((o) => o.kind === 'Deployment');
  const template = deployment?.spec?.template;
  assert.ok(template?.spec);
  const probed = (name: string, port: number) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      ...template.spec,
      containers: template.spec!.containers.map((c) => ({ ...c, readinessProbe: { httpGet: { path: '/', port }, periodSeconds: 1 } })),
    },
  });
  for (const [name, port] of [['probed-80', 80], ['probed-81', 81]] as const) {
    const r = await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/pods', probed(name, port));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const ready = async (name: string) => (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`)).body.status?.containerStatuses?.[0]?.ready === true;
  await eventually('the probe on port 80 to pass', async () => ((await ready('probed-80')) ? true : undefined), 60_000);
  // Created with probed-80 but started on its own: wait until it runs too.
  const other = await eventually('probed-81 running', async () => {
    const p = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/probed-81')).body;
    return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
  }, 60_000);
  assert.equal(other.status.containerStatuses[0].ready, false, 'nothing listens on port 81');
});

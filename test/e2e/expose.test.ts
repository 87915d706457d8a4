/**
 * `winkube up --expose` and the winkube.io/expose annotation: NodePort and
 * LoadBalancer Services in front of the Windows sample web server answer on
 * 127.0.0.1 (Node's http client), a second LoadBalancer on a taken port and
 * a port this machine holds are logged and left out, deletion closes the
 * listener. And port-forward into a Windows pod whose node's sandbox image
 * lacks wincat fails as the runtime does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:net';
import { request } from 'node:http';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, kubectlRunning, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer } from '../helpers/windows-webserver.js';

/** `--expose`, the default cluster. */
let exposed: TestCluster;
/** No `--expose`; its only Windows node's sandbox image is one of the user's own, without wincat. */
let custom: TestCluster;
const web = { exposed: { podIP: '', served: 0 }, custom: { podName: '', podIP: '', served: 0 } };

const CUSTOM_CLUSTER = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- {name: winkube-control-plane, count: 1, os: linux, role: control-plane, exactName: true}
- {name: win, count: 1, os: windows, windowsVersion: ltsc2022, sandboxImage: "mypause:1.0"}
`;
const MYPAUSE = '- ref: mypause:1.0\n  platforms:\n  - {os: windows, architecture: amd64, os.version: 10.0.20348.2582}\n';

const page = (ip: string, count: number) => `<html><body><H1>Windows Container Web Server</H1><p>IP ${ip} callerCount ${count} </body></html>`;

async function listening(cluster: TestCluster, podName: string): Promise<void> {
  await eventually('the web server listens', async () => (await kubectl(cluster, ['logs', podName])).stdout.includes('Listening at') || undefined);
}

before(async () => {
  const customDir = mkdtempSync(join(tmpdir(), 'winkube-expose-'));
  const file = join(customDir, 'cluster.yaml');
  writeFileSync(file, CUSTOM_CLUSTER);
  [exposed, custom] = await Promise.all([startCluster(undefined, ['--expose']), startCluster(join(customDir, 'data'), ['--config', file])]);
  const [a, b] = await Promise.all([deployWindowsWebServer(exposed), deployWindowsWebServer(custom, { mypause: MYPAUSE })]);
  web.exposed.podIP = a.podIP;
  Object.assign(web.custom, { podName: b.podName, podIP: b.podIP });
  await Promise.all([listening(exposed, a.podName), listening(custom, b.podName)]);
});

after(async () => {
  await Promise.all([exposed?.stop(), custom?.stop()]);
  if (exposed) removeDir(exposed.dataDir);
  if (custom) removeDir(join(custom.dataDir, '..'));
});

/** GET / on 127.0.0.1:port over a new connection. */
function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The error a connection to 127.0.0.1:port ends with. */
function connectError(port: number): Promise<string> {
  return get(port).then((r) => `answered ${r.status}`, (e: NodeJS.ErrnoException) => e.code ?? e.message);
}

const logged = (cluster: TestCluster, line: string) =>
  eventually(`the log line ${JSON.stringify(line)}`, async () => cluster.output().split('\n').includes(line) || undefined);

const service = (name: string, spec: string, annotations = '') => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
${annotations}spec:
  selector: {app: win-webserver}
${spec}`;

async function ingressIP(cluster: TestCluster, name: string): Promise<string> {
  return eventually(`${name}'s ingress IP`, async () =>
    (await kubectlOk(cluster, ['get', 'svc', name, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])) || undefined);
}

test('--expose: a NodePort Service answers on 127.0.0.1 at its nodePort with the sample\'s page', async () => {
  await kubectlOk(exposed, ['apply', '-f', '-'], service('win-np', '  type: NodePort\n  ports:\n  - {port: 8080, targetPort: 80, nodePort: 31080}\n'));
  await logged(exposed, 'expose: 127.0.0.1:31080 -> Service default/win-np port 8080 (NodePort 31080)');
  assert.deepEqual(await get(31080), { status: 200, body: page(web.exposed.podIP, ++web.exposed.served) });
  assert.deepEqual(await get(31080), { status: 200, body: page(web.exposed.podIP, ++web.exposed.served) });
});

test('--expose: a LoadBalancer Service answers on 127.0.0.1 at its port; a second one on that port is logged and left out', async () => {
  await kubectlOk(exposed, ['apply', '-f', '-'], service('win-lb', '  type: LoadBalancer\n  ports:\n  - {port: 18480, targetPort: 80}\n'));
  const ip = await ingressIP(exposed, 'win-lb');
  await logged(exposed, `expose: 127.0.0.1:18480 -> Service default/win-lb port 18480 (LoadBalancer ${ip}:18480)`);
  assert.deepEqual(await get(18480), { status: 200, body: page(web.exposed.podIP, ++web.exposed.served) });
  await kubectlOk(exposed, ['apply', '-f', '-'], service('win-lb2', '  type: LoadBalancer\n  ports:\n  - {port: 18480, targetPort: 80}\n'));
  const ip2 = await ingressIP(exposed, 'win-lb2');
  await logged(exposed, `expose: 127.0.0.1:18480 not exposed for Service default/win-lb2 port 18480 (LoadBalancer ${ip2}:18480): the port is exposed for Service default/win-lb`);
  // Deleting the holder hands the port to the one left out.
  await kubectlOk(exposed, ['delete', 'svc', 'win-lb']);
  await logged(exposed, `expose: 127.0.0.1:18480 no longer exposed for Service default/win-lb port 18480 (LoadBalancer ${ip}:18480)`);
  await logged(exposed, `expose: 127.0.0.1:18480 -> Service default/win-lb2 port 18480 (LoadBalancer ${ip2}:18480)`);
  assert.deepEqual(await get(18480), { status: 200, body: page(web.exposed.podIP, ++web.exposed.served) });
});

test('--expose: a host port already taken is logged and skipped; the server goes on', async () => {
  const taken: Server = createServer();
  await new Promise<void>((res) => taken.listen(31081, '127.0.0.1', () => res()));
  try {
    await kubectlOk(exposed, ['apply', '-f', '-'], service('win-taken', '  type: NodePort\n  ports:\n  - {port: 8080, targetPort: 80, nodePort: 31081}\n'));
    await logged(exposed, 'expose: 127.0.0.1:31081 not exposed for Service default/win-taken port 8080 (NodePort 31081): listen EADDRINUSE: address already in use 127.0.0.1:31081');
    assert.deepEqual(await get(31080), { status: 200, body: page(web.exposed.podIP, ++web.exposed.served) });
  } finally { await new Promise((res) => taken.close(res)); }
});

test('--expose: a Service without endpoints: kube-proxy\'s REJECT ends the host connection with a reset', async () => {
  await kubectlOk(exposed, ['apply', '-f', '-'], service('win-np', '  type: NodePort\n  ports:\n  - {port: 8080, targetPort: 80, nodePort: 31080}\n')
    .replace('{app: win-webserver}', '{app: nothing}'));
  await eventually('the Service has no endpoints', async () =>
    (await kubectlOk(exposed, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=win-np', '-o', 'jsonpath={.items[*].endpoints[*].addresses[*]}'])) === '' || undefined);
  assert.equal(await connectError(31080), 'ECONNRESET');
});

test('--expose: deleting the Service closes its listener', async () => {
  await kubectlOk(exposed, ['delete', 'svc', 'win-np']);
  await logged(exposed, 'expose: 127.0.0.1:31080 no longer exposed for Service default/win-np port 8080 (NodePort 31080)');
  assert.equal(await connectError(31080), 'ECONNREFUSED');
});

test('without --expose: only a Service annotated winkube.io/expose: "true" listens', async () => {
  await kubectlOk(custom, ['apply', '-f', '-'], service('plain', '  type: NodePort\n  ports:\n  - {port: 8080, targetPort: 80, nodePort: 31090}\n'));
  await kubectlOk(custom, ['apply', '-f', '-'], service('opted-in', '  type: NodePort\n  ports:\n  - {port: 8080, targetPort: 80, nodePort: 31091}\n',
    '  annotations: {winkube.io/expose: "true"}\n'));
  await logged(custom, 'expose: 127.0.0.1:31091 -> Service default/opted-in port 8080 (NodePort 31091)');
  // The listener opens with the Service; until its EndpointSlice lists the pod, kube-proxy REJECTs (a reset).
  const answered = await eventually('the opted-in Service has its endpoint', () => get(31091).catch(() => undefined));
  assert.deepEqual(answered, { status: 200, body: page(web.custom.podIP, ++web.custom.served) });
  assert.equal(await connectError(31090), 'ECONNREFUSED');
  assert.doesNotMatch(custom.output(), /expose: 127\.0\.0\.1:31090/);
});

test('port-forward into a Windows pod whose sandbox image lacks wincat: the runtime\'s "wincat not found"', async () => {
  const fwd = kubectlRunning(custom, ['port-forward', '--address', '127.0.0.1', `pod/${web.custom.podName}`, '18580:80']);
  try {
    await eventually('kubectl forwards', async () => fwd.out().includes('Forwarding from') || undefined);
    assert.equal(fwd.out(), 'Forwarding from 127.0.0.1:18580 -> 80\n');
    await get(18580).catch(() => undefined);
    await eventually('kubectl reports the error', async () => fwd.err().includes('an error occurred forwarding') || undefined);
    assert.match(fwd.err(), /an error occurred forwarding 18580 -> 80: error forwarding port 80 to pod [0-9a-f]{64}, uid : unable to do port forwarding: wincat not found/);
  } finally { await fwd.stop(); }
});

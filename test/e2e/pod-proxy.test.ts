/**
 * pods/proxy and services/proxy through real kubectl (`get --raw`, as the
 * conformance tests' REST client uses them): agnhost serve-hostname,
 * nettest with a busybox preStop hook writing to it, the update demo's
 * nautilus image, and the guestbook behind its Services; and the errors of
 * each URL form.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlFails, kubectlOk, raw, rawJSON, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); });

const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.39';
const LINUX = '  nodeSelector: {kubernetes.io/os: linux}\n';

function pod(name: string, image: string, args: string[], port?: number, extra = ''): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: ${name}}}
spec:
${LINUX}  containers:
  - name: c
    image: ${image}
    args: ${JSON.stringify(args)}
${port ? `    ports: [{containerPort: ${port}}]\n` : ''}${extra}`;
}

async function running(name: string): Promise<{ podIP: string }> {
  return eventually(`${name} running`, async () => {
    const { body } = await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`);
    return body.status?.phase === 'Running' && body.status.podIP ? body.status as { podIP: string } : undefined;
  }, 60_000);
}

const getRaw = (path: string) => kubectlOk(cluster, ['get', '--raw', path]);

test('pods/NAME/proxy: the first container port, an explicit port, a path with its trailing slash', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], pod('hostname', AGNHOST, ['serve-hostname'], 9376));
  const { podIP } = await running('hostname');
  assert.equal(await getRaw('/api/v1/namespaces/default/pods/hostname/proxy'), 'hostname');
  // kubectl followed the proxy's redirect of the bare .../proxy to .../proxy/.
  const bare = await raw(cluster, 'GET', '/api/v1/namespaces/default/pods/hostname/proxy?a=1');
  assert.deepEqual([bare.status, bare.headers.location, bare.body], [301, '/api/v1/namespaces/default/pods/hostname/proxy/?a=1', '']);
  assert.equal(await getRaw('/api/v1/namespaces/default/pods/hostname:9376/proxy/any/path/'), 'hostname');
  assert.equal(await getRaw('/api/v1/namespaces/default/pods/http:hostname:9376/proxy/'), 'hostname');
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/hostname:81/proxy/']),
    `Error from server (ServiceUnavailable): error trying to reach service: dial tcp ${podIP}:81: connect: connection refused\n`);
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/ftp:hostname:21/proxy/']),
    'Error from server (BadRequest): invalid pod request "ftp:hostname:21"\n');
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/nobody/proxy/']),
    'Error from server (NotFound): pods "nobody" not found\n');
});

test('pods/proxy of a pod that is not running: no address is allowed', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], pod('unscheduled', AGNHOST, ['serve-hostname'], 9376).replace(LINUX, '  nodeSelector: {no-such: node}\n'));
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/unscheduled/proxy/']),
    'Error from server (BadRequest): address not allowed\n');
});

test('a busybox preStop hook posts to nettest; /read through pods/proxy shows it received', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], pod('server', AGNHOST, ['nettest'], 8080));
  const { podIP } = await running('server');
  const hook = `    lifecycle:\n      preStop:\n        exec:\n          command: ["wget", "-O-", "--post-data={\\"Source\\": \\"prestop\\"}", "http://${podIP}:8080/write"]\n`;
  await kubectlOk(cluster, ['apply', '-f', '-'], pod('tester', 'registry.k8s.io/e2e-test-images/busybox:1.29-2', ['sleep', '600'], undefined, hook)
    .replace('    args:', '    command:'));
  await running('tester');
  const read = '/api/v1/namespaces/default/pods/server/proxy/read';
  assert.equal(await getRaw(read), '{\n\t"Hostname": "server",\n\t"Sent": null,\n\t"Received": null,\n\t"Errors": null,\n\t"Log": null,\n\t"StillContactingPeers": true\n}');
  await kubectlOk(cluster, ['delete', 'pod', 'tester', '--wait=false']);
  const after = await eventually('the preStop write', async () => { const b = await getRaw(read); return b.includes('prestop') ? b : undefined; }, 30_000);
  assert.equal(after, '{\n\t"Hostname": "server",\n\t"Sent": null,\n\t"Received": {\n\t\t"prestop": 1\n\t},\n\t"Errors": null,\n\t"Log": null,\n\t"StillContactingPeers": true\n}');
});

test('the update demo: nautilus serves its data.json on port 80', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], pod('nautilus', 'k8s.gcr.io/e2e-test-images/nautilus:1.5', [], 80).replace('    args: []\n', ''));
  await running('nautilus');
  assert.equal(await getRaw('/api/v1/namespaces/default/pods/nautilus/proxy/data.json'), '{\n  "image": "nautilus.jpg"\n}\n');
  // The server's CORS headers are stripped by the proxy; its Cache-Control passes.
  const data = await raw(cluster, 'GET', '/api/v1/namespaces/default/pods/nautilus/proxy/data.json');
  assert.deepEqual([data.headers['cache-control'], data.headers['content-type'], data.headers['access-control-allow-origin']], ['private', 'application/json', undefined]);
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/nautilus/proxy/kitten.jpg']),
    'Error from server (NotFound): the server could not find the requested resource\n');
});

const service = (name: string, port: number, labels: string) => `apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  ports: [{port: ${port}}]
  selector: {${labels}}
`;
const deployment = (name: string, replicas: number, labels: string, args: string[], port: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {${labels}}}
  template:
    metadata: {labels: {${labels}}}
    spec:
${LINUX.replace(/^/, '    ')}      containers:
      - name: c
        image: ${AGNHOST}
        args: ${JSON.stringify(args)}
        ports: [{containerPort: ${port}}]
`;

test('the guestbook through services/frontend/proxy: get, set through the primary, get through a replica', async () => {
  const manifests = [
    service('agnhost-replica', 6379, 'app: agnhost, role: replica'),
    service('agnhost-primary', 6379, 'app: agnhost, role: primary'),
    service('frontend', 80, 'app: guestbook, tier: frontend'),
    deployment('frontend', 2, 'app: guestbook, tier: frontend', ['guestbook', '--backend-port', '6379'], 80),
    deployment('agnhost-primary', 1, 'app: agnhost, role: primary', ['guestbook', '--http-port', '6379'], 6379),
    deployment('agnhost-replica', 2, 'app: agnhost, role: replica', ['guestbook', '--replicaof', 'agnhost-primary', '--http-port', '6379'], 6379),
  ];
  await kubectlOk(cluster, ['apply', '-f', '-'], manifests.join('---\n'));
  const gb = (cmd: string, value: string) => `/api/v1/namespaces/default/services/frontend/proxy/guestbook?cmd=${cmd}&key=messages&value=${value}`;
  assert.equal(await eventually('the guestbook answering', async () => {
    const r = await kubectl(cluster, ['get', '--raw', gb('get', '')]);
    return r.code === 0 && r.stdout === '{"data":""}' ? r.stdout : undefined;
  }, 90_000), '{"data":""}');
  // Replicas register as they start: a set reaches those registered by then.
  await eventually('both replicas registered', async () => {
    const logs = await kubectlOk(cluster, ['logs', 'deploy/agnhost-primary']);
    return (logs.match(/registered\./g) ?? []).length >= 2 ? logs : undefined;
  }, 60_000);
  assert.equal(await getRaw(gb('set', 'TestEntry')), '{"message":"Updated"}');
  for (let i = 0; i < 4; i++) assert.equal(await getRaw(gb('get', '')), '{"data":"TestEntry"}');
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/services/frontend:81/proxy/']),
    'Error from server (ServiceUnavailable): no service port 81 found for service "frontend"\n');
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/services/frontend:web/proxy/']),
    'Error from server (ServiceUnavailable): no endpoints available for service "frontend:web"\n');
  assert.equal(await kubectlFails(cluster, ['get', '--raw', '/api/v1/namespaces/default/services/nothing/proxy/']),
    'Error from server (NotFound): endpoints "nothing" not found\n');
});

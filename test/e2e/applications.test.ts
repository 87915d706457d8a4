/**
 * Images answer as their servers do, through real kubectl against a real
 * server process: an nginx Deployment behind a Service serves its default
 * page to curl in another pod and logs the request (`kubectl logs`); an
 * agnhost netexec pod behind a Service answers /hostname and /clientip
 * with the client's address as the pod sees it; IIS on a Windows node
 * answers a Linux pod through its Service; httpd logs its common log line;
 * a `winkube.io/script` http server answers on its port while it runs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { ENTRYPOINT_LINES, NGINX_INDEX } from '../../src/node/apps/nginx.js';
import { IIS_START_PAGE } from '../../src/node/apps/iis.js';
import { IT_WORKS } from '../../src/node/apps/httpd.js';

let cluster: TestCluster;

const ok = async (args: string[], input?: string) => {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Pod
metadata:
  name: nginx-80
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: nginx
    image: nginx
    readinessProbe:
      httpGet: {path: /, port: 80}
      periodSeconds: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: nginx-healthz
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: nginx
    image: nginx
    readinessProbe:
      httpGet: {path: /healthz, port: 80}
      periodSeconds: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: nginx-8080
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: nginx
    image: nginx
    ports:
    - containerPort: 8080
    readinessProbe:
      httpGet: {path: /, port: 8080}
      periodSeconds: 1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
---
apiVersion: v1
kind: Pod
metadata:
  name: netexec
  labels: {app: netexec}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: agnhost
    image: registry.k8s.io/e2e-test-images/agnhost:2.52
    args: ["netexec", "--http-port=8080"]
---
apiVersion: v1
kind: Service
metadata:
  name: netexec
spec:
  selector: {app: netexec}
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Pod
metadata:
  name: iis
  labels: {app: iis}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - name: iis
    image: mcr.microsoft.com/windows/servercore/iis
---
apiVersion: v1
kind: Service
metadata:
  name: iis
spec:
  selector: {app: iis}
  ports:
  - port: 80
---
apiVersion: v1
kind: Pod
metadata:
  name: httpd
  labels: {app: httpd}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: httpd
    image: httpd:2.4
---
apiVersion: v1
kind: Pod
metadata:
  name: scripted
  annotations:
    winkube.io/script: '{"app": {"http": {"port": 8080, "body": "scripted answer\\n"}}}'
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: app
    image: busybox
    command: ["sleep", "3600"]
---
apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: client
    image: nginx
    command: ["sleep", "3600"]
`;

interface PodView { metadata: { name: string }; status?: { podIP?: string; containerStatuses?: { state?: { running?: unknown } }[] } }

const runningPod = (selector: string) => eventually(`a running pod ${selector}`, async () => {
  const pods = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}`)).body.items as PodView[];
  const p = pods.find((x) => x.status?.containerStatuses?.[0]?.state?.running && x.status.podIP);
  return p ? { name: p.metadata.name, ip: p.status!.podIP! } : undefined;
});

const clientIP = () => eventually('the client pod', async () => {
  const p = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/client')).body as PodView;
  return p.status?.containerStatuses?.[0]?.state?.running && p.status.podIP ? p.status.podIP : undefined;
});

/** curl from the client pod once the kubelets' informers route the Service (until then it refuses: exit 7). */
const curlFromClient = (url: string) => eventually(`curl ${url}`, async () => {
  const r = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-s', url]);
  return r.code === 7 ? undefined : r;
});

/** Log timestamps are the cluster's clock: replaced by a marker so the rest is compared exactly. */
const untimed = (s: string) => s.replace(/\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d/g, 'TIME').replace(/\[\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000\]/g, '[CLF]');

before(async () => {
  cluster = await startCluster();
  assert.equal(await ok(['apply', '-f', '-'], MANIFEST),
    'deployment.apps/web created\npod/nginx-80 created\npod/nginx-healthz created\npod/nginx-8080 created\nservice/web created\npod/netexec created\nservice/netexec created\npod/iis created\nservice/iis created\n' +
    'pod/httpd created\npod/scripted created\npod/client created\n');
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('nginx behind a Service: curl from another pod gets the default page; kubectl logs shows the start-up and the access line', async () => {
  const web = await runningPod('app=web');
  const client = { ip: await clientIP() };
  const r = await curlFromClient('http://web/');
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, NGINX_INDEX, '']);
  const head = await ok(['exec', 'client', '--', 'curl', '-sI', `http://${web.ip}/`]);
  assert.equal(head.replace(/^Date: .*\r\n/m, ''), 'HTTP/1.1 200 OK\r\nServer: nginx/1.27.3\r\nContent-Type: text/html\r\nContent-Length: 615\r\n' +
    'Last-Modified: Tue, 26 Nov 2024 15:55:00 GMT\r\nConnection: keep-alive\r\nETag: "6745ef54-267"\r\nAccept-Ranges: bytes\r\n\r\n');
  const missing = await ok(['exec', 'client', '--', 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', 'http://web/nope']);
  assert.equal(missing, '404');
  const logs = untimed(await ok(['logs', 'deploy/web']));
  const node = JSON.parse(await ok(['get', 'pod', web.name, '-o', 'json'])).spec.nodeName as string;
  const kernel = JSON.parse(await ok(['get', 'node', node, '-o', 'json'])).status.nodeInfo.kernelVersion as string;
  const cpus = Number(JSON.parse(await ok(['get', 'node', node, '-o', 'json'])).status.capacity.cpu);
  assert.equal(logs, ENTRYPOINT_LINES.map((l) => `${l}\n`).join('') +
    'TIME [notice] 1#1: using the "epoll" event method\nTIME [notice] 1#1: nginx/1.27.3\nTIME [notice] 1#1: built by gcc 12.2.0 (Debian 12.2.0-14) \n' +
    `TIME [notice] 1#1: OS: Linux ${kernel}\nTIME [notice] 1#1: getrlimit(RLIMIT_NOFILE): 1048576:1048576\nTIME [notice] 1#1: start worker processes\n` +
    Array.from({ length: cpus }, (_, i) => `TIME [notice] 1#1: start worker process ${29 + i}\n`).join('') +
    `${client.ip} - - [CLF] "GET / HTTP/1.1" 200 615 "-" "curl/8.11.1" "-"\n` +
    `${client.ip} - - [CLF] "HEAD / HTTP/1.1" 200 0 "-" "curl/8.11.1" "-"\n` +
    `TIME [error] 29#29: *3 open() "/usr/share/nginx/html/nope" failed (2: No such file or directory), client: ${client.ip}, server: localhost, request: "GET /nope HTTP/1.1", host: "web"\n` +
    `${client.ip} - - [CLF] "GET /nope HTTP/1.1" 404 153 "-" "curl/8.11.1" "-"\n`);
});

test('agnhost netexec behind a Service: /hostname is the pod, /clientip the client as the pod sees it', async () => {
  const client = await clientIP();
  await runningPod('app=netexec');
  const hostname = await curlFromClient('http://netexec/hostname');
  assert.deepEqual([hostname.code, hostname.stdout], [0, 'netexec']);
  const clientip = await ok(['exec', 'client', '--', 'curl', '-s', 'http://netexec/clientip']);
  assert.match(clientip, new RegExp(`^${client.replace(/\./g, '\\.')}:\\d+$`));
  assert.equal(await ok(['exec', 'client', '--', 'curl', '-s', 'http://netexec/echo?msg=hello+there']), 'hello there');
  const logs = untimed(await ok(['logs', 'netexec']));
  assert.equal(logs, 'TIME Started HTTP server on port 8080\nTIME Started UDP server on port  8081\nTIME GET /hostname\nTIME GET /clientip\nTIME GET /echo?msg=hello there&code=\n');
});

test('IIS on a Windows node answers curl from a Linux pod through its Service; it logs nothing', async () => {
  const iis = await runningPod('app=iis');
  const r = await curlFromClient('http://iis/');
  assert.deepEqual([r.code, r.stdout], [0, IIS_START_PAGE]);
  const head = await ok(['exec', 'client', '--', 'curl', '-sI', `http://${iis.ip}/`]);
  assert.equal(head.replace(/^Date: .*\r\n/m, ''), 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nLast-Modified: Wed, 04 Nov 2020 05:35:35 GMT\r\nAccept-Ranges: bytes\r\n' +
    'ETag: "965c9516cb2d61:0"\r\nServer: Microsoft-IIS/10.0\r\nX-Powered-By: ASP.NET\r\nContent-Length: 703\r\n\r\n');
  assert.equal(await ok(['logs', 'iis']), '');
});

test('httpd answers It works! and logs the request in the common format', async () => {
  const client = await clientIP();
  const httpdPod = await runningPod('app=httpd');
  const r = await curlFromClient(`http://${httpdPod.ip}/`);
  assert.deepEqual([r.code, r.stdout], [0, IT_WORKS]);
  const warn = `AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using ${httpdPod.ip}. Set the 'ServerName' directive globally to suppress this message\n`;
  assert.equal(untimed(await ok(['logs', 'httpd'])), `${warn}${warn}${client} - - [CLF] "GET / HTTP/1.1" 200 45\n`);
});

test('a scripted http server answers on its port while the container runs', async () => {
  const scripted = await eventually('the scripted pod', async () => {
    const p = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/scripted')).body as PodView;
    return p.status?.containerStatuses?.[0]?.state?.running && p.status.podIP ? p.status.podIP : undefined;
  });
  await clientIP();
  const r = await curlFromClient(`http://${scripted}:8080/`);
  assert.deepEqual([r.code, r.stdout], [0, 'scripted answer\n']);
  const other = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-sS', `http://${scripted}:80/`]);
  assert.equal(other.code, 7);
});

test('netexec /exit ends the process: its port closes, the kubelet restarts it and the new process listens again', async () => {
  await runningPod('app=netexec');
  await curlFromClient('http://netexec/hostname');
  const exit = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-sS', 'http://netexec/exit?code=3']);
  assert.deepEqual([exit.code, exit.stdout], [56, '']);
  const restarted = await eventually('netexec restarted', async () => {
    const p = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/netexec')).body as { status?: { containerStatuses?: { restartCount: number; lastState?: { terminated?: { exitCode: number } }; state?: { running?: unknown } }[] } };
    const s = p.status?.containerStatuses?.[0];
    return s && s.restartCount === 1 && s.state?.running ? s : undefined;
  }, 60_000);
  assert.equal(restarted.lastState?.terminated?.exitCode, 3);
  const again = await curlFromClient('http://netexec/hostname');
  assert.deepEqual([again.code, again.stdout], [0, 'netexec']);
  // The first process served the previous test's requests, this test's first /hostname, then /exit.
  assert.equal(untimed(await ok(['logs', 'netexec', '--previous'])), 'TIME Started HTTP server on port 8080\nTIME Started UDP server on port  8081\n' +
    'TIME GET /hostname\nTIME GET /clientip\nTIME GET /echo?msg=hello there&code=\nTIME GET /hostname\n' +
    'TIME GET /exit?code=3&timeout=&wait=\nTIME Will begin shutdown in 0s, allowing 0s for connections to close, then will exit with 3\n');
  assert.equal(untimed(await ok(['logs', 'netexec'])), 'TIME Started HTTP server on port 8080\nTIME Started UDP server on port  8081\nTIME GET /hostname\n');
});

test('readiness probes reach nginx: / on 80 passes and is logged, /healthz gets nginx\'s 404, the declared 8080 refuses', async () => {
  const pod = (name: string) => rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`).then((r) => r.body as
    { status?: { podIP?: string; containerStatuses?: { ready: boolean; state: { running?: unknown } }[] } });
  const probed = await eventually('nginx-80 ready', async () => { const p = await pod('nginx-80'); return p.status?.containerStatuses?.[0]?.ready ? p : undefined; });
  const ip = probed.status!.podIP!;
  const firstProbe = untimed(await ok(['logs', 'nginx-80'])).split('\n').find((l) => l.includes('kube-probe'));
  assert.equal(firstProbe, `${ip.replace(/\.\d+$/, '.1')} - - [CLF] "GET / HTTP/1.1" 200 615 "-" "kube-probe/1.32" "-"`);
  const failed = await eventually('the /healthz probe failure event', async () => {
    const events = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dnginx-healthz')).body.items as { reason: string; message: string }[];
    return events.find((e) => e.reason === 'Unhealthy');
  });
  assert.equal(failed.message, 'Readiness probe failed: HTTP probe failed with statuscode: 404');
  for (const name of ['nginx-healthz', 'nginx-8080']) {
    const p = await pod(name);
    assert.equal(p.status?.containerStatuses?.[0]?.ready, false, `${name} is not ready`);
    assert.ok(p.status?.containerStatuses?.[0]?.state.running, `${name} runs`);
  }
  const refused = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-sS', `http://${ip}:8080/`]);
  assert.equal(refused.code, 7);
});

/**
 * The data plane through the real server and real kubectl: an agnhost
 * netexec pod on a Linux node answers /clientip (the client's address as
 * the pod sees it) through a ClusterIP and through nodePorts with
 * externalTrafficPolicy Cluster and Local, asked with curl from a Linux
 * pod, a hostNetwork Linux pod, a Windows pod and a Windows HostProcess
 * pod, so each node's kube-proxy rules and their source NAT show; `winkube
 * net check` traces the same paths.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { endpointChain, serviceChain } from '../../src/node/net/iptables-chains.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;

const ok = async (args: string[], input?: string) => {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

const MANIFEST = `apiVersion: v1
kind: Pod
metadata: {name: netexec, labels: {app: netexec}}
spec:
  nodeName: linux-2
  containers:
  - {name: agnhost, image: "registry.k8s.io/e2e-test-images/agnhost:2.52", args: ["netexec", "--http-port=8080"]}
---
apiVersion: v1
kind: Service
metadata: {name: netexec}
spec:
  selector: {app: netexec}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: netexec-cluster}
spec:
  type: NodePort
  selector: {app: netexec}
  ports: [{port: 80, targetPort: 8080, nodePort: 30091}]
---
apiVersion: v1
kind: Service
metadata: {name: netexec-local}
spec:
  type: NodePort
  externalTrafficPolicy: Local
  selector: {app: netexec}
  ports: [{port: 80, targetPort: 8080, nodePort: 30092}]
---
apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  nodeName: linux-1
  containers:
  - {name: client, image: "nginx:1.27", command: ["sleep", "3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: hostnet}
spec:
  nodeName: linux-1
  hostNetwork: true
  containers:
  - {name: client, image: "nginx:1.27", command: ["sleep", "3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: wclient}
spec:
  nodeName: win2022-1
  containers:
  - {name: client, image: "mcr.microsoft.com/windows/servercore:ltsc2022", command: ["cmd", "/c", "ping -t localhost"]}
---
apiVersion: v1
kind: Pod
metadata: {name: hpc}
spec:
  nodeName: win2022-1
  hostNetwork: true
  securityContext:
    windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
  containers:
  - {name: app, image: "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0", command: ["cmd", "/c", "ping -t localhost"]}
`;

interface NodeAddr { ip: string; podCIDR: string }
const nodes = new Map<string, NodeAddr>();
const host = (cidr: string, n: number) => cidr.replace(/\.0\/24$/, `.${n}`);
let clusterIP = '';
let clientIP = '';
let netexecIP = '';

before(async () => {
  cluster = await startCluster();
  assert.equal(await ok(['apply', '-f', '-'], MANIFEST),
    'pod/netexec created\nservice/netexec created\nservice/netexec-cluster created\nservice/netexec-local created\npod/client created\npod/hostnet created\npod/wclient created\npod/hpc created\n');
  for (const name of ['linux-1', 'linux-2', 'win2022-1']) {
    const n = JSON.parse(await ok(['get', 'node', name, '-o', 'json']));
    nodes.set(name, { ip: n.status.addresses.find((a: { type: string }) => a.type === 'InternalIP').address, podCIDR: n.spec.podCIDR });
  }
  clusterIP = JSON.parse(await ok(['get', 'svc', 'netexec', '-o', 'json'])).spec.clusterIP;
  for (const pod of ['netexec', 'client', 'hostnet', 'wclient', 'hpc']) {
    const ip = await eventually(`pod ${pod} running`, async () => {
      const p = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${pod}`)).body;
      return p.status?.containerStatuses?.[0]?.state?.running && p.status.podIP ? String(p.status.podIP) : undefined;
    }, 60_000);
    if (pod === 'client') clientIP = ip;
    if (pod === 'netexec') netexecIP = ip;
  }
  // The kubelets' informers see the EndpointSlice a moment after the API does: until then the Service refuses (exit 7).
  await eventually('the Service routed', async () => {
    const r = await kubectl(cluster, ['exec', 'client', '--', 'curl', '-s', `http://${clusterIP}/hostname`]);
    return r.code === 0 ? r : undefined;
  });
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

/** /clientip's answer without the ephemeral port. */
async function clientAddress(pod: string, curl: string, url: string): Promise<string> {
  const out = await ok(['exec', pod, '--', curl, '-s', url]);
  const m = /^([\d.]+):\d+$/.exec(out);
  assert.ok(m, `${pod}: ${out}`);
  return m[1]!;
}

test('Linux pod: the ClusterIP keeps its address; another node\'s nodePort masquerades to that node\'s cni0; externalTrafficPolicy Local keeps it', async () => {
  const lin2 = nodes.get('linux-2')!;
  assert.equal(await clientAddress('client', 'curl', `http://${clusterIP}/clientip`), clientIP);
  assert.equal(await clientAddress('client', 'curl', `http://${lin2.ip}:30091/clientip`), host(lin2.podCIDR, 1));
  assert.equal(await clientAddress('client', 'curl', `http://${lin2.ip}:30092/clientip`), clientIP);
});

test('hostNetwork Linux pod: the node\'s flannel.1 address toward the remote pod; its own nodePort works, Local masquerades the node itself', async () => {
  const lin1 = nodes.get('linux-1')!;
  const flannel1 = host(lin1.podCIDR, 0);
  assert.equal(await clientAddress('hostnet', 'curl', `http://${clusterIP}/clientip`), flannel1);
  assert.equal(await clientAddress('hostnet', 'curl', `http://${lin1.ip}:30091/clientip`), flannel1);
  assert.equal(await clientAddress('hostnet', 'curl', `http://${lin1.ip}:30092/clientip`), flannel1);
});

test('Windows pod: the HNS load balancer rewrites the source to the node\'s source VIP (flannel overlay, no DSR)', async () => {
  const win = nodes.get('win2022-1')!;
  assert.equal(await clientAddress('wclient', 'curl.exe', `http://${clusterIP}/clientip`), host(win.podCIDR, 2));
});

test('Windows HostProcess pod: Service VIPs and the node\'s own nodePort time out; a Linux node\'s nodePort answers', async () => {
  const win = nodes.get('win2022-1')!;
  const lin1 = nodes.get('linux-1')!;
  for (const [ip, port] of [[clusterIP, 80], [win.ip, 30091]] as const) {
    const r = await kubectl(cluster, ['exec', 'hpc', '--', 'curl.exe', '-sS', '--connect-timeout', '1', `http://${ip}:${port}/clientip`]);
    assert.deepEqual([r.code, r.stdout, r.stderr], [28, '', `curl: (28) Failed to connect to ${ip} port ${port} after 1000 ms: Timeout was reached\r\ncommand terminated with exit code 28\n`],
      `${ip}:${port}`);
  }
  assert.equal(await clientAddress('hpc', 'curl.exe', `http://${lin1.ip}:30091/clientip`), host(lin1.podCIDR, 0));
});

function winkube(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => execFile(process.execPath, [MAIN, ...args, '--kubeconfig', cluster.kubeconfig],
    (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr })));
}

test('winkube net check: the hops of a connection, the rule that stops one, an unknown pod', async () => {
  const win = nodes.get('win2022-1')!;
  const traced = await winkube(['net', 'check', 'client', 'svc/netexec']);
  assert.deepEqual(traced, { code: 0, stderr: '', stdout: [
    `pod default/client ${clientIP} on linux-1 (linux): veth`,
    `linux-1 iptables: KUBE-SERVICES ${clusterIP}:80/tcp → ${serviceChain('KUBE-SVC', 'default/netexec', 'TCP')} (default/netexec)`,
    `${endpointChain('default/netexec', 'TCP', `${netexecIP}:8080`)}: DNAT to ${netexecIP}:8080`,
    `pod default/netexec listens on ${netexecIP}:8080, sees the client as ${clientIP}`,
    'connected', ''].join('\n') });
  const stopped = await winkube(['net', 'check', 'hpc', `${clusterIP}:80`]);
  assert.deepEqual(stopped, { code: 1, stderr: '', stdout: [
    `node win2022-1 ${win.ip} (windows 10.0.20348): host network`,
    'stopped: Service VIPs are not reachable from Windows nodes',
    'fix: connect from a pod (pod → Service works), or from the node to an endpoint\'s pod IP',
    'timeout', ''].join('\n') });
  const refused = await winkube(['net', 'check', 'client', `${netexecIP}:9999`]);
  assert.deepEqual(refused, { code: 1, stderr: '', stdout: [
    `pod default/client ${clientIP} on linux-1 (linux): veth`,
    `pod default/netexec ${netexecIP}: nothing listens on 9999/tcp: RST`,
    'refused', ''].join('\n') });
  const unknown = await winkube(['net', 'check', 'nope', 'svc/netexec']);
  assert.deepEqual(unknown, { code: 1, stdout: '', stderr: 'Error from server (NotFound): pods "nope" not found\n' });
});

test('winkube net check --protocol icmp: an echo answered, a Windows pod\'s echo out of the cluster lost, a Service VIP silent', async () => {
  const wclientIP = JSON.parse(await ok(['get', 'pod', 'wclient', '-o', 'json'])).status.podIP as string;
  const outside = '203.0.113.10';
  assert.deepEqual(await winkube(['net', 'check', '--protocol', 'icmp', 'client', outside]), { code: 0, stderr: '', stdout: [
    `pod default/client ${clientIP} on linux-1 (linux): veth`,
    `${outside} answers the echo`,
    'reply', ''].join('\n') });
  assert.deepEqual(await winkube(['net', 'check', '--protocol', 'icmp', 'wclient', outside]), { code: 1, stderr: '', stdout: [
    `pod default/wclient ${wclientIP} on win2022-1 (windows 10.0.20348): HNS endpoint on flannel.4096`,
    'stopped: win-overlay and win-bridge do not translate outbound ICMP: nothing outside the cluster\'s networks answers a Windows pod',
    'fix: check outbound connectivity with TCP (curl.exe) instead of ping',
    'timeout', ''].join('\n') });
  assert.deepEqual(await winkube(['net', 'check', '--protocol', 'icmp', 'wclient', 'client']), { code: 0, stderr: '', stdout: [
    `pod default/wclient ${wclientIP} on win2022-1 (windows 10.0.20348): HNS endpoint on flannel.4096`,
    `${clientIP} answers the echo`,
    'reply', ''].join('\n') });
  assert.deepEqual(await winkube(['net', 'check', '--protocol', 'icmp', 'client', 'svc/netexec']), { code: 1, stderr: '', stdout: [
    `pod default/client ${clientIP} on linux-1 (linux): veth`,
    `stopped: ${clusterIP} is a Service address: kube-proxy's rules forward its ports, and nothing answers an echo to it`,
    `fix: check the Service with a connection to one of its ports (winkube net check ${clientIP} ${clusterIP}:PORT)`,
    'timeout', ''].join('\n') });
  assert.deepEqual(await winkube(['net', 'check', '--protocol', 'icmp', 'client', 'svc/netexec:80']), {
    code: 1, stdout: '', stderr: 'error: invalid target "svc/netexec:80": want ADDRESS (an echo has no port)\n' });
});

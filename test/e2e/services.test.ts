import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = async (args: string[], version?: string, input?: string) => {
  const r = await run(cluster, args, { version, input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

async function poll<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A Windows pod pinned to a node, running (per the kubelet's script annotation) for an hour. */
const iisPod = (name: string, node: string, release: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: iis}
  annotations: {winkube.io/script: '{"*": {"exitCode": 0, "runSeconds": 3600}}'}
spec:
  nodeName: ${node}
  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - name: iis
    image: mcr.microsoft.com/windows/servercore:${release}
    ports: [{name: http, containerPort: 80}]
`;

describe('services, endpoints and endpoint slices', () => {
  test('a NodePort Service over two Windows pods: endpoints and one EndpointSlice list both once they are Ready', async () => {
    await ok(['apply', '-f', '-'], undefined, `${iisPod('iis-1', 'win2022-1', 'ltsc2022')}---\n${iisPod('iis-2', 'win2019-1', 'ltsc2019')}---
apiVersion: v1
kind: Service
metadata: {name: iis}
spec:
  type: NodePort
  selector: {app: iis}
  ports: [{port: 80, targetPort: http}]
`);
    // The kubelet starts them: Running, Ready, with pod IPs.
    await ok(['wait', '--for=condition=Ready', 'pod/iis-1', 'pod/iis-2', '--timeout=30s']);
    const ip1 = (await ok(['get', 'pod', 'iis-1', '-o', 'jsonpath={.status.podIP}'])).trim();
    const ip2 = (await ok(['get', 'pod', 'iis-2', '-o', 'jsonpath={.status.podIP}'])).trim();
    const endpoints: [string, string, string, string][] = [[ip1, 'win2022-1', 'Pod', 'iis-1'], [ip2, 'win2019-1', 'Pod', 'iis-2']];
    const byIP = endpoints.sort(([a], [b]) => (a < b ? -1 : 1));
    for (const version of ['1.27', '1.33']) {
      const table = await poll(async () => {
        const out = await ok(['get', 'endpoints', 'iis'], version);
        return out.includes(`${ip1}:80`) && out.includes(`${ip2}:80`) ? out : undefined;
      }, 'endpoints');
      assert.match(table.split('\n')[0] ?? '', /^NAME\s+ENDPOINTS\s+AGE$/);
      assert.match(table.split('\n')[1] ?? '', new RegExp(`^iis\\s+${byIP[0]?.[0]}:80,${byIP[1]?.[0]}:80\\s+\\S+$`));
    }
    const ep = JSON.parse(await ok(['get', 'endpoints', 'iis', '-o', 'json']));
    assert.deepEqual(ep.subsets[0].addresses.map((a: any) => [a.ip, a.nodeName, a.targetRef.kind, a.targetRef.name]), byIP);
    assert.deepEqual(ep.subsets[0].ports, [{ port: 80, protocol: 'TCP' }]);
    // (last-change-trigger-time is cleared, as upstream does, when the last change moved no Ready transition time: see the unit tests.)
    const slices = await poll(async () => {
      const list = JSON.parse(await ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=iis', '-o', 'json']));
      return list.items.length === 1 && list.items[0].endpoints?.length === 2 ? list.items : undefined;
    }, 'slice');
    const s = slices[0];
    assert.match(s.metadata.name, /^iis-[a-z0-9]{5}$/);
    assert.equal(s.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.deepEqual(s.metadata.ownerReferences.map((o: any) => [o.kind, o.name, o.controller]), [['Service', 'iis', true]]);
    assert.deepEqual(s.ports, [{ name: '', port: 80, protocol: 'TCP' }]);
    assert.deepEqual(s.endpoints.map((e: any) => [e.addresses[0], e.nodeName, e.conditions]).sort((a: any, b: any) => (a[0] < b[0] ? -1 : 1)),
      byIP.map(([ip, node]) => [ip, node, { ready: true, serving: true, terminating: false }]));
    const table = (await ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=iis'])).split('\n');
    assert.match(table[1] ?? '', /^iis-[a-z0-9]{5}\s+IPv4\s+80\s+\d+\.\d+\.\d+\.\d+,\d+\.\d+\.\d+\.\d+\s+\S+$/);
    // The `kubernetes` Service keeps the apiserver's endpoints.
    const kep = JSON.parse(await ok(['get', 'endpoints', 'kubernetes', '-o', 'json']));
    assert.equal(kep.subsets[0].ports[0].name, 'https');
  });

  test('cluster IPs from 10.96.0.0/12 (the kubernetes Service at .1), single-stack defaults; headless and ExternalName', async () => {
    assert.equal(await ok(['get', 'service', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}']), '10.96.0.1');
    const iis = JSON.parse(await ok(['get', 'service', 'iis', '-o', 'json']));
    assert.match(iis.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.deepEqual([iis.spec.clusterIPs, iis.spec.ipFamilies, iis.spec.ipFamilyPolicy], [[iis.spec.clusterIP], ['IPv4'], 'SingleStack']);
    await ok(['apply', '-f', '-'], undefined, `apiVersion: v1
kind: Service
metadata: {name: iis-headless}
spec: {clusterIP: None, selector: {app: iis}, ports: [{port: 80, targetPort: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec: {type: ExternalName, externalName: example.com, selector: {app: iis}}
`);
    const headless = await poll(async () => {
      const r = await run(cluster, ['get', 'endpoints', 'iis-headless', '-o', 'json']);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    }, 'headless endpoints');
    assert.deepEqual(headless.metadata.labels, { 'service.kubernetes.io/headless': '' });
    assert.equal(headless.subsets[0].addresses.length, 2);
    const ext = JSON.parse(await ok(['get', 'service', 'ext', '-o', 'json']));
    assert.equal(ext.spec.clusterIP, undefined);
    const r = await run(cluster, ['get', 'endpoints', 'ext']);
    assert.equal(r.stderr.trim(), 'Error from server (NotFound): endpoints "ext" not found');
  });

  test('NodePort conflicts are refused with upstream\'s message', async () => {
    await ok(['create', 'service', 'nodeport', 'np-a', '--tcp=80:80', '--node-port=30080']);
    const manifest = 'apiVersion: v1\nkind: Service\nmetadata: {name: np-b}\nspec:\n  type: NodePort\n  ports: [{port: 80, nodePort: 30080}]\n';
    for (const version of ['1.27', '1.33']) {
      const r = await run(cluster, ['create', '-f', '-'], { version, input: manifest });
      assert.notEqual(r.code, 0);
      assert.equal(r.stderr.trim(), 'The Service "np-b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
      const g = await run(cluster, ['create', 'service', 'nodeport', 'np-b', '--tcp=80:80', '--node-port=30080'], { version });
      assert.equal(g.stderr.trim(), 'error: failed to create NodePort service: Service "np-b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    }
  });

  test('a LoadBalancer Service gets an ingress IP from the pool', async () => {
    await ok(['create', 'service', 'loadbalancer', 'web-lb', '--tcp=80:8080']);
    const ip = await poll(async () => (await ok(['get', 'service', 'web-lb', '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])) || undefined, 'ingress IP');
    assert.equal(ip, '172.18.255.200');
    const row = (await ok(['get', 'service', 'web-lb'])).split('\n')[1];
    assert.match(row ?? '', /^web-lb\s+LoadBalancer\s+10\.\d+\.\d+\.\d+\s+172\.18\.255\.200\s+80:3\d{4}\/TCP\s+\S+$/);
    const svc = JSON.parse(await ok(['get', 'service', 'web-lb', '-o', 'json']));
    assert.deepEqual(svc.metadata.finalizers, ['service.kubernetes.io/load-balancer-cleanup']);
    assert.deepEqual(svc.status.loadBalancer.ingress, [{ ip: '172.18.255.200', ipMode: 'VIP' }]);
    const events = await poll(async () => {
      const out = await ok(['get', 'events', '--field-selector', 'involvedObject.name=web-lb', '-o', 'json']);
      const reasons = JSON.parse(out).items.map((e: any) => e.reason);
      return reasons.includes('EnsuredLoadBalancer') ? reasons : undefined;
    }, 'events');
    assert.deepEqual(events, ['EnsuringLoadBalancer', 'EnsuredLoadBalancer']);
    await ok(['delete', 'service', 'web-lb', '--timeout=20s']);
  });
});

/**
 * `winkube doctor --kubeconfig` against a started winkube: first the cluster
 * as built (no errors; the warnings and information a mixed cluster of
 * untainted nodes gets, and a node whose pause image has no wincat), then
 * with the troubleshooting guide's faults planted through kubectl and
 * `winkube node stop`: a pause image that does not match its node's build,
 * a Windows image of another build, a Linux pod without an OS selector on a
 * Windows node, ClusterFirstWithHostNet on Windows, the Windows kube-proxy
 * DaemonSet deleted, and a stopped Windows node.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { eventually, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer } from '../helpers/windows-webserver.js';
import { runWinkube } from '../helpers/winkube-cli.js';
import type { DoctorFinding } from '../../src/doctor/types.js';


const PAUSE = 'example.com/infra/pause:1.0';
/** The default cluster's pools, plus a Windows node whose runtime uses a pause image of one's own; 4 s leases so a stopped node shows quickly. */
const CLUSTER_FILE = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
  - { name: winkube-control-plane, os: linux, role: control-plane, exactName: true, cpu: '4', memory: 8Gi, nodeLeaseDurationSeconds: 4 }
  - { name: linux, os: linux, count: 2, cpu: '4', memory: 16Gi, nodeLeaseDurationSeconds: 4 }
  - { name: win2019, os: windows, windowsVersion: ltsc2019, count: 2, cpu: '4', memory: 16Gi, nodeLeaseDurationSeconds: 4 }
  - { name: win2022, os: windows, windowsVersion: ltsc2022, count: 1, cpu: '4', memory: 16Gi, nodeLeaseDurationSeconds: 4 }
  - { name: winpause, os: windows, windowsVersion: ltsc2022, count: 1, cpu: '4', memory: 16Gi, nodeLeaseDurationSeconds: 4, sandboxImage: '${PAUSE}' }
`;
const pauseImage = (builds: string[]) => `- ref: ${PAUSE}\n  platforms:\n${builds.map((b) => `  - {os: windows, architecture: amd64, os.version: ${b}}\n`).join('')}`;

let cluster: TestCluster;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
  writeFileSync(join(dir, 'cluster.yaml'), CLUSTER_FILE);
  process.env.WINKUBE_NODE_MONITOR_PERIOD = '200ms';
  process.env.WINKUBE_NODE_MONITOR_GRACE_PERIOD = '6s';
  cluster = await startCluster(dir, ['--config', join(dir, 'cluster.yaml')]);
  // The pause image, declared for both Windows builds, and the guide's sample web server behind a LoadBalancer Service.
  await deployWindowsWebServer(cluster, { pause: pauseImage(['10.0.17763.1879', '10.0.20348.2582']) });
});
after(async () => { await cluster.stop(); removeDir(dir); });

interface Report { cluster: string; serverVersion: string | null; unreadable: string[]; findings: DoctorFinding[] }

async function doctorJSON(): Promise<{ code: number | null; report: Report }> {
  const r = await runWinkube(['doctor', '--kubeconfig', cluster.kubeconfig, '-o', 'json']);
  assert.equal(r.stderr, '');
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
}

const who = (f: DoctorFinding) => `${f.object.kind}${f.object.kind ? ' ' : ''}${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}`;
const line = (f: DoctorFinding) => `${f.severity} ${f.check} ${who(f)}: ${f.message}`;

/** Doctor's report once `ready` holds of it (objects settle: pods start, nodes report). */
async function settledReport(what: string, ready: (lines: string[]) => boolean): Promise<{ code: number | null; report: Report }> {
  return eventually(what, async () => {
    const r = await doctorJSON();
    return ready(r.report.findings.map(line)) ? r : undefined;
  }, 90_000);
}

const untainted = (node: string) => `warning windows-node-untainted Node ${node}: Windows node ${node} has no NoSchedule taint: Linux pods without an OS selector can be scheduled onto it`;
const WINCAT = `warning pause-image-without-wincat Node winpause-1: winpause-1 holds pause image ${PAUSE}, not one known to carry wincat: as the sandbox image, kubectl port-forward to the node's pods fails with "unable to do port forwarding: wincat not found"`;
const NODEPORT = "info windows-nodeport-from-node Service default/win-webserver: the Service's NodePort is not reachable from a Windows node itself";
const ICMP = 'info windows-pods-icmp : ping from Windows pods to resources outside the cluster gets no answer';

test('the cluster as built: no errors; untainted Windows nodes, the pause image without wincat, NodePort and ICMP expectations', async () => {
  const { code, report } = await settledReport('the built cluster to settle', (l) => l.includes(WINCAT) && !l.some((x) => x.startsWith('error')));
  assert.equal(report.serverVersion, 'v1.32.0');
  assert.deepEqual(report.unreadable, []);
  assert.deepEqual(report.findings.map(line), [
    WINCAT,
    untainted('win2019-1'), untainted('win2019-2'), untainted('win2022-1'), untainted('winpause-1'),
    NODEPORT,
    ICMP,
  ]);
  const wincat = report.findings.find((f) => f.check === 'pause-image-without-wincat');
  assert.deepEqual(wincat?.evidence, [`status.images: ${PAUSE}`]);
  assert.equal(code, 1);

  const human = await runWinkube(['doctor', '--kubeconfig', cluster.kubeconfig]);
  assert.equal(human.code, 1);
  const lines = human.stdout.split('\n');
  assert.equal(lines[0], `winkube doctor: https://127.0.0.1:${cluster.port}`);
  assert.deepEqual(lines.slice(1, 5), ['', 'Warnings (5)', WINCAT, `  evidence: status.images: ${PAUSE}`]);
  assert.equal(lines.at(-2), '7 findings: 0 errors, 5 warnings, 2 info');
});

test('planted faults: each found with its evidence', async () => {
  // A pause image of win2019's build only: new sandboxes on the 2022 node winpause-1 fail.
  await rawJSON(cluster, 'PATCH', '/api/v1/namespaces/kube-system/configmaps/winkube-images', { data: { pause: pauseImage(['10.0.17763.1879']) } },
    { 'Content-Type': 'application/merge-patch+json' });
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: sandbox-stuck}
spec:
  nodeSelector: {kubernetes.io/os: windows, kubernetes.io/hostname: winpause-1}
  containers: [{name: app, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
---
apiVersion: v1
kind: Pod
metadata: {name: build-mismatch}
spec:
  nodeSelector: {kubernetes.io/os: windows, kubernetes.io/hostname: win2019-1}
  containers: [{name: web, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
---
apiVersion: v1
kind: Pod
metadata: {name: no-selector}
spec:
  nodeName: win2019-2
  containers: [{name: sh, image: busybox:1.36, command: [sleep, '3600']}]
---
apiVersion: v1
kind: Pod
metadata: {name: host-dns}
spec:
  nodeSelector: {kubernetes.io/os: windows, kubernetes.io/hostname: win2019-2}
  dnsPolicy: ClusterFirstWithHostNet
  containers: [{name: app, image: mcr.microsoft.com/windows/nanoserver:ltsc2019}]
`);
  await kubectlOk(cluster, ['-n', 'kube-system', 'delete', 'daemonset', 'kube-proxy-windows']);
  const stop = await runWinkube(['node', 'stop', 'win2022-1', '--kubeconfig', cluster.kubeconfig]);
  assert.equal(stop.stdout, 'node/win2022-1 stopped\n');

  const NOT_READY = 'error windows-node-not-ready Node win2022-1: Windows node win2022-1 is not Ready';
  const SANDBOX = 'error pod-sandbox-failed Pod default/sandbox-stuck: pod is stuck in ContainerCreating on Windows node winpause-1: the pod sandbox cannot be created';
  const BUILD = 'error windows-image-build-mismatch Pod default/build-mismatch: image mcr.microsoft.com/windows/nanoserver:ltsc2022 was built for Windows build 20348 and cannot run on win2019-1 (build 17763) under process isolation';
  const LINUX_ON_WINDOWS = 'error image-os-mismatch Pod default/no-selector: Linux image busybox:1.36 on Windows node win2019-2';
  const FLANNEL = 'error windows-network-daemonset-unhealthy DaemonSet kube-system/kube-flannel-ds-windows-amd64: flannel is not ready on Windows node win2022-1';
  const { code, report } = await settledReport('the planted faults to show', (l) =>
    [NOT_READY, SANDBOX, BUILD, LINUX_ON_WINDOWS, FLANNEL].every((x) => l.includes(x)) && l.some((x) => x.startsWith('warning pod-without-os-selector')));
  assert.deepEqual(report.findings.map(line), [
    NOT_READY, SANDBOX, BUILD, LINUX_ON_WINDOWS, FLANNEL,
    'warning windows-network-daemonset-missing DaemonSet kube-system/kube-proxy: kube-proxy runs as a DaemonSet on the Linux nodes only: no kube-proxy DaemonSet covers the Windows nodes',
    WINCAT,
    'warning pod-without-os-selector Pod default/no-selector: pod has no OS selector and runs on Windows node win2019-2',
    untainted('win2019-1'), untainted('win2019-2'), untainted('win2022-1'), untainted('winpause-1'),
    'warning windows-dns-policy Pod default/host-dns: dnsPolicy ClusterFirstWithHostNet is not supported for pods on Windows node win2019-2',
    NODEPORT,
    ICMP,
  ]);
  assert.equal(code, 2);
  const byCheck = (check: string) => report.findings.find((f) => f.check === check);
  // The node lifecycle controller's taints follow the condition by a moment: only the condition is certain here.
  assert.equal(byCheck('windows-node-not-ready')?.evidence[0], 'status.conditions[Ready]: Unknown (NodeStatusUnknown): Kubelet stopped posting node status.');
  const sandbox = byCheck('pod-sandbox-failed')?.evidence ?? [];
  assert.equal(sandbox.length, 1);
  assert.match(sandbox[0] ?? '', /^event FailedCreatePodSandBox( \(x\d+\))?: Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem [0-9a-f]{64}: The container operating system does not match the host operating system\. \(0xc0370101\): unknown$/);
  const build = byCheck('windows-image-build-mismatch')?.evidence ?? [];
  assert.deepEqual(build.slice(0, 2), [
    'spec.containers[0].image: mcr.microsoft.com/windows/nanoserver:ltsc2022 (Windows build 20348)',
    'node win2019-1 label node.kubernetes.io/windows-build: 10.0.17763',
  ]);
  assert.deepEqual(byCheck('image-os-mismatch')?.evidence.slice(0, 2), [
    'spec.containers[0].image: busybox:1.36 (Linux only)', 'spec.nodeName: win2019-2 (kubernetes.io/os: windows)']);
  assert.deepEqual(byCheck('windows-dns-policy')?.explanation,
    'ClusterFirstWithHostNet is not supported for Pods that run on Windows nodes. Windows treats all names with a `.` as a FQDN and skips FQDN resolution.');
});

test('a user who may list only nodes and pods: the other lists are named as not read, and the checks run on what was read', async () => {
  await kubectlOk(cluster, ['create', 'serviceaccount', 'viewer']);
  await kubectlOk(cluster, ['create', 'clusterrole', 'node-pod-viewer', '--verb=list', '--resource=nodes,pods']);
  await kubectlOk(cluster, ['create', 'clusterrolebinding', 'viewer', '--clusterrole=node-pod-viewer', '--serviceaccount=default:viewer']);
  const token = (await kubectlOk(cluster, ['create', 'token', 'viewer'])).trim();
  const admin = parseYaml(readFileSync(cluster.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: Record<string, string> }> };
  const kubeconfig = join(dir, 'viewer.yaml');
  writeFileSync(kubeconfig, stringifyYaml({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'viewer',
    clusters: [{ name: 'c', cluster: admin.clusters[0]?.cluster }],
    users: [{ name: 'viewer', user: { token } }],
    contexts: [{ name: 'viewer', context: { cluster: 'c', user: 'viewer' } }],
  }));
  const r = await runWinkube(['doctor', '--kubeconfig', kubeconfig, '-o', 'json']);
  const report = JSON.parse(r.stdout) as Report;
  const user = 'User "system:serviceaccount:default:viewer"';
  assert.deepEqual(report.unreadable, [
    `GET /api/v1/events: events is forbidden: ${user} cannot list resource "events" in API group "" at the cluster scope`,
    `GET /apis/apps/v1/daemonsets: daemonsets.apps is forbidden: ${user} cannot list resource "daemonsets" in API group "apps" at the cluster scope`,
    `GET /api/v1/services: services is forbidden: ${user} cannot list resource "services" in API group "" at the cluster scope`,
    `GET /apis/node.k8s.io/v1/runtimeclasses: runtimeclasses.node.k8s.io is forbidden: ${user} cannot list resource "runtimeclasses" in API group "node.k8s.io" at the cluster scope`,
  ]);
  // Node and pod checks still run; those that need events, DaemonSets or Services see none.
  const checks = new Set(report.findings.map((f) => f.check));
  assert.deepEqual(['windows-node-not-ready', 'windows-image-build-mismatch', 'pod-sandbox-failed', 'windows-network-daemonset-unhealthy'].map((c) => checks.has(c)), [true, true, false, false]);
  assert.equal(r.code, 2);
});

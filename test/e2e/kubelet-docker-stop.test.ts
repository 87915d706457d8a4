import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl as run, kubectlOk, removeDir, type TestCluster } from '../helpers/cluster.js';
import { startClusterFromFile } from '../helpers/cluster-file.js';

/**
 * "TerminationGracePeriod: requires containerD" (Windows containers in
 * Kubernetes, limitations): on a Docker (cri-dockerd) Windows node a
 * container that ignores CTRL_SHUTDOWN_EVENT is stopped after Windows' own
 * 5 seconds, whatever terminationGracePeriodSeconds says; on a containerd
 * Windows node it keeps running for its grace period.
 */
let cluster: TestCluster;
before(async () => {
  cluster = await startClusterFromFile(['apiVersion: winkube.io/v1alpha1', 'kind: Cluster', 'nodePools:',
    '  - { name: winkube-control-plane, os: linux, role: control-plane, exactName: true }',
    '  - { name: linux, os: linux, count: 1 }',
    '  - { name: wdocker, os: windows, windowsVersion: ltsc2019, containerRuntime: docker, count: 1 }',
    '  - { name: wctrd, os: windows, windowsVersion: ltsc2019, count: 1 }']);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);

const podYAML = (name: string, node: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  annotations: {winkube.io/script: '{"app": {"sigterm": "ignore"}}'}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 600
  containers:
  - {name: app, image: mcr.microsoft.com/windows/servercore:ltsc2019}
`;

test('a Docker Windows node stops a container that ignores the shutdown event after 5 s, not the 600 s grace period', async () => {
  await ok(['apply', '-f', '-'], podYAML('on-docker', 'wdocker-1') + '---\n' + podYAML('on-containerd', 'wctrd-1'));
  for (const name of ['on-docker', 'on-containerd']) {
    await eventually(`${name} Running`, async () => (JSON.parse(await ok(['get', 'pod', name, '-o', 'json'])).status.phase === 'Running' ? true : undefined), 30_000);
  }
  await ok(['delete', 'pod', 'on-docker', 'on-containerd', '--wait=false']);
  // The Docker node's pod is gone once Windows' 5 s are up (the kubelet then deletes it with grace 0).
  await eventually('on-docker deleted', async () => {
    const r = await run(cluster, ['get', 'pod', 'on-docker', '-o', 'name']);
    return r.code !== 0 && /NotFound/.test(r.stderr) ? true : undefined;
  }, 30_000);
  // The containerd node honours the 600 s grace period: its container still runs, the pod is still terminating.
  const p = JSON.parse(await ok(['get', 'pod', 'on-containerd', '-o', 'json']));
  assert.ok(p.metadata.deletionTimestamp);
  assert.ok(p.status.containerStatuses[0].state.running, JSON.stringify(p.status.containerStatuses[0].state));
  const events = JSON.parse(await ok(['get', 'events', '--field-selector', 'involvedObject.name=on-docker', '-o', 'json'])).items
    .map((e: any) => `${e.reason} ${e.message}`);
  assert.ok(events.includes('Killing Stopping container app'), events.join('\n'));
  await ok(['delete', 'pod', 'on-containerd', '--grace-period=0', '--force']);
});

test('a HostProcess pod on a Docker Windows node: its host-network sandbox cannot be created (Docker on Windows has no host network)', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: hpc-docker}
spec:
  nodeName: wdocker-1
  hostNetwork: true
  securityContext:
    windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
  containers:
  - {name: app, image: mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0, command: ["cmd", "/c", "ping -t localhost"]}
`);
  const events = await eventually('FailedCreatePodSandBox', async () => {
    const out = await ok(['get', 'events', '--field-selector', 'involvedObject.name=hpc-docker,reason=FailedCreatePodSandBox', '-o', 'jsonpath={.items[*].message}']);
    return out || undefined;
  }, 30_000);
  assert.equal(events, 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create a sandbox for pod "hpc-docker": Error response from daemon: network host not found');
  const p = JSON.parse(await ok(['get', 'pod', 'hpc-docker', '-o', 'json']));
  assert.equal(p.status.phase, 'Pending');
  await ok(['delete', 'pod', 'hpc-docker', '--grace-period=0', '--force']);
});

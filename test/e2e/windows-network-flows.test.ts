/**
 * The supported flows of "Networking on Windows" (pod → pod by IP and by
 * name, pod → Service by ClusterIP, by PQDN only without a ".", by FQDN,
 * pod → external by IP and by DNS), driven with `kubectl exec` from a Linux
 * pod (busybox's wget) and from a Windows pod (curl.exe) against nginx on
 * Linux and IIS on Windows, in each network mode a Windows node supports
 * with flannel: overlay (VXLAN) and l2bridge (host-gw). The documented
 * limitations fail as documented: a dotted partial name from a Windows pod,
 * and ICMP from a Windows pod to the outside world.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const WORKLOADS = `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - {name: nginx, image: nginx:1.27, ports: [{containerPort: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: iis, labels: {app: iis}}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - {name: iis, image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022, ports: [{containerPort: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: iis}
spec:
  selector: {app: iis}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: linux-client}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - {name: main, image: busybox:1.36, command: [sleep, "3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: windows-client}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - {name: main, image: mcr.microsoft.com/windows/servercore:ltsc2022, command: [ping, -t, localhost]}
`;

const NGINX = /<title>Welcome to nginx!<\/title>/;
const IIS = /<title>IIS Windows Server<\/title>/;
const EXAMPLE = /<title>Example Domain<\/title>/;

interface Flow { name: string; target: (ips: Map<string, string>) => string; linux: RegExp; windows: RegExp }

/** The docs' flows table, each with the page the Linux and the Windows client get. */
const FLOWS: Flow[] = [
  { name: 'Pod → Pod (IP)', target: (ips) => `http://${ips.get('iis')}/`, linux: IIS, windows: IIS },
  { name: 'Pod → Pod (IP), to Linux', target: (ips) => `http://${ips.get('web')}/`, linux: NGINX, windows: NGINX },
  { name: 'Pod → Pod (Name)', target: (ips) => `http://${ips.get('web')!.replace(/\./g, '-')}.default.pod.cluster.local/`, linux: NGINX, windows: NGINX },
  { name: 'Pod → Service (Cluster IP)', target: (ips) => `http://${ips.get('svc/iis')}/`, linux: IIS, windows: IIS },
  { name: 'Pod → Service (PQDN, no ".")', target: () => 'http://web/', linux: NGINX, windows: NGINX },
  { name: 'Pod → Service (FQDN)', target: () => 'http://iis.default.svc.cluster.local/', linux: IIS, windows: IIS },
  { name: 'Pod → external (IP)', target: () => 'http://203.0.113.10/', linux: EXAMPLE, windows: EXAMPLE },
  { name: 'Pod → external (DNS)', target: () => 'http://example.com/', linux: EXAMPLE, windows: EXAMPLE },
];

async function clusterFile(plugin: 'flannel' | 'calico', mode: 'overlay' | 'l2bridge', dir: string): Promise<string> {
  const file = join(dir, 'cluster.yaml');
  writeFileSync(file, `apiVersion: winkube.io/v1alpha1
kind: Cluster
network: {plugin: ${plugin}, mode: ${mode}}
nodePools:
  - {name: cp, os: linux, role: control-plane, exactName: true}
  - {name: lin, os: linux, count: 1}
  - {name: win, os: windows, windowsVersion: ltsc2022, count: 1}
`);
  return file;
}

for (const [plugin, mode] of [['flannel', 'overlay'], ['flannel', 'l2bridge'], ['calico', 'overlay'], ['calico', 'l2bridge']] as const) {
  describe(`${plugin} ${mode}`, () => {
    let cluster: TestCluster;
    let dir = '';
    const ips = new Map<string, string>();

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'winkube-flows-'));
      cluster = await startCluster(undefined, ['--config', await clusterFile(plugin, mode, dir)]);
      await kubectlOk(cluster, ['apply', '-f', '-'], WORKLOADS);
      for (const pod of ['web', 'iis', 'linux-client', 'windows-client']) {
        const ip = await eventually(`${pod} runs`, async () => {
          const p = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${pod}`)).body as { status?: { podIP?: string; containerStatuses?: { ready?: boolean }[] } };
          return p.status?.containerStatuses?.[0]?.ready ? p.status.podIP : undefined;
        }, 60_000);
        ips.set(pod, ip);
      }
      for (const svc of ['web', 'iis']) {
        ips.set(`svc/${svc}`, (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/services/${svc}`)).body.spec.clusterIP);
        await eventually(`${svc} has its endpoint`, async () =>
          (await kubectlOk(cluster, ['get', 'endpointslices', '-l', `kubernetes.io/service-name=${svc}`, '-o', 'jsonpath={.items[*].endpoints[*].addresses[*]}'])) || undefined);
      }
    });
    after(async () => { await cluster?.stop(); removeDir(cluster?.dataDir ?? ''); removeDir(dir); });

    const exec = (pod: string, argv: string[]) => kubectl(cluster, ['exec', pod, '--', ...argv]);

    for (const flow of FLOWS) {
      test(`${flow.name}: from a Linux pod and from a Windows pod`, async () => {
        const url = flow.target(ips);
        const linux = await exec('linux-client', ['wget', '-qO-', '-T', '5', url]);
        assert.equal(linux.code, 0, `${url} from Linux: ${linux.stderr}`);
        assert.match(linux.stdout, flow.linux);
        const windows = await exec('windows-client', ['curl.exe', '-s', '-m', '5', url]);
        assert.equal(windows.code, 0, `${url} from Windows: ${windows.stderr}`);
        assert.match(windows.stdout, flow.windows);
      });
    }

    test('a partial name with a "." resolves on Linux only: Windows takes it as fully qualified', async () => {
      assert.match((await exec('linux-client', ['wget', '-qO-', '-T', '5', 'http://web.default/'])).stdout, NGINX);
      assert.deepEqual(await exec('windows-client', ['curl.exe', '-sS', '-m', '5', 'http://web.default/']), {
        code: 6, stdout: '', stderr: 'curl: (6) Could not resolve host: web.default\r\ncommand terminated with exit code 6\n',
      });
    });

    test('ICMP to the outside world: no echo comes back to a Windows pod (use curl, not ping); a Linux pod gets its replies', async () => {
      const windows = await exec('windows-client', ['ping', '-n', '1', '203.0.113.10']);
      assert.equal(windows.code, 1);
      assert.match(windows.stdout, /\r\nRequest timed out\.\r\n/);
      assert.match(windows.stdout, /Packets: Sent = 1, Received = 0, Lost = 1 \(100% loss\)/);
      const linux = await exec('linux-client', ['ping', '-c', '1', '203.0.113.10']);
      assert.equal(linux.code, 0, linux.stdout);
      assert.match(linux.stdout, /1 packets transmitted, 1 packets received, 0% packet loss/);
    });
  });
}

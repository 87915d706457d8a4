/**
 * The containers' network tools through `kubectl exec` on a real server
 * process: busybox nslookup, ping and nc in Linux pods, nslookup.exe and
 * Resolve-DnsName in the Windows sample web server's pod, each with the
 * output and exit code of the real tool.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer } from '../helpers/windows-webserver.js';

let cluster: TestCluster;
let winPod = '';
let winIP = '';
const podIPs = new Map<string, string>();

const BUSYBOX_PODS = ['bb-a', 'bb-b'].map((name) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: main
    image: busybox:1.36
    command: ["sleep", "3600"]
`).join('---\n');

before(async () => {
  cluster = await startCluster();
  ({ podName: winPod, podIP: winIP } = await deployWindowsWebServer(cluster));
  await kubectlOk(cluster, ['apply', '-f', '-'], BUSYBOX_PODS);
  for (let i = 0; i < 300 && podIPs.size < 2; i++) {
    for (const name of ['bb-a', 'bb-b']) {
      const pod = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`)).body as { status?: { podIP?: string; containerStatuses?: { state?: { running?: unknown } }[] } };
      if (pod.status?.containerStatuses?.[0]?.state?.running && pod.status.podIP) podIPs.set(name, pod.status.podIP);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(podIPs.size, 2, 'the busybox pods run');
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const exec = async (pod: string, argv: string[]) => {
  const r = await kubectl(cluster, ['exec', pod, '--', ...argv]);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};

test('busybox nslookup: a dot-less name through the search list; a dotted one as it is', async () => {
  assert.deepEqual(await exec('bb-a', ['nslookup', 'kubernetes.default.svc.cluster.local']), {
    code: 0, stderr: '',
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n\n',
  });
  assert.deepEqual(await exec('bb-a', ['nslookup', 'kubernetes.default']), {
    code: 1, stderr: 'command terminated with exit code 1\n',
    stdout: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find kubernetes.default: NXDOMAIN\n\n** server can't find kubernetes.default: NXDOMAIN\n\n",
  });
  // The first reply is the first suffix's (the default namespace's); the other suffixes' are NXDOMAIN.
  const short = await exec('bb-a', ['sh', '-c', 'nslookup kubernetes | head -n 5']);
  assert.deepEqual(short, { code: 0, stderr: '', stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n' });
});

test('busybox ping pod to pod replies; a ClusterIP does not answer ICMP', async () => {
  const ip = podIPs.get('bb-b')!;
  assert.deepEqual(await exec('bb-a', ['ping', '-c', '1', ip]), {
    code: 0, stderr: '',
    stdout: `PING ${ip} (${ip}): 56 data bytes\n64 bytes from ${ip}: seq=0 ttl=64 time=0.084 ms\n\n--- ${ip} ping statistics ---\n` +
      '1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.084/0.084/0.084 ms\n',
  });
  assert.deepEqual(await exec('bb-a', ['ping', '-c', '1', '-W', '1', 'kubernetes']), {
    code: 1, stderr: 'command terminated with exit code 1\n',
    stdout: 'PING kubernetes (10.96.0.1): 56 data bytes\n\n--- kubernetes ping statistics ---\n1 packets transmitted, 0 packets received, 100% packet loss\n',
  });
});

test('busybox nc -z: the Windows web server listens on 80, not on 81', async () => {
  assert.deepEqual(await exec('bb-a', ['nc', '-z', '-v', '-w', '2', winIP, '80']), { code: 0, stdout: '', stderr: `${winIP} (${winIP}:80) open\n` });
  assert.deepEqual(await exec('bb-a', ['nc', '-z', '-v', '-w', '2', 'win-webserver', '80']), { code: 0, stdout: '', stderr: `win-webserver (${await clusterIP('win-webserver')}:80) open\n` });
  assert.deepEqual(await exec('bb-a', ['nc', '-z', '-vv', '-w', '2', winIP, '81']), {
    code: 1, stdout: '', stderr: `nc: ${winIP} (${winIP}:81): Connection refused\n sent 0, rcvd 0\ncommand terminated with exit code 1\n`,
  });
});

async function clusterIP(name: string): Promise<string> {
  return ((await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/services/${name}`)).body as { spec: { clusterIP: string } }).spec.clusterIP;
}

test('nslookup.exe in a Windows pod: its own suffix search answers kubernetes.default', async () => {
  // The server is named by the cluster DNS's PTR record of its address (the kube-dns Service).
  assert.deepEqual(await exec(winPod, ['nslookup', 'kubernetes.default']), {
    code: 0, stderr: '',
    stdout: 'Server:  kube-dns.kube-system.svc.cluster.local\r\nAddress:  10.96.0.10\r\n\r\nName:    kubernetes.default.svc.cluster.local\r\nAddress:  10.96.0.1\r\n\r\n',
  });
});

test('Resolve-DnsName: kubernetes resolves with the pod\'s suffix, kubernetes.default is taken as fully qualified', async () => {
  assert.deepEqual(await exec(winPod, ['powershell', '-Command', 'Resolve-DnsName kubernetes']), {
    code: 0, stderr: '',
    stdout: '\r\nName                                           Type   TTL   Section    IPAddress\r\n' +
      '----                                           ----   ---   -------    ---------\r\n' +
      'kubernetes.default.svc.cluster.local           A      30    Answer     10.96.0.1\r\n\r\n',
  });
  assert.deepEqual(await exec(winPod, ['powershell', '-Command', 'Resolve-DnsName kubernetes.default']), {
    code: 1, stdout: '',
    stderr: 'Resolve-DnsName : kubernetes.default : DNS name does not exist\r\nAt line:1 char:1\r\n+ Resolve-DnsName kubernetes.default\r\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\r\n' +
      '    + CategoryInfo          : ResourceUnavailable: (kubernetes.default:String) [Resolve-DnsName], Win32Exception\r\n' +
      '    + FullyQualifiedErrorId : DNS_ERROR_RCODE_NAME_ERROR,Microsoft.DnsClient.Commands.ResolveDnsName\r\n \r\ncommand terminated with exit code 1\n',
  });
});

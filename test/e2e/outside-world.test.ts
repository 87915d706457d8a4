/**
 * Pods reaching beyond the cluster on a real server process: `curl` in a
 * Linux pod and `curl.exe` in a Windows pod get the outside world's pages,
 * by name through CoreDNS's forward to the nodes' resolver, with their
 * node's address as the source the outside host sees (masquerade,
 * OutBoundNAT); a stub-domain block applied to the coredns ConfigMap with
 * kubectl makes a private zone resolve, both in the pods and for a real DNS
 * query against `winkube up --dns-port`; a Corefile that does not parse is
 * logged and the last good one stays.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { eventually, kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer } from '../helpers/windows-webserver.js';
import { EXAMPLE_PAGE, INTRANET_PAGE } from '../../src/node/net/outside-world.js';

let cluster: TestCluster;
let resolver: Resolver;
let winPod = '';

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

before(async () => {
  cluster = await startCluster(undefined, ['--dns-port', '0']);
  const m = /cluster DNS: 127\.0\.0\.1:(\d+) \(udp, tcp\)/.exec(cluster.output());
  assert.ok(m, cluster.output());
  resolver = new Resolver({ timeout: 10_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${m[1]}`]);
  ({ podName: winPod } = await deployWindowsWebServer(cluster));
  await kubectlOk(cluster, ['apply', '-f', '-'], CLIENT);
  await eventually('the client pod runs', async () => {
    const pod = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/client')).body as { status?: { containerStatuses?: { state?: { running?: unknown } }[] } };
    return pod.status?.containerStatuses?.[0]?.state?.running ? true : undefined;
  });
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function nodeIPOf(pod: string): Promise<string> {
  const node = await kubectlOk(cluster, ['get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}']);
  return kubectlOk(cluster, ['get', 'node', node, '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}']);
}

const exec = async (pod: string, argv: string[]) => {
  const r = await kubectl(cluster, ['exec', pod, '--', ...argv]);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};

test('a Linux pod: the page by name, the node\'s address as its source outside, silence elsewhere', async () => {
  assert.deepEqual(await exec('client', ['curl', '-s', 'http://example.com/']), { code: 0, stdout: EXAMPLE_PAGE, stderr: '' });
  assert.deepEqual(await exec('client', ['curl', '-s', 'http://ip.example.net/']), { code: 0, stdout: `${await nodeIPOf('client')}\n`, stderr: '' });
  assert.deepEqual(await exec('client', ['curl', '-sS', 'http://no-such-host.example.com/']), {
    code: 6, stdout: '', stderr: 'curl: (6) Could not resolve host: no-such-host.example.com\ncommand terminated with exit code 6\n',
  });
  assert.deepEqual(await exec('client', ['curl', '-sS', 'http://example.com:8080/']), {
    code: 7, stdout: '', stderr: 'curl: (7) Failed to connect to example.com port 8080 after 0 ms: Couldn\'t connect to server\ncommand terminated with exit code 7\n',
  });
});

test('a Windows pod: curl.exe gets the page; OutBoundNAT gives the outside the node\'s address; ping gets no reply', async () => {
  assert.deepEqual(await exec(winPod, ['curl.exe', '-s', 'http://example.com/']), { code: 0, stdout: EXAMPLE_PAGE, stderr: '' });
  assert.deepEqual(await exec(winPod, ['curl.exe', '-s', 'http://ip.example.net/']), { code: 0, stdout: `${await nodeIPOf(winPod)}\n`, stderr: '' });
  const ping = await exec(winPod, ['ping', '-n', '1', 'example.com']);
  assert.deepEqual([ping.code, ping.stdout], [1,
    '\r\nPinging example.com [203.0.113.10] with 32 bytes of data:\r\nRequest timed out.\r\n\r\nPing statistics for 203.0.113.10:\r\n    Packets: Sent = 1, Received = 0, Lost = 1 (100% loss),\r\n']);
});

const COREFILE_WITH_STUB = (forward: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    .:53 {
        errors
        kubernetes cluster.local in-addr.arpa ip6.arpa {
           pods insecure
           fallthrough in-addr.arpa ip6.arpa
           ttl 30
        }
        forward . /etc/resolv.conf
        cache 30
        reload
    }
    corp.example:53 {
        errors
        cache 30
        ${forward}
    }
`;

test('a stub domain applied to the coredns ConfigMap: the private zone resolves, over the wire and in the pods', async () => {
  assert.deepEqual(await resolver.resolve4('example.com'), ['203.0.113.10']);
  await assert.rejects(resolver.resolve4('intranet.corp.example'), { code: 'ENOTFOUND' });
  const applied = await kubectl(cluster, ['apply', '-f', '-'], { input: COREFILE_WITH_STUB('forward . 198.51.100.53') });
  assert.deepEqual([applied.code, applied.stdout], [0, 'configmap/coredns configured\n'], applied.stderr);
  assert.deepEqual(await eventually('the stub domain answers', () => resolver.resolve4('intranet.corp.example').catch(() => undefined)), ['198.51.100.80']);
  assert.deepEqual(await resolver.resolve4('kubernetes.default.svc.cluster.local'), ['10.96.0.1']);
  const page = await eventually('the pod resolves the stub domain', async () => {
    const r = await exec('client', ['curl', '-s', 'http://intranet.corp.example/']);
    return r.code === 0 ? r.stdout : undefined;
  });
  assert.equal(page, INTRANET_PAGE);
  assert.deepEqual(await exec(winPod, ['curl.exe', '-s', 'http://intranet.corp.example/']), { code: 0, stdout: INTRANET_PAGE, stderr: '' });

  // A typo: CoreDNS keeps serving the last good Corefile and logs why.
  const typo = await kubectl(cluster, ['apply', '-f', '-'], { input: COREFILE_WITH_STUB('forwad . 198.51.100.53') });
  assert.equal(typo.code, 0, typo.stderr);
  const line = "coredns: [ERROR] plugin/reload: Corefile changed but reload failed: /etc/coredns/Corefile:15 - Error during parsing: Unknown directive 'forwad'";
  await eventually('the failed reload is logged', async () => {
    await resolver.resolve4('intranet.corp.example').catch(() => undefined);
    return cluster.output().includes(line) ? true : undefined;
  });
  assert.deepEqual(await resolver.resolve4('intranet.corp.example'), ['198.51.100.80']);
});

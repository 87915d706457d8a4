/**
 * The Windows guide's sample web server (Microsoft SDN's WebServer.yaml,
 * copied unchanged into fixtures/windows-webserver.yaml) on the emulated
 * Windows nodes: the Deployment's PowerShell HttpListener script logs its
 * banner once and then waits for requests; `kubectl exec` into its pod runs
 * the tools a Windows admin types first, with their real output.
 *
 * The image, `microsoft/windowsservercore`, is the retired Docker Hub
 * repository the guide still names; the cluster declares it as a local
 * Windows image for both node builds (kube-system/winkube-images), as a
 * cluster that kept it would have it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MANIFEST = readFileSync(new URL('../../../test/e2e/fixtures/windows-webserver.yaml', import.meta.url), 'utf8');

let cluster: TestCluster;
let podName = '';
let podIP = '';

const ok = async (args: string[], input?: string) => {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  cluster = await startCluster();
  const images = await rawJSON(cluster, 'POST', '/api/v1/namespaces/kube-system/configmaps', {
    metadata: { name: 'winkube-images' },
    data: { windowsservercore: '- ref: microsoft/windowsservercore\n  platforms:\n  - {os: windows, architecture: amd64, os.version: 10.0.17763.1879}\n  - {os: windows, architecture: amd64, os.version: 10.0.20348.2582}\n' },
  });
  assert.equal(images.status, 201, JSON.stringify(images.body));
  assert.equal(await ok(['apply', '-f', '-'], MANIFEST), 'service/win-webserver created\ndeployment.apps/win-webserver created\n');
  for (let i = 0; i < 300 && !podIP; i++) {
    const pods = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dwin-webserver')).body.items;
    const running = pods.find((p: any) => p.status?.containerStatuses?.[0]?.state?.running && p.status.podIP);
    if (running) { podName = running.metadata.name; podIP = running.status.podIP; } else await sleep(100);
  }
  assert.ok(podIP, 'the web server pod runs');
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('the sample web server logs its banner once and waits for requests', async () => {
  assert.equal(await ok(['logs', 'deploy/win-webserver']), 'Listening at http://*:80/\r\n');
  await sleep(1500);
  assert.equal(await ok(['logs', podName]), 'Listening at http://*:80/\r\n', 'nothing more is logged while no request comes');
  const pod = JSON.parse(await ok(['get', 'pod', podName, '-o', 'json']));
  assert.equal(pod.status.containerStatuses[0].restartCount, 0);
});

test('kubectl exec: ipconfig, hostname, PowerShell pipelines and ping as on a Windows container', async () => {
  const gateway = podIP.replace(/\.\d+$/, '.1');
  const ipconfig = await ok(['exec', podName, '--', 'ipconfig']);
  assert.match(ipconfig, new RegExp(
    '^\\r\\nWindows IP Configuration\\r\\n\\r\\n\\r\\nEthernet adapter vEthernet \\(Ethernet\\):\\r\\n\\r\\n' +
    '   Connection-specific DNS Suffix  \\. : default\\.svc\\.cluster\\.local\\r\\n' +
    '   Link-local IPv6 Address \\. \\. \\. \\. \\. : fe80::[0-9a-f:]+%\\d+\\r\\n' +
    `   IPv4 Address\\. \\. \\. \\. \\. \\. \\. \\. \\. \\. \\. : ${podIP.replace(/\./g, '\\.')}\\r\\n` +
    '   Subnet Mask \\. \\. \\. \\. \\. \\. \\. \\. \\. \\. \\. : 255\\.255\\.255\\.0\\r\\n' +
    `   Default Gateway \\. \\. \\. \\. \\. \\. \\. \\. \\. : ${gateway.replace(/\./g, '\\.')}\\r\\n$`));
  assert.equal(await ok(['exec', podName, '--', 'hostname']), `${podName}\r\n`);
  assert.equal(await ok(['exec', podName, '--', 'powershell', '-Command', "(Get-Process | Where-Object { $_.ProcessName -eq 'svchost' } | Measure-Object).Count"]), '3\r\n');
  assert.equal(await ok(['exec', podName, '--', 'powershell', '-Command', '(Get-NetAdapter | Get-NetIPAddress)[1].IPAddress']), `${podIP}\r\n`);
  const ping = await kubectl(cluster, ['exec', podName, '--', 'ping', '-n', '1', '8.8.8.8']);
  assert.deepEqual([ping.code, ping.stdout], [1,
    '\r\nPinging 8.8.8.8 with 32 bytes of data:\r\nRequest timed out.\r\n\r\nPing statistics for 8.8.8.8:\r\n    Packets: Sent = 1, Received = 0, Lost = 1 (100% loss),\r\n']);
  const missing = await kubectl(cluster, ['exec', podName, '--', 'ping', 'no-such-host.invalid']);
  assert.deepEqual([missing.code, missing.stdout], [1, 'Ping request could not find host no-such-host.invalid. Please check the name and try again.\r\n']);
});

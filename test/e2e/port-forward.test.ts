/**
 * kubectl port-forward to pods the emulated kubelets run: SPDY (kubectl
 * 1.27) and SPDY tunneled over WebSocket (the default kubectl), pod/, svc/
 * and deploy/ targets; the local port answers as the pod's application does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { eventually, kubectl, kubectlRunning, removeDir, startCluster, type RunningKubectl, type TestCluster } from '../helpers/cluster.js';
import { deployWindowsWebServer } from '../helpers/windows-webserver.js';

let cluster: TestCluster;

let podName = '';
let podIP = '';
/** Requests the sample server has answered so far (its page counts them). */
let served = 0;
const page = () => `<html><body><H1>Windows Container Web Server</H1><p>IP ${podIP} callerCount ${++served} </body></html>`;

before(async () => {
  cluster = await startCluster();
  ({ podName, podIP } = await deployWindowsWebServer(cluster));
  // The script listens once its banner is logged.
  for (let i = 0; i < 300; i++) {
    const logs = await kubectl(cluster, ['logs', podName]);
    if (logs.stdout.includes('Listening at')) break;
    await new Promise((res) => setTimeout(res, 100));
  }
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

/** Starts `kubectl port-forward` and waits for its "Forwarding from" line. */
async function portForward(args: string[], version?: string): Promise<RunningKubectl> {
  const fwd = kubectlRunning(cluster, ['port-forward', '--address', '127.0.0.1', ...args], version === undefined ? {} : { version });
  let exited = false;
  void fwd.exited.then(() => { exited = true; });
  // kubectl starts slowly on a loaded machine: a generous deadline, cut short if it exits.
  for (const deadline = Date.now() + 30_000; !fwd.out().includes('Forwarding from') && !exited && Date.now() < deadline;) {
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.match(fwd.out(), /Forwarding from 127\.0\.0\.1:\d+ ->/, fwd.err());
  return fwd;
}

/** GETs a path, on a connection of `agent` (a new one without). */
function get(port: number, path: string, agent?: Agent): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent: agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

for (const version of ['1.27', undefined]) {
  const label = version ? `kubectl ${version} (SPDY)` : 'default kubectl (WebSocket tunnel)';
  test(`${label}: pod/, svc/ and deploy/ targets answer with the Windows sample server's page`, async () => {
    let local = version ? 18080 : 18180;
    for (const target of [`pod/${podName}`, 'svc/win-webserver', 'deploy/win-webserver']) {
      const port = local++;
      // -v=6 shows how the default kubectl dialed: the WebSocket tunnel, not its SPDY fallback.
      const fwd = await portForward([target, `${port}:80`, ...(version ? [] : ['-v=6'])], version);
      try {
        if (!version) {
          assert.match(fwd.err(), /negotiated protocol: portforward\.k8s\.io/);
          assert.doesNotMatch(fwd.err(), /fallback to secondary dialer/);
        }
        assert.equal(fwd.out(), `Forwarding from 127.0.0.1:${port} -> 80\n`);
        // Two requests on one kept-alive connection: one stream pair.
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const first = await get(port, '/', agent);
        assert.equal(first.status, 200);
        assert.equal(first.body, page());
        assert.equal((await get(port, '/', agent)).body, page());
        agent.destroy();
        // A new connection is a new stream pair.
        assert.equal((await get(port, '/')).body, page());
        await eventually('two Handling lines', async () => (fwd.out().split('Handling').length >= 3 ? true : undefined));
        assert.equal(fwd.out(), `Forwarding from 127.0.0.1:${port} -> 80\nHandling connection for ${port}\nHandling connection for ${port}\n`);
      } finally { await fwd.stop(); }
    }
  });

  test(`${label}: a port nothing listens on: the runtime's connection refused`, async () => {
    const port = version ? 18090 : 18190;
    const fwd = await portForward([`pod/${podName}`, `${port}:81`], version);
    try {
      await get(port, '/').catch(() => undefined);
      await eventually('the forwarding error', async () => (fwd.err().includes('an error occurred forwarding') ? true : undefined));
      assert.match(fwd.err(), new RegExp(`an error occurred forwarding ${port} -> 81: error forwarding port 81 to pod [0-9a-f]{64}, uid : ` +
        `failed to execute portforward in network namespace \\\\?"/var/run/netns/cni-[0-9a-f-]{36}\\\\?": failed to connect to localhost:81 inside namespace ` +
        `\\\\?"[0-9a-f]{64}\\\\?", IPv4: dial tcp4 127.0.0.1:81: connect: connection refused IPv6 dial tcp6 \\[::1\\]:81: connect: connection refused`));
    } finally { await fwd.stop(); }
  });
}

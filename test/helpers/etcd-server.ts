import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Files of a member serving clients over TLS and asking them for a certificate of `caFile`'s CA; `client`
 * is a client certificate of that CA, which the helper's health probe presents.
 */
export interface EtcdTLS { caFile: string; certFile: string; keyFile: string; client: { certFile: string; keyFile: string } }

/** A real etcd member on free loopback ports with a data directory of its own. */
export interface EtcdServer {
  /** The client URL (`--etcd-servers`). */
  url: string;
  /** Stops the member and starts it again on its data directory, answering at clientUrl (its url by default). */
  restart(clientUrl?: string): Promise<void>;
  stop(): Promise<void>;
}

const INSTALL_HINT = 'etcd is not installed: the etcd storage tests need Debian\'s etcd-server (apt-get install -y etcd-server)';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Throws with how to install etcd when the binary is missing: these tests are never skipped. */
export function requireEtcd(): void {
  const probe = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error(INSTALL_HINT);
}

/** Whether the member answers /health (over TLS with the client certificate). */
function healthy(url: string, tls: EtcdTLS | undefined): Promise<boolean> {
  if (!tls) return fetch(`${url}/health`).then((r) => r.ok, () => false);
  return new Promise((resolve) => {
    const req = request(`${url}/health`, { ca: readFileSync(tls.caFile), cert: readFileSync(tls.client.certFile), key: readFileSync(tls.client.keyFile) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** A running etcd process on a data directory, answering at `url` once resolved. */
async function launch(dataDir: string, url: string, peer: string, tls: EtcdTLS | undefined): Promise<{ stop(): Promise<void> }> {
  const proc: ChildProcess = spawn('etcd', [
    '--name', 'winkube-test', '--data-dir', dataDir,
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `winkube-test=${peer}`,
    ...(tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--client-cert-auth', '--trusted-ca-file', tls.caFile] : []),
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-4000); });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) { await stop(); throw new Error(`etcd exited: ${log}`); }
    if (await healthy(url, tls)) return { stop };
    if (Date.now() > deadline) { await stop(); throw new Error(`etcd did not become healthy: ${log}`); }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A member on free ports; with `tls`, its client URL is https and it requires a client certificate. */
export async function startEtcd(tls?: EtcdTLS): Promise<EtcdServer> {
  requireEtcd();
  const dir = mkdtempSync(join(tmpdir(), 'winkube-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const dataDir = join(dir, 'data');
  let running: { stop(): Promise<void> } | undefined;
  try {
    running = await launch(dataDir, url, peer, tls);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url,
    async restart(clientUrl = url) {
      await running?.stop();
      running = undefined;
      running = await launch(dataDir, clientUrl, peer, tls);
    },
    async stop() {
      await running?.stop();
      running = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A client URL on a free port, for a restart clients of `url` cannot reach. */
export async function otherClientUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

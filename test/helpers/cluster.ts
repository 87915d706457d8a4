import assert from 'node:assert/strict';
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';
import { startEtcd } from './etcd-server.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

export interface TestCluster {
  dataDir: string;
  port: number;
  kubeconfig: string;
  proc: ChildProcess;
  /** Output the server printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the real `winkube up` process on a free port with a fresh data directory (or the given one), plus any extra flags.
 * With WINKUBE_TEST_STORAGE=etcd (and no --storage among the flags), on an etcd member of its own that stop() stops.
 */
export async function startCluster(dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-')), extraArgs: string[] = []): Promise<TestCluster> {
  const etcd = process.env.WINKUBE_TEST_STORAGE === 'etcd' && !extraArgs.includes('--storage') ? await startEtcd() : undefined;
  const storageArgs = etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.url] : [];
  const proc = spawn(process.execPath, [MAIN, 'up', '--port', '0', '--data-dir', dataDir, ...storageArgs, ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => { out += d; });
  proc.stderr!.on('data', (d) => { out += d; });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /winkube is up: https:\/\/[\d.]+:(\d+)/.exec(out);
      if (m && out.includes('export KUBECONFIG=')) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${out}`)); });
  }).catch(async (e: unknown) => { await etcd?.stop(); throw e; });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    dataDir, port, proc,
    kubeconfig: join(dataDir, 'kubeconfig.yaml'),
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await exited;
      await etcd?.stop();
      return code;
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

let kubectlDir: string | undefined;

/** The versioned kubectl binaries (kubectl.1.27 … kubectl.1.33) live beside the real kubectl. */
export function kubectlPath(version?: string): string {
  if (!version) return 'kubectl';
  kubectlDir ??= dirname(realpathSync(execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim()));
  return join(kubectlDir, `kubectl.${version}`);
}

export interface KubectlResult { code: number; stdout: string; stderr: string }

/** Runs kubectl against the cluster with a private HOME, so discovery caches never leak between tests. */
export function kubectl(cluster: TestCluster, args: string[], opts: { version?: string; input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<KubectlResult> {
  const home = join(cluster.dataDir, `home-${opts.version ?? 'default'}`);
  return new Promise((resolve) => {
    const child = execFile(kubectlPath(opts.version), args, {
      env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: cluster.kubeconfig, ...opts.env },
      timeout: opts.timeoutMs ?? 60_000,
      maxBuffer: 64 * 1024 * 1024,
    }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) { child.stdin!.end(opts.input); }
  });
}

/** A kubectl left running beside the test (a watch, a wait, a port-forward): its output so far, and its result once it exits. */
export interface RunningKubectl { out(): string; err(): string; exited: Promise<KubectlResult>; stop(): Promise<KubectlResult> }

/** Starts kubectl as `kubectl()` runs it (the same private HOME) without waiting for it; `stop` interrupts it as Ctrl-C does. */
export function kubectlRunning(cluster: TestCluster, args: string[], opts: { version?: string; env?: Record<string, string> } = {}): RunningKubectl {
  const proc = spawn(kubectlPath(opts.version), args, {
    env: { PATH: process.env.PATH ?? '', HOME: join(cluster.dataDir, `home-${opts.version ?? 'default'}`), KUBECONFIG: cluster.kubeconfig, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  proc.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<KubectlResult>((resolve) => proc.once('close', (code) => resolve({ code: code ?? 1, stdout: out, stderr: err })));
  return { out: () => out, err: () => err, exited, stop: async () => { proc.kill('SIGINT'); return exited; } };
}

/** kubectl that must succeed: its stdout; a failure names the command and what kubectl said. */
export async function kubectlOk(cluster: TestCluster, args: string[], input?: string): Promise<string> {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** kubectl that must fail: its stderr. */
export async function kubectlFails(cluster: TestCluster, args: string[], input?: string): Promise<string> {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} succeeded: ${r.stdout}`);
  return r.stderr;
}

/** A pod as `kubectl get pod NAME -o json` prints it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function podObject(cluster: TestCluster, name: string): Promise<any> {
  return JSON.parse(await kubectlOk(cluster, ['get', 'pod', name, '-o', 'json']));
}

/** `type reason message` of the events about an object, oldest first (event names grow with time). */
export async function objectEvents(cluster: TestCluster, name: string): Promise<string[]> {
  const list = JSON.parse(await kubectlOk(cluster, ['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])) as
    { items: { metadata: { name: string }; type: string; reason: string; message: string }[] };
  return list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((e) => `${e.type} ${e.reason} ${e.message}`);
}

/** TLS credentials from the cluster's kubeconfig, for raw HTTPS requests. */
export function credentials(cluster: TestCluster): { ca: Buffer; cert: Buffer; key: Buffer } {
  const cfg = parseYaml(readFileSync(cluster.kubeconfig, 'utf8'));
  const b = (s: string) => Buffer.from(s, 'base64');
  return {
    ca: b(cfg.clusters[0].cluster['certificate-authority-data']),
    cert: b(cfg.users[0].user['client-certificate-data']),
    key: b(cfg.users[0].user['client-key-data']),
  };
}

export interface RawResponse { status: number; headers: Record<string, string | string[] | undefined>; body: string }

const agents = new WeakMap<TestCluster, Agent>();

/**
 * One HTTPS request as the admin user, anonymously with `anonymous: true`, or
 * as the holder of `clientCertificate` (a PEM certificate and key the cluster CA signed).
 */
export function raw(cluster: TestCluster, method: string, path: string, opts: {
  body?: string | Buffer; headers?: Record<string, string>; anonymous?: boolean; clientCertificate?: { cert: string; key: string };
} = {}): Promise<RawResponse> {
  const c = credentials(cluster);
  let agent = agents.get(cluster);
  const own = opts.anonymous || opts.clientCertificate;
  if (!agent && !own) agents.set(cluster, agent = new Agent({ ca: c.ca, cert: c.cert, key: c.key, keepAlive: true }));
  const a = opts.clientCertificate ? new Agent({ ca: c.ca, cert: opts.clientCertificate.cert, key: opts.clientCertificate.key })
    : opts.anonymous ? new Agent({ ca: c.ca }) : agent!;
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: cluster.port, method, path, agent: a,
      headers: { Accept: 'application/json', ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...opts.headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    // The request named in the error: a reset under load otherwise says only "read ECONNRESET".
    req.on('error', (e) => { e.message = `${method} ${path}: ${e.message}`; reject(e); });
    req.end(opts.body);
  });
}

export async function rawJSON(cluster: TestCluster, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: RawResponse['headers'] }> {
  const r = await raw(cluster, method, path, { body: body === undefined ? undefined : JSON.stringify(body), headers });
  let parsed: unknown = r.body;
  try { parsed = JSON.parse(r.body); } catch { /* not JSON */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

/** Polls `check` every 100 ms until it gives a value (a throw counts as not yet), failing after `ms` with the last error. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try { const v = await check(); if (v !== undefined) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

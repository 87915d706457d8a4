/**
 * `winkube up` in a child process for a benchmark: its port, the admin's
 * credentials as a load target, its pid (for CPU figures) and a stop that
 * removes its data directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { LoadTarget } from './load.js';

/** BENCH_SERVER: another build's dist/src/cli/main.js, to measure it with this script (A/B of two builds). */
const MAIN = process.env.BENCH_SERVER ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');

export interface BenchServer {
  target: LoadTarget; pid: number; dataDir: string;
  /** What the server printed on stdout so far (its web view link among it). */
  output(): string;
  /** Stops the server; `beforeRemove` reads what it left (its state.db) before its data directory goes. */
  stop(beforeRemove?: () => void): Promise<void>;
}

export interface ServerOptions {
  /** `winkube up` flags after --port and --data-dir. */
  upArgs: string[];
  /** Node options for the server process (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** A data directory made beforehand (to hold a cluster file); a new one when absent. */
  dataDir?: string;
}

export async function startServer(opts: ServerOptions): Promise<BenchServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'winkube-bench-'));
  const proc = spawn(process.execPath, [...opts.nodeArgs ?? [], MAIN, 'up', '--port', '0', '--data-dir', dataDir, ...opts.upArgs],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /winkube is up: https:\/\/[\d.]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  const cfg = parseYaml(readFileSync(join(dataDir, 'kubeconfig.yaml'), 'utf8'));
  const b = (s: string) => Buffer.from(s, 'base64');
  return {
    target: { port, ca: b(cfg.clusters[0].cluster['certificate-authority-data']), cert: b(cfg.users[0].user['client-certificate-data']), key: b(cfg.users[0].user['client-key-data']) },
    pid: proc.pid!,
    dataDir,
    output: () => out,
    async stop(beforeRemove) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      beforeRemove?.();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { readFileSync } from 'node:fs';
import { startCluster } from '../cluster/start.js';
import { parseClusterFile } from '../node/cluster-file.js';
import { parseSchedulerConfig } from '../scheduler/profile.js';

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535).');
  return n;
}

const program = new Command('winkube')
  .description('A Kubernetes control plane with emulated Windows and Linux nodes');

program.command('up')
  .description('start the cluster: an HTTPS Kubernetes API server on 127.0.0.1 with state in one SQLite file')
  .option('--port <port>', 'port of the API server (0 picks a free one)', port, 6443)
  .option('--data-dir <dir>', 'where the state, certificates and kubeconfig live', './.winkube')
  .option('--bind-address <ip>', 'address to listen on', '127.0.0.1')
  .option('--config <file>', 'a cluster file (YAML) with the node pools; the default cluster without it')
  .option('--quiet', 'print only the kubeconfig line, and nothing on shutdown')
  .option('--scheduler-config <file>', 'a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the scheduler')
  .action(async (opts: { port: number; dataDir: string; bindAddress: string; config?: string; quiet?: boolean; schedulerConfig?: string }) => {
    const nodePools = opts.config === undefined ? undefined : parseClusterFile(readFileSync(opts.config, 'utf8'));
    const schedulerConfig = opts.schedulerConfig === undefined ? undefined : parseSchedulerConfig(readFileSync(opts.schedulerConfig, 'utf8'));
    const cluster = await startCluster({ port: opts.port, dataDir: opts.dataDir, bindAddress: opts.bindAddress, nodePools, schedulerConfig });
    if (!opts.quiet) console.log(`winkube is up: https://${opts.bindAddress}:${cluster.port} (Kubernetes ${cluster.version})`);
    console.log(`export KUBECONFIG=${cluster.kubeconfigPath}`);
    const stop = (signal: string) => {
      if (!opts.quiet) console.error(`${signal}: shutting down`);
      cluster.stop().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

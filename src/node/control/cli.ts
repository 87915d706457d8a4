/**
 * `winkube node add|remove|stop|start|list`: changes the machines of a
 * running cluster through its node control endpoint, printing as kubectl
 * prints (`node/win2019-3 added`, `Error from server (NotFound): ...`).
 */
import { Command, InvalidArgumentError } from 'commander';
import type { ServerTarget } from '../../client/https.js';
import { callControl, describeFailure, kubeconfigPath, NODE_CONTROL_PREFIX, targetFromKubeconfig } from './client.js';
import { readFileSync } from 'node:fs';
import { parseClusterFile, parsePool } from '../cluster-file.js';
import { runAgent } from './agent.js';

interface Common { dataDir?: string; kubeconfig?: string }

function withTarget(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'the data directory of the cluster (its kubeconfig.yaml is used)')
    .option('--kubeconfig <file>', 'an admin kubeconfig of the cluster (default: --data-dir\'s, $KUBECONFIG, ./.winkube/kubeconfig.yaml)');
}

function target(opts: Common): ServerTarget { return targetFromKubeconfig(kubeconfigPath(opts)); }

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function collect(v: string, prev: string[]): string[] { return [...prev, v]; }

/** kubectl taint's `key[=value]:Effect`. */
function parseTaint(spec: string): { key: string; value?: string; effect: string } {
  const m = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(spec);
  const [, key, value, effect] = m ?? [];
  if (key === undefined || effect === undefined) throw new InvalidArgumentError(`invalid taint spec: ${spec}`);
  return { key, ...(value !== undefined ? { value } : {}), effect };
}

function parseLabel(spec: string): [string, string] {
  const i = spec.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError(`invalid label spec: ${spec}`);
  return [spec.slice(0, i), spec.slice(i + 1)];
}

/** Runs one call per node name; like kubectl, carries on after a failure and exits 1 at the end. */
async function eachNode(names: string[], opts: Common, method: string, suffix: string, done: string): Promise<void> {
  const t = target(opts);
  let failed = false;
  for (const name of names) {
    const r = await callControl(t, method, `${NODE_CONTROL_PREFIX}/${encodeURIComponent(name)}${suffix}`);
    if (r.status >= 200 && r.status < 300) console.log(`node/${name} ${done}`);
    else { console.error(describeFailure(r)); failed = true; }
  }
  if (failed) process.exitCode = 1;
}

interface AddOptions extends Common {
  pool?: string; count?: number; os?: string; windowsVersion?: string; arch?: string; cpu?: string; memory?: string;
  storage?: string; maxPods?: number; containerRuntime?: string; windowsPriorityClass?: string; label: string[]; taint: string[];
}

interface AgentOptions extends Common {
  server?: string; config?: string; pool?: string; os?: string; windowsVersion?: string; count?: number; containerRuntime?: string;
}

/** `winkube agent` and `winkube node ...`. */
export function registerNodeCommands(program: Command): void {
  withTarget(program.command('agent')
    .description('run emulated nodes in this process against a remote winkube server over HTTPS (the farm\'s agent code)'))
    .option('--server <url>', 'the API server (default: the kubeconfig\'s)')
    .option('--config <file>', 'a cluster file whose node pools this agent runs')
    .option('--pool <name>', 'one pool of nodes <name>-1, <name>-2, ... (without --config)')
    .option('--os <os>', 'linux or windows (with --pool)')
    .option('--windows-version <version>', 'the Windows version (with --pool)')
    .option('--container-runtime <runtime>', 'containerd or docker (with --pool)')
    .option('--count <n>', 'how many nodes (with --pool)', positiveInt)
    .action(async (opts: AgentOptions) => {
      const t = target(opts);
      if (opts.server) t.server = new URL(opts.server);
      let pools;
      if (opts.config) pools = parseClusterFile(readFileSync(opts.config, 'utf8'));
      else if (opts.pool) {
        const raw: Record<string, unknown> = { name: opts.pool, os: opts.os, count: opts.count ?? 1 };
        if (opts.windowsVersion) raw.windowsVersion = opts.windowsVersion;
        if (opts.containerRuntime) raw.containerRuntime = opts.containerRuntime;
        pools = [parsePool(raw, 0)];
      } else throw new InvalidArgumentError('give --config <cluster file> or --pool <name> --os <os>');
      const agent = await runAgent(t, pools, (m) => console.error(m));
      console.log(`winkube agent: ${agent.nodeNames.length} nodes registered with ${t.server.origin}: ${agent.nodeNames.join(', ')}`);
      const stop = () => { agent.stop().then(() => process.exit(0), () => process.exit(1)); };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });


  const node = program.command('node').description('change the emulated machines of a running cluster');

  withTarget(node.command('list').description('the machines of the cluster and whether they run'))
    .action(async (opts: Common) => {
      const r = await callControl(target(opts), 'GET', NODE_CONTROL_PREFIX);
      if (r.status !== 200) { console.error(describeFailure(r)); process.exitCode = 1; return; }
      const header = ['NAME', 'POOL', 'OS', 'STATE', 'BOOT-ID'];
      const rows = [header, ...(r.body.items as any[]).map((n) => [n.name, n.pool, n.os, n.running ? 'Running' : 'Stopped', n.bootID])];
      const widths = header.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
      for (const row of rows) console.log(row.map((c, i) => (i === row.length - 1 ? String(c) : String(c).padEnd((widths[i] ?? 0) + 3))).join(''));
    });

  withTarget(node.command('add [name]')
    .description('join new machines: --pool copies a pool of the cluster (nodes <pool>-<n>); the options set or override fields'))
    .option('--pool <pool>', 'the pool the new nodes belong to and copy')
    .option('--count <n>', 'how many nodes (with --pool and no name)', positiveInt)
    .option('--os <os>', 'linux or windows')
    .option('--windows-version <version>', 'ltsc2019, ltsc2022, ltsc2025, 1809, 1903, 1909, 2004, 20H2')
    .option('--arch <arch>', 'amd64 or arm64')
    .option('--cpu <cpu>', 'CPU capacity')
    .option('--memory <memory>', 'memory capacity')
    .option('--storage <storage>', 'ephemeral-storage capacity')
    .option('--max-pods <n>', 'pods capacity', positiveInt)
    .option('--container-runtime <runtime>', 'containerd or docker (Docker EE / Mirantis)')
    .option('--windows-priority-class <class>', 'the Windows kubelet\'s --windows-priorityclass')
    .option('--label <key=value>', 'a node label (repeatable)', collect, [])
    .option('--taint <key[=value]:Effect>', 'a node taint (repeatable)', collect, [])
    .action(async (name: string | undefined, opts: AddOptions) => {
      const fields: Record<string, unknown> = {};
      const set = (k: string, v: unknown) => { if (v !== undefined) fields[k] = v; };
      set('os', opts.os); set('windowsVersion', opts.windowsVersion); set('arch', opts.arch); set('cpu', opts.cpu);
      set('memory', opts.memory); set('storage', opts.storage); set('maxPods', opts.maxPods);
      set('containerRuntime', opts.containerRuntime); set('windowsPriorityClass', opts.windowsPriorityClass);
      if (opts.label.length) fields.labels = Object.fromEntries(opts.label.map(parseLabel));
      if (opts.taint.length) fields.taints = opts.taint.map(parseTaint);
      const r = await callControl(target(opts), 'POST', NODE_CONTROL_PREFIX, { pool: opts.pool, count: opts.count, name, fields });
      if (r.status !== 201) { console.error(describeFailure(r)); process.exitCode = 1; return; }
      for (const n of r.body.added as string[]) console.log(`node/${n} added`);
    });

  withTarget(node.command('remove <names...>').description('the machines leave: their Node and Lease are deleted'))
    .action((names: string[], opts: Common) => eachNode(names, opts, 'DELETE', '', 'removed'));

  withTarget(node.command('stop <names...>').description('power off: the kubelet stops renewing its Lease and posting status; pods stay as they are'))
    .action((names: string[], opts: Common) => eachNode(names, opts, 'POST', '/stop', 'stopped'));

  withTarget(node.command('start <names...>').description('boot again: a new boot ID, Ready status and Lease renewals'))
    .action((names: string[], opts: Common) => eachNode(names, opts, 'POST', '/start', 'started'));
}

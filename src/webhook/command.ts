/**
 * `winkube webhook`: the command line only. What it does is in run.ts,
 * loaded when the command runs so other commands do not pay for the rules.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration } from '../apimachinery/duration.js';

export interface WebhookCommandOptions {
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  port: number;
  bindAddress: string;
  kubeconfig?: string;
  cluster?: string;
  gmsa?: boolean;
  refreshInterval: number;
  enable: string[];
  disable: string[];
  warnOnly?: boolean;
  mutate?: boolean;
}

const ids = (v: string, previous: string[]): string[] => [...previous, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('not a port number (0-65535).');
  return n;
}

function duration(v: string): number {
  const ms = parseDuration(v);
  if (ms === undefined || ms < 0) throw new InvalidArgumentError('not a duration such as 30s or 5m.');
  return ms;
}

export function registerWebhookCommand(program: Command): void {
  program.command('webhook')
    .description("serve the lint rules as an admission webhook: POST /validate (and /mutate with --mutate) take admission.k8s.io/v1 AdmissionReviews; GET /healthz, /readyz")
    .requiredOption('--tls-cert-file <file>', 'the serving certificate (PEM, with its chain); reloaded when it changes')
    .requiredOption('--tls-private-key-file <file>', 'the key of the serving certificate (PEM); reloaded when it changes')
    .option('--port <port>', 'the HTTPS port', port, 8443)
    .option('--bind-address <ip>', 'the address to listen on', '0.0.0.0')
    .option('--kubeconfig <file>', "check against the nodes of this cluster (default: in a pod, its service account's cluster; else the default cluster)")
    .addOption(new Option('--cluster <file>', 'check against a cluster file (winkube.io/v1alpha1 Cluster) instead').conflicts('kubeconfig'))
    .option('--gmsa', 'the cluster runs the GMSA admission webhook (looked up in a live cluster)')
    .addOption(new Option('--refresh-interval <duration>', 'how often a live cluster is read again').argParser(duration).default(60_000, '1m'))
    .option('--enable <ids>', 'run only these rules (comma-separated, repeatable)', ids, [] as string[])
    .option('--disable <ids>', 'skip these rules (comma-separated, repeatable)', ids, [] as string[])
    .option('--warn-only', 'never deny: error findings are returned as warnings too')
    .option('--mutate', 'serve /mutate: Windows-image pods without an OS nodeSelector or RuntimeClass get kubernetes.io/os: windows and the os=windows:NoSchedule toleration')
    .action(async (opts: WebhookCommandOptions, cmd: Command) => {
      const { runWebhook } = await import('./run.js');
      const usageError = await runWebhook(opts);
      if (usageError) cmd.error(`error: ${usageError}`);
    });
}

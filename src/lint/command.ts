/**
 * `winkube lint`: the command line only. What it does is in run.ts, loaded
 * when the command runs so other commands do not pay for the rules.
 */
import { Command, Option } from 'commander';
import { FAIL_ON_LEVELS } from './exit-code.js';

export const OUTPUT_FORMATS = ['human', 'json', 'sarif', 'junit'] as const;
export type OutputFormat = typeof OUTPUT_FORMATS[number];

export interface LintCommandOptions {
  cluster?: string;
  kubeconfig?: string;
  gmsa?: boolean;
  output: OutputFormat;
  failOn: string;
  enable: string[];
  disable: string[];
  listRules?: boolean;
  color?: boolean;
}

/** A repeatable, comma-separated list of rule ids. */
const ids = (v: string, previous: string[]): string[] => [...previous, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

export function registerLintCommand(program: Command): void {
  program.command('lint')
    .description('check manifests for Windows and mixed-OS mistakes against a cluster (the default cluster unless told otherwise)')
    .argument('[paths...]', 'manifest files, directories (searched for *.yaml, *.yml, *.json) or - for standard input')
    .option('--cluster <file>', 'a cluster file (winkube.io/v1alpha1 Cluster, as winkube up --config reads)')
    .addOption(new Option('--kubeconfig <file>', 'check against the nodes of a live cluster').conflicts('cluster'))
    .option('--gmsa', 'the cluster runs the GMSA admission webhook (as winkube up --gmsa); with --kubeconfig it is looked up')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('human'))
    .addOption(new Option('--fail-on <level>', 'the lowest severity that makes the exit code non-zero').choices(FAIL_ON_LEVELS).default('warning'))
    .option('--enable <ids>', 'run only these rules (comma-separated, repeatable)', ids, [] as string[])
    .option('--disable <ids>', 'skip these rules (comma-separated, repeatable)', ids, [] as string[])
    .option('--list-rules', 'print the rules and exit')
    .option('--no-color', 'no colour even on a terminal')
    .action(async (paths: string[], opts: LintCommandOptions, cmd: Command) => {
      const { runLint } = await import('./run.js');
      const r = await runLint(paths, opts, { stdoutIsTTY: process.stdout.isTTY === true });
      if (r.usageError) cmd.error(`error: ${r.usageError}`);
      process.stdout.write(r.stdout);
      process.exitCode = r.code;
    });
}

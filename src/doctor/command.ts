/**
 * `winkube doctor`: the command line only; the checks load when it runs so
 * other commands do not pay for them.
 */
import { Command, Option } from 'commander';

export const DOCTOR_OUTPUT_FORMATS = ['human', 'json'] as const;
export type DoctorOutputFormat = typeof DOCTOR_OUTPUT_FORMATS[number];

export interface DoctorOptions { kubeconfig: string; output: DoctorOutputFormat; color?: boolean }

export function registerDoctorCommand(program: Command): void {
  program.command('doctor')
    .description('diagnose the Windows nodes and workloads of a live cluster (winkube or any conformant one) from the API alone: the Windows troubleshooting guide as checks')
    .requiredOption('--kubeconfig <file>', 'a kubeconfig of the cluster (only list, get and /version calls are made)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(DOCTOR_OUTPUT_FORMATS).default('human'))
    .option('--no-color', 'no colour even on a terminal')
    .action(async (opts: DoctorOptions) => {
      const { runDoctor } = await import('./run.js');
      const r = await runDoctor(opts, { stdoutIsTTY: process.stdout.isTTY === true });
      process.stdout.write(r.stdout);
      process.exitCode = r.code;
    });
}

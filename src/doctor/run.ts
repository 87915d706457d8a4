/** `winkube doctor`: read the cluster, run the checks, print the report. */
import { readCluster } from './read-cluster.js';
import { diagnose, doctorExitCode } from './diagnose.js';
import { formatDoctorHuman } from './format-human.js';
import type { DoctorOptions } from './command.js';


export async function runDoctor(opts: DoctorOptions, env: { stdoutIsTTY: boolean }): Promise<{ stdout: string; code: number }> {
  const { snapshot, origin, unreadable } = await readCluster(opts.kubeconfig);
  const findings = diagnose(snapshot);
  const code = doctorExitCode(findings);
  if (opts.output === 'json') {
    return { stdout: `${JSON.stringify({ cluster: origin, serverVersion: snapshot.serverVersion ?? null, unreadable, findings }, null, 2)}\n`, code };
  }
  return { stdout: formatDoctorHuman(origin, findings, unreadable, opts.color !== false && env.stdoutIsTTY), code };
}

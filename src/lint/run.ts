/**
 * One `winkube lint` run: read the inputs, describe the cluster, lint,
 * format. Returns the output and exit code rather than printing, so tests
 * and the command share it.
 */
import { readFileSync } from 'node:fs';
import { parseClusterFile } from '../node/cluster-file.js';
import { describeLiveCluster } from './live-cluster.js';
import { describePools } from './cluster-description.js';
import { lint, UnknownRuleError } from './engine.js';
import { exitCode, type FailOn } from './exit-code.js';
import { formatHuman } from './format-human.js';
import { formatJSON } from './format-json.js';
import { formatJUnit } from './format-junit.js';
import { formatSARIF } from './format-sarif.js';
import { parseManifests, type ParseProblem } from './parse-manifests.js';
import { readInputs } from './read-inputs.js';
import { PARSE_ERROR, RULES } from './rules/index.js';
import type { LintCommandOptions } from './command.js';
import type { ClusterDescription, Manifest } from './types.js';
import { DEFAULT_POOLS } from '../node/pool.js';

export interface LintRun { stdout: string; code: number; usageError?: string }

export async function describeCluster(opts: Pick<LintCommandOptions, 'cluster' | 'kubeconfig' | 'gmsa'>): Promise<ClusterDescription> {
  if (opts.kubeconfig) {
    const live = await describeLiveCluster(opts.kubeconfig);
    return opts.gmsa ? { ...live, gmsaWebhook: true } : live;
  }
  const pools = opts.cluster ? parseClusterFile(readFileSync(opts.cluster, 'utf8')) : DEFAULT_POOLS;
  const c = describePools(pools, opts.cluster ?? 'the default cluster');
  return opts.gmsa ? { ...c, gmsaWebhook: true } : c;
}

export function listRules(): string {
  return `${[PARSE_ERROR, ...RULES].map((r) => `${r.id}  ${r.severity.padEnd(7)}  ${r.title}`).join('\n')}\n`;
}

export async function runLint(paths: readonly string[], opts: LintCommandOptions, env: { stdoutIsTTY: boolean; stdin?: () => string }): Promise<LintRun> {
  if (opts.listRules) return { stdout: listRules(), code: 0 };
  if (!paths.length) return { stdout: '', code: 1, usageError: 'no manifests given: name files, directories or - for standard input' };
  let cluster: ClusterDescription;
  let inputs;
  try {
    inputs = readInputs(paths, env.stdin ?? (() => readFileSync(0, 'utf8')));
    cluster = await describeCluster(opts);
  } catch (e) {
    // A missing input, a cluster file refused by its parser, a kubeconfig or server that cannot be read:
    // the command cannot start, as with a bad flag.
    if (e instanceof Error) return { stdout: '', code: 1, usageError: e.message };
    throw e;
  }
  const manifests: Manifest[] = [];
  const problems: ParseProblem[] = [];
  for (const input of inputs) {
    const parsed = parseManifests(input.text, input.file);
    manifests.push(...parsed.manifests);
    problems.push(...parsed.problems);
  }
  let findings;
  try {
    findings = lint(manifests, problems, cluster, { enable: opts.enable, disable: opts.disable });
  } catch (e) {
    if (e instanceof UnknownRuleError) return { stdout: '', code: 1, usageError: e.message };
    throw e;
  }
  const stdout = opts.output === 'json' ? formatJSON(findings, cluster.origin)
    : opts.output === 'sarif' ? formatSARIF(findings)
      : opts.output === 'junit' ? formatJUnit(findings, inputs.map((i) => i.file))
        : formatHuman(findings, env.stdoutIsTTY && opts.color !== false);
  return { stdout, code: exitCode(findings, opts.failOn as FailOn) };
}

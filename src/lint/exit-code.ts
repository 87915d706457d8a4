/**
 * The exit code: 2 when an error is at or above the fail level, 1 when any
 * other finding is, 0 otherwise. `--fail-on` sets the level (warning by
 * default; `none` never fails).
 */
import { SEVERITY_RANK, type Finding, type Severity } from './types.js';

export type FailOn = Severity | 'none';
export const FAIL_ON_LEVELS: readonly FailOn[] = ['error', 'warning', 'info', 'none'];

export function exitCode(findings: readonly Finding[], failOn: FailOn): number {
  if (failOn === 'none') return 0;
  const failing = findings.filter((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn]);
  if (failing.some((f) => f.severity === 'error')) return 2;
  return failing.length ? 1 : 0;
}

/** Runs every check on a snapshot: findings by severity (errors first), then in check order. */
import { SEVERITY_RANK } from '../lint/types.js';
import { CHECKS } from './checks/index.js';
import type { ClusterSnapshot, DoctorFinding } from './types.js';

export function diagnose(c: ClusterSnapshot): DoctorFinding[] {
  const found = CHECKS.flatMap((check) => check.run(c));
  // Array.prototype.sort is stable, so check order survives within a severity.
  return found.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
}

/** 2 with any error, 1 with any warning, 0 otherwise (info never fails), as `winkube lint`'s default. */
export function doctorExitCode(findings: readonly DoctorFinding[]): number {
  if (findings.some((f) => f.severity === 'error')) return 2;
  return findings.some((f) => f.severity === 'warning') ? 1 : 0;
}

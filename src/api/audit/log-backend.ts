/**
 * The log backend of kube-apiserver's --audit-log-* flags: the events of
 * --audit-policy-file written as JSON lines to --audit-log-path, or to
 * standard output for `-`. Without a path or a policy nothing is audited.
 */
import { Auditor, type AuditSink } from './auditor.js';
import type { Policy } from './policy.js';
import { RotatingLog, type RotationOptions } from './rotating-log.js';

export interface AuditLogOptions extends RotationOptions {
  policy: Policy;
  path: string;
}

export interface AuditLog {
  auditor: Auditor;
  close(): void;
}

export function openAuditLog(opts: AuditLogOptions): AuditLog {
  const sink: AuditSink & { close?(): void } = opts.path === '-'
    ? { write: (line) => { process.stdout.write(line); } }
    : new RotatingLog(opts.path, opts);
  return { auditor: new Auditor(opts.policy, sink), close: () => sink.close?.() };
}

/** The --audit-log-maxage/maxbackup/maxsize checks (AuditLogOptions.Validate), each as upstream words it. */
export function validateAuditLogLimits(o: RotationOptions): string[] {
  const errs: string[] = [];
  if (o.maxAgeDays < 0) errs.push(`--audit-log-maxage ${o.maxAgeDays} can't be a negative number`);
  if (o.maxBackups < 0) errs.push(`--audit-log-maxbackup ${o.maxBackups} can't be a negative number`);
  if (o.maxSizeMB < 0) errs.push(`--audit-log-maxsize ${o.maxSizeMB} can't be a negative number`);
  return errs;
}

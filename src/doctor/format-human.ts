/**
 * The terminal report: findings grouped by severity under a heading, each
 * with its object, message, evidence, the guide's explanation and the fix;
 * then lint's summary line. Colour only when asked (a TTY).
 */
import { objectName } from '../lint/format-human.js';
import { SEVERITIES, type Severity } from '../lint/types.js';
import type { DoctorFinding } from './types.js';

const COLOUR: Record<Severity, string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m' };
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const HEADING: Record<Severity, string> = { error: 'Errors', warning: 'Warnings', info: 'Info' };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function doctorSummary(findings: readonly DoctorFinding[]): string {
  const n = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return `${plural(findings.length, 'finding')}: ${plural(n('error'), 'error')}, ${plural(n('warning'), 'warning')}, ${n('info')} info`;
}

export function formatDoctorHuman(origin: string, findings: readonly DoctorFinding[], unreadable: readonly string[], colour: boolean): string {
  const paint = (code: string, s: string) => (colour ? `${code}${s}${RESET}` : s);
  const lines = [`winkube doctor: ${origin}`];
  for (const u of unreadable) lines.push(paint(DIM, `not read: ${u}`));
  for (const sev of SEVERITIES) {
    const group = findings.filter((f) => f.severity === sev);
    if (group.length === 0) continue;
    lines.push('', paint(COLOUR[sev], `${HEADING[sev]} (${group.length})`));
    for (const f of group) {
      const what = objectName(f.object);
      lines.push(`${paint(COLOUR[sev], sev)} ${f.check} ${what ? `${what}: ` : ''}${f.message}`);
      for (const e of f.evidence) lines.push(`  evidence: ${e}`);
      lines.push(paint(DIM, `  why: ${f.explanation}`));
      lines.push(paint(DIM, `  fix: ${f.fix}`));
      lines.push(paint(DIM, `  see: ${f.reference}`));
    }
  }
  lines.push('', doctorSummary(findings));
  return `${lines.join('\n')}\n`;
}

/**
 * The terminal report: one line per finding (file:line, severity, rule,
 * object, field, message), the fix indented below, and a summary. Colour
 * only when asked (the command asks when stdout is a TTY).
 */
import { SEVERITIES, type Finding, type ObjectRef, type Severity } from './types.js';

const COLOUR: Record<Severity, string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m' };
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';

export function objectName(o: ObjectRef): string {
  if (!o.kind) return '';
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

export function location(f: Finding): string {
  return `${f.source.file}:${f.source.line}${f.source.helmSource ? ` (${f.source.helmSource})` : ''}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summary(findings: readonly Finding[]): string {
  const counts = SEVERITIES.map((s) => findings.filter((f) => f.severity === s).length);
  return `${plural(findings.length, 'finding')}: ${plural(counts[0] ?? 0, 'error')}, ${plural(counts[1] ?? 0, 'warning')}, ${counts[2] ?? 0} info`;
}

export function formatHuman(findings: readonly Finding[], colour: boolean): string {
  const paint = (code: string, s: string) => (colour ? `${code}${s}${RESET}` : s);
  const lines: string[] = [];
  for (const f of findings) {
    // Upstream's texts (validation errors, server warnings) begin with the field path already.
    const path = f.message.startsWith(`${f.path}:`) ? '' : f.path;
    const what = [objectName(f.object), path].filter(Boolean).join(' ');
    lines.push(`${location(f)}: ${paint(COLOUR[f.severity], f.severity)} ${f.rule} ${what ? `${what}: ` : ''}${f.message}`);
    lines.push(paint(DIM, `  fix: ${f.fix}`));
  }
  lines.push(summary(findings));
  return `${lines.join('\n')}\n`;
}

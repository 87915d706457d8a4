/**
 * `-o junit`: JUnit XML as CI systems read it (the Ant junit schema): one
 * testsuite per file, one testcase per checked object and rule that found
 * something, a <failure> per finding (info findings are not failures:
 * they go to <system-out>).
 */
import { location, objectName } from './format-human.js';
import type { Finding } from './types.js';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function formatJUnit(findings: readonly Finding[], files: readonly string[]): string {
  const byFile = new Map<string, Finding[]>(files.map((f) => [f, []]));
  for (const f of findings) {
    const list = byFile.get(f.source.file) ?? [];
    list.push(f);
    byFile.set(f.source.file, list);
  }
  const failures = findings.filter((f) => f.severity !== 'info').length;
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="winkube lint" tests="${findings.length}" failures="${failures}">`];
  for (const [file, list] of byFile) {
    const fails = list.filter((f) => f.severity !== 'info').length;
    out.push(`  <testsuite name="${xml(file)}" tests="${list.length}" failures="${fails}" errors="0">`);
    for (const f of list) {
      const name = `${f.rule} ${[objectName(f.object), f.path].filter(Boolean).join(' ')}`;
      out.push(`    <testcase classname="${xml(file)}" name="${xml(name)}">`);
      const body = `${location(f)}: ${f.message}\nfix: ${f.fix}`;
      if (f.severity === 'info') out.push(`      <system-out>${xml(body)}</system-out>`);
      else out.push(`      <failure type="${f.severity}" message="${xml(f.message)}">${xml(body)}</failure>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

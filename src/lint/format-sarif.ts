/**
 * `-o sarif`: SARIF 2.1.0 as GitHub code scanning reads it
 * (docs.github.com "SARIF support for code scanning"): the rules in
 * tool.driver.rules with their help, one result per finding with the
 * document's file and start line as its physical location, and the object
 * and field path as a logical location.
 */
import { PARSE_ERROR, RULES } from './rules/index.js';
import { objectName } from './format-human.js';
import { EMULATED_VERSION } from '../apimachinery/version.js';
import type { Finding, Severity } from './types.js';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };
export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

export function formatSARIF(findings: readonly Finding[]): string {
  const rules = [PARSE_ERROR, ...RULES];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'winkube lint',
          version: EMULATED_VERSION.gitVersion,
          informationUri: 'https://kubernetes.io/docs/concepts/windows/intro/',
          rules: rules.map((r) => ({
            id: r.id,
            name: r.id,
            shortDescription: { text: r.title },
            fullDescription: { text: r.help },
            help: { text: r.help },
            defaultConfiguration: { level: LEVEL[r.severity] },
          })),
        },
      },
      results: findings.map((f) => ({
        ruleId: f.rule,
        ruleIndex: index.get(f.rule) ?? 0,
        level: LEVEL[f.severity],
        message: { text: `${f.message}. Fix: ${f.fix}` },
        locations: [{
          physicalLocation: {
            artifactLocation: { uri: f.source.file === '-' ? 'stdin' : f.source.file.split('\\').join('/') },
            region: { startLine: f.source.line },
          },
          ...(f.object.kind ? { logicalLocations: [{ fullyQualifiedName: `${objectName(f.object)}${f.path ? ` ${f.path}` : ''}`, kind: 'object' }] } : {}),
        }],
      })),
    }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

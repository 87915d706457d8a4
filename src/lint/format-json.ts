/** `-o json`: the findings as they are, with the cluster they were checked against. */
import type { Finding } from './types.js';

export function formatJSON(findings: readonly Finding[], cluster: string): string {
  return `${JSON.stringify({ cluster, findings }, null, 2)}\n`;
}

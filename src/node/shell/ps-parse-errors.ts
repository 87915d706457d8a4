/**
 * Parse errors PowerShell reports before it runs any of a script: `<`, the
 * input redirection PowerShell reserves and never implemented
 * (RedirectionNotSupported, "The '<' operator is reserved for future use.").
 * Windows PowerShell 5.1 prints every error's position, then the record's
 * CategoryInfo and FullyQualifiedErrorId once, and runs nothing.
 */

export interface ParseError {
  /** 1-based line and column of the offending token. */
  line: number;
  col: number;
  message: string;
  id: string;
}

/** The reserved operators of a script whose comments are already blanked (columns kept). */
export function reservedOperators(src: string): ParseError[] {
  const out: ParseError[] = [];
  let line = 1; let lineStart = 0; let q: string | null = null;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\n') { line++; lineStart = i + 1; continue; }
    if (q) {
      if (q === '"' && c === '`') { i++; continue; }
      if (c === q) { if (src[i + 1] === q) i++; else q = null; }
      continue;
    }
    if (c === '"' || c === "'") { q = c; continue; }
    if (c === '<') out.push({ line, col: i - lineStart + 1, message: "The '<' operator is reserved for future use.", id: 'RedirectionNotSupported' });
  }
  return out;
}

/** 5.1's view of a ParseException: each error at its position, then the record's category and id. */
export function parseErrorView(src: string, errors: readonly ParseError[]): string {
  const lines = src.split('\n').map((l) => l.replace(/\r$/, ''));
  const blocks = errors.map((e) => `At line:${e.line} char:${e.col}\r\n+ ${lines[e.line - 1] ?? ''}\r\n+ ${' '.repeat(e.col - 1)}~\r\n${e.message}\r\n`);
  return `${blocks.join('')}    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\r\n` +
    `    + FullyQualifiedErrorId : ${errors[0]?.id ?? ''}\r\n \r\n`;
}

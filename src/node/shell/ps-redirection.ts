/**
 * PowerShell's redirection operators in a statement (about_Redirection):
 * `>`/`>>` (the success stream, 1), `n>`/`n>>` for the error (2), warning
 * (3), verbose (4), debug (5) and information (6) streams, `*>`/`*>>` for
 * all of them, and `n>&1`/`*>&1`, which merge a stream into the success
 * stream. A file target is written by Out-File; an empty one (`$null`)
 * discards the stream.
 */

export type PsStream = 1 | 2 | 3 | 4 | 5 | 6;
export const ALL_STREAMS: readonly PsStream[] = [1, 2, 3, 4, 5, 6];

export type PsRedirection =
  | { streams: readonly PsStream[]; kind: 'file'; append: boolean; target: string }
  | { streams: readonly PsStream[]; kind: 'merge' };

/** The index after a quoted string starting at `i` (`''` doubles a single quote, a backtick escapes in double quotes). */
function quotedEnd(s: string, i: number): number {
  const q = s[i];
  for (let j = i + 1; j < s.length; j++) {
    if (q === '"' && s[j] === '`') { j++; continue; }
    if (s[j] === q) { if (s[j + 1] === q) { j++; continue; } return j + 1; }
  }
  return s.length;
}

/** The index after the bracketed group opening at `i`, skipping quoted strings. */
function groupEnd(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === '"' || c === "'") { j = quotedEnd(s, j) - 1; continue; }
    if (c === '(' || c === '{' || c === '[') depth++;
    else if ((c === ')' || c === '}' || c === ']') && --depth === 0) return j + 1;
  }
  return s.length;
}

/** The target token after an operator: a quoted string, `$(...)`/`(...)`, a variable, or a bare word. */
function targetEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"' || c === "'") return quotedEnd(s, i);
  if (c === '(') return groupEnd(s, i);
  if (c === '$' && s[i + 1] === '(') return groupEnd(s, i + 1);
  let j = i;
  while (j < s.length && !/[\s;|>)]/.test(s[j] ?? '')) {
    if (s[j] === '"' || s[j] === "'") j = quotedEnd(s, j); else j++;
  }
  return j;
}

/**
 * A statement's text without its redirections, and the redirections in
 * order. Only `>` outside quotes and brackets is an operator (nested
 * statements in `{...}` and `(...)` have their own); a stream digit or `*`
 * belongs to it when it starts a token. `n>&m` with m other than 1 is left
 * in the text: Windows PowerShell reserves it.
 */
export function takePsRedirections(text: string): { text: string; redirections: PsRedirection[] } {
  const redirections: PsRedirection[] = [];
  let out = ''; let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") { i = quotedEnd(text, i) - 1; continue; }
    if (c === '(' || c === '{' || c === '[') { i = groupEnd(text, i) - 1; continue; }
    if (c !== '>') continue;
    const prev = text[i - 1] ?? '';
    const named = /[1-6*]/.test(prev) && (i === 1 || /\s/.test(text[i - 2] ?? ''));
    const streams: readonly PsStream[] = !named ? [1] : prev === '*' ? ALL_STREAMS : [Number(prev) as PsStream];
    const start = named ? i - 1 : i;
    let j = i + 1;
    const append = text[j] === '>';
    if (append) j++;
    if (!append && text[j] === '&') {
      if (text[j + 1] !== '1') { i = j; continue; }
      redirections.push({ streams, kind: 'merge' });
      j += 2;
    } else {
      while (text[j] === ' ' || text[j] === '\t') j++;
      const end = targetEnd(text, j);
      redirections.push({ streams, kind: 'file', append, target: text.slice(j, end) });
      j = end;
    }
    out += text.slice(last, start);
    last = j;
    i = j - 1;
  }
  return { text: (out + text.slice(last)).trim(), redirections };
}

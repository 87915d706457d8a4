/**
 * cmd.exe's redirections of one command: `>file`, `>>file`, `n>file`,
 * `n>&m`, `>nul`. cmd takes them out of the command's text before the
 * command sees it and applies them left to right, so `>f 2>&1` sends both
 * handles to f while `2>&1 >f` leaves errors on the console.
 */

export interface CmdRedirection {
  /** The handle redirected: 1 (stdout, the default), 2 (stderr), or another digit. */
  fd: number;
  op: '>' | '>>' | '>&';
  /** The file (quotes removed), or the handle digit of `>&`. */
  target: string;
}

/**
 * Splits a command's text into the text without its redirections and the
 * redirections in order. Only `>` outside double quotes redirects; a digit
 * right before it names the handle when the digit starts a word (`echo 1>f`
 * redirects handle 1, `echo a1>f` echoes "a1"). The text around a
 * redirection stays as it was, spaces included: `echo x > f` echoes "x ".
 */
export function takeRedirections(text: string): { text: string; redirections: CmdRedirection[] } {
  const redirections: CmdRedirection[] = [];
  let out = ''; let last = 0; let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') { quoted = !quoted; continue; }
    if (quoted || c !== '>') continue;
    const digit = text[i - 1] ?? '';
    const handle = /\d/.test(digit) && (i === 1 || /\s/.test(text[i - 2] ?? ''));
    const start = handle ? i - 1 : i;
    const fd = handle ? Number(digit) : 1;
    let j = i + 1;
    const append = text[j] === '>';
    if (append) j++;
    if (text[j] === '&' && /\d/.test(text[j + 1] ?? '')) {
      redirections.push({ fd, op: '>&', target: text[j + 1] ?? '' });
      j += 2;
    } else {
      while (text[j] === ' ' || text[j] === '\t') j++;
      let target: string;
      if (text[j] === '"') {
        const close = text.indexOf('"', j + 1);
        const end = close === -1 ? text.length : close + 1;
        target = text.slice(j + 1, close === -1 ? text.length : close);
        j = end;
      } else {
        const from = j;
        while (j < text.length && !/[\s<>&|]/.test(text[j] ?? '')) j++;
        target = text.slice(from, j);
      }
      redirections.push({ fd, op: append ? '>>' : '>', target });
    }
    out += text.slice(last, start);
    last = j;
    i = j - 1;
  }
  return { text: out + text.slice(last), redirections };
}

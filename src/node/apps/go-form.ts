/**
 * net/http's Request.ParseForm as a Go handler sees it: url.ParseQuery on
 * an application/x-www-form-urlencoded POST, PUT or PATCH body, then on the
 * URL's query, the body's values first (Form.Get returns the first). Each
 * pair is `key=value` split at `&`, `+` and `%XX` unescaped; a key with a
 * `;`, or a bad escape, is skipped and its error is what ParseForm returns
 * (the first one), as Go 1.17 and later do.
 */

export interface GoForm {
  values: Map<string, string[]>;
  /** The first error's text (`invalid URL escape "%zz"`, `invalid semicolon separator in query`). */
  error?: string;
}

/** url.QueryUnescape: the string, or the EscapeError's text. */
function queryUnescape(s: string): { value: string } | { error: string } {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return { error: `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}` };
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+') bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return { value: Buffer.from(bytes).toString('utf8') };
}

/** url.ParseQuery into `into`; the first error, if any. */
export function parseGoQuery(query: string, into: Map<string, string[]>): string | undefined {
  let error: string | undefined;
  for (const pair of query.split('&')) {
    if (pair.includes(';')) { error ??= 'invalid semicolon separator in query'; continue; }
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq === -1 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq === -1 ? '' : pair.slice(eq + 1));
    if ('error' in key) { error ??= key.error; continue; }
    if ('error' in value) { error ??= value.error; continue; }
    into.set(key.value, [...(into.get(key.value) ?? []), value.value]);
  }
  return error;
}

export function parseGoForm(req: { method: string; target: string; contentType?: string; body: string }): GoForm {
  const values = new Map<string, string[]>();
  let error: string | undefined;
  const mediaType = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if ((req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') && mediaType === 'application/x-www-form-urlencoded') {
    error = parseGoQuery(req.body, values);
  }
  const q = req.target.indexOf('?');
  const fromURL = parseGoQuery(q === -1 ? '' : req.target.slice(q + 1).replace(/#.*$/, ''), values);
  return { values, ...(error ?? fromURL ? { error: error ?? fromURL } : {}) };
}

/** url.Values.Get: the first value, or the empty string. */
export const formGet = (form: GoForm, key: string) => form.values.get(key)?.[0] ?? '';

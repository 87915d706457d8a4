/**
 * Windows PowerShell 5.1's `ConvertTo-Json` layout, as the files its scripts
 * write look (sig-windows-tools' flannel start.ps1 writes the node's CNI
 * config with `ConvertTo-Json -depth 100 | Set-Content`): JavaScriptSerializer's
 * JSON re-indented so that a nested object or array is indented four spaces
 * past the column of its opening bracket, `":  "` between a name and its
 * value, CRLF line ends.
 */
export type PSJsonValue = string | number | boolean | null | PSJsonValue[] | { [key: string]: PSJsonValue };

/** JavaScriptSerializer also escapes the HTML-significant characters. */
function quote(s: string): string {
  return JSON.stringify(s).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function render(v: PSJsonValue, column: number): string {
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? quote(v) : String(v);
  const pad = ' '.repeat(column + 4);
  const close = ' '.repeat(column);
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[\r\n${v.map((x) => pad + render(x, column + 4)).join(',\r\n')}\r\n${close}]`;
  }
  const entries = Object.entries(v);
  if (!entries.length) return '{}';
  const lines = entries.map(([k, x]) => {
    const head = `${quote(k)}:  `;
    return pad + head + render(x, column + 4 + head.length);
  });
  return `{\r\n${lines.join(',\r\n')}\r\n${close}}`;
}

/** `ConvertTo-Json` of a value (without the line end Set-Content adds). */
export function convertToJsonPS51(v: PSJsonValue): string {
  return render(v, 0);
}

/**
 * What Invoke-WebRequest returns for a response, and the host's default
 * view of it: Windows PowerShell 5.1's HtmlWebResponseObject view
 * (StatusCode, StatusDescription, Content, RawContent, Forms, Headers,
 * Images, InputFields, Links, ParsedHtml, RawContentLength) and
 * PowerShell 7's BasicHtmlWebResponseObject view (no Forms or ParsedHtml,
 * RelationLink last). Content and RawContent are cut at 200 characters
 * and `...`; multi-line values continue under the first line's column; a
 * collection shows as `{...}`, a dictionary its first
 * $FormatEnumerationLimit (4) pairs. Lines are not wrapped at the console
 * width. (Windows PowerShell transcripts of this view keep `Forms : ` and
 * the blank continuation line after a page's last newline.)
 */
import type { HttpResponse } from './net-types.js';
import { responseHead } from './http-client.js';
import { display, psObject, type PsObject, type Value } from './ps-values.js';

/** Content and RawContent show their first 200 characters, then `...`. */
const TRUNCATED = new Set(['Content', 'RawContent']);
const TRUNCATE_AT = 200;

/** $FormatEnumerationLimit's default. */
const ENUMERATION_LIMIT = 4;

const VIEW_51 = ['StatusCode', 'StatusDescription', 'Content', 'RawContent', 'Forms', 'Headers', 'Images', 'InputFields', 'Links', 'ParsedHtml', 'RawContentLength'];
const VIEW_7 = ['StatusCode', 'StatusDescription', 'Content', 'RawContent', 'Headers', 'Images', 'InputFields', 'Links', 'RawContentLength', 'RelationLink'];

/** `{[k, v], [k, v]...}`: a dictionary in a list view. */
function pairs(headers: [string, string][]): string {
  const shown = headers.slice(0, ENUMERATION_LIMIT).map(([k, v]) => `[${k}, ${v}]`).join(', ');
  return `{${shown}${headers.length > ENUMERATION_LIMIT ? '...' : ''}}`;
}

function webView(names: string[]) {
  return (group: PsObject[]): string => group.map((o) => {
    const w = Math.max(...names.map((n) => n.length));
    const lines = names.map((n) => {
      const v = o.props[n] ?? null;
      const text = n === 'Headers' ? pairs((o.props.__headers ?? []) as unknown as [string, string][])
        : Array.isArray(v) ? `{${v.map(display).join(', ')}}`
          : TRUNCATED.has(n) && display(v).length > TRUNCATE_AT ? `${display(v).slice(0, TRUNCATE_AT)}...` : display(v);
      // Format-List writes each line whole: the label's `: ` and the continuation indent even before nothing.
      const [first = '', ...rest] = text.split(/\r?\n/);
      return [`${n.padEnd(w)} : ${first}`, ...rest.map((l) => `${' '.repeat(w + 3)}${l}`)].join('\r\n');
    });
    return `\r\n${lines.join('\r\n')}\r\n\r\n`;
  }).join('');
}

const view51 = webView(VIEW_51);
const view7 = webView(VIEW_7);

/** The response object of Invoke-WebRequest. */
export function webResponseObject(r: HttpResponse, version: 5 | 7): PsObject {
  const content = Buffer.from(r.body).toString('utf8');
  // Header values as the dictionary holds them: one entry per name, repeated names joined by commas.
  const merged: [string, string][] = [];
  for (const [k, v] of r.headers) {
    const at = merged.find(([m]) => m.toLowerCase() === k.toLowerCase());
    if (at) at[1] = `${at[1]},${v}`; else merged.push([k, v]);
  }
  const headers = psObject('System.Collections.Generic.Dictionary`2[System.String,System.String]',
    Object.fromEntries(merged.map(([k, v]) => [k, v as Value])));
  const props: Record<string, Value> = {
    StatusCode: r.status,
    StatusDescription: r.reason,
    Content: content,
    RawContent: responseHead(r) + content,
    ...(version === 5 ? { Forms: null } : {}),
    Headers: headers,
    Images: [], InputFields: [], Links: [],
    ...(version === 5 ? { ParsedHtml: null } : {}),
    RawContentLength: r.body.length,
    ...(version === 7 ? { RelationLink: [] } : {}),
  };
  // The list view shows the pairs in the order the server sent them.
  props.__headers = merged;
  return psObject('Microsoft.PowerShell.Commands.BasicHtmlWebResponseObject', props, undefined, version === 5 ? view51 : view7);
}

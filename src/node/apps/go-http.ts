/**
 * How a Go program's net/http server answers and how its `log` package
 * writes (agnhost's subcommands are Go programs): a handler's response with
 * the headers net/http adds after the handler's own (chunkWriter.writeHeader:
 * Date, Content-Length, then a sniffed Content-Type when the body is not
 * empty), and log lines as `2006/01/02 15:04:05 message` on stderr.
 */
import { REASONS } from '../shell/http-client.js';
import type { HttpResponse } from '../shell/net-types.js';
import { httpDate, type Output } from './http-server.js';

/** net/http's StatusText for the statuses the modelled handlers send (beyond the clients' table). */
const GO_STATUS_TEXT: Record<number, string> = {
  ...REASONS, 100: 'Continue', 202: 'Accepted', 206: 'Partial Content', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 412: 'Precondition Failed', 417: 'Expectation Failed',
  418: "I'm a teapot", 429: 'Too Many Requests', 501: 'Not Implemented', 504: 'Gateway Timeout',
};

export const goStatusText = (code: number) => GO_STATUS_TEXT[code] ?? '';

/** The log package's standard prefix (LstdFlags) in UTC. */
export const goLogTime = (d: Date) => d.toISOString().slice(0, 19).replace(/-/g, '/').replace('T', ' ');

export const goLog = (now: Date, text: string): Output => ({ kind: 'stderr', text: `${goLogTime(now)} ${text}\n` });

/** http.DetectContentType for text bodies: the HTML signatures, else UTF-8 text. */
export function detectContentType(body: Uint8Array): string {
  const head = Buffer.from(body.subarray(0, 512)).toString('latin1').replace(/^[\t\n\f\r ]+/, '');
  if (/^<(?:!DOCTYPE HTML|HTML|HEAD|SCRIPT|IFRAME|H1|DIV|FONT|TABLE|A|STYLE|TITLE|B|BODY|BR|P|!--)[ >]/i.test(head)) return 'text/html; charset=utf-8';
  if (/^<\?xml/.test(head)) return 'text/xml; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

/** A handler's response as net/http writes it; `headers` are the ones the handler set. */
export function goResponse(now: Date, status: number, body: string, headers: [string, string][] = []): HttpResponse {
  const bytes = Buffer.from(body, 'utf8');
  const own = [...headers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: [string, string][] = [...own, ['Date', httpDate(now)], ['Content-Length', String(bytes.length)]];
  if (bytes.length && !headers.some(([k]) => k.toLowerCase() === 'content-type')) out.push(['Content-Type', detectContentType(bytes)]);
  return { status, reason: goStatusText(status), headers: out, body: bytes };
}

/**
 * time.Time's String: `2006-01-02 15:04:05.999999999 -0700 MST` and, for a
 * time.Now() reading, its monotonic clock since the process started
 * (`m=+1.000000001`).
 */
export function goTimeString(now: Date, sinceStartMs: number): string {
  const frac = String(now.getUTCMilliseconds()).padStart(3, '0').replace(/0+$/, '');
  const base = now.toISOString().slice(0, 19).replace('T', ' ');
  const secs = Math.floor(sinceStartMs / 1000);
  const nanos = String((sinceStartMs % 1000) * 1_000_000).padStart(9, '0');
  return `${base}${frac ? `.${frac}` : ''} +0000 UTC m=+${secs}.${nanos}`;
}

/** net.Listen's error when the port is taken, as log.Fatal prints it (then the process exits 1). */
export const goBindError = (now: Date, port: number): Output => goLog(now, `listen tcp :${port}: bind: address already in use`);

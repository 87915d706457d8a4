/**
 * curl (8.x, Linux images and Windows' curl.exe) and busybox wget as HTTP
 * clients of the cluster network: the request they send, the body (or
 * head) they print, and their own error texts and exit codes when the
 * name does not resolve, the connection is refused or times out, or the
 * server answers an error with --fail.
 *
 * curl's connect errors are lib/connect.c's `Failed to connect to <host>
 * port <port> after <ms> ms: <curl_easy_strerror>`, where <host> is the
 * URL's host: CURLE_COULDNT_CONNECT's "Couldn't connect to server" for a
 * refusal (and for the kernel giving up its SYN retries, which exits 28),
 * CURLE_OPERATION_TIMEDOUT's "Timeout was reached" when --connect-timeout
 * or --max-time ran out. The progress meter curl writes to stderr when its
 * output is not a terminal is not drawn: use -s (and -S for the errors).
 */
import { awaitPending, fetchHttp, parseHttpUrl, responseHead, type FetchOutcome, type HttpTarget } from './http-client.js';
import type { HttpRequest } from './net-types.js';
import { parsePEMCertificates } from '../../network/tls-verify.js';
import type { ShellContext, Step } from './types.js';

type Out = (text: string) => Generator<Step, void, void>;

export interface ToolIO {
  ctx: ShellContext;
  out: Out;
  err: Out;
  /** Writes a file (-o, -O); false when the path cannot be written. */
  writeFile(path: string, content: string): boolean;
  /** Reads a file (--cacert); undefined when there is none. */
  readFile(path: string): string | undefined;
  /** The line end the program writes (`\n`; curl.exe's own messages end in `\n` too, cmd shows them as they are). */
  eol?: string;
}

/** How long a Linux connect waits for a SYN-ACK before the kernel gives up (tcp_syn_retries 6: 1+2+...+64 s). */
export const LINUX_CONNECT_TIMEOUT_MS = 127_000;
/** Windows gives up a TCP connect after its SYN retransmissions (about 21 s). */
export const WINDOWS_CONNECT_TIMEOUT_MS = 21_000;
/** A refused connect on Windows: the stack retries twice, 500 ms and 1 s apart, before it reports the RST. */
export const WINDOWS_REFUSED_MS = 2000;

export const CURL_VERSION = '8.11.1';

interface CurlOptions {
  url?: string;
  silent: boolean; showError: boolean; fail: boolean; include: boolean; head: boolean;
  method?: string; data?: string; headers: string[]; output?: string; writeOut?: string;
  connectTimeoutMs?: number; maxTimeMs?: number; insecure: boolean; cacert?: string;
}

const CURL_VALUE_OPTIONS: Record<string, keyof CurlOptions | 'ignore'> = {
  '-X': 'method', '--request': 'method', '-d': 'data', '--data': 'data', '--data-raw': 'data', '--data-binary': 'data',
  '-H': 'headers', '--header': 'headers', '-o': 'output', '--output': 'output', '-w': 'writeOut', '--write-out': 'writeOut',
  '--connect-timeout': 'connectTimeoutMs', '-m': 'maxTimeMs', '--max-time': 'maxTimeMs',
  '-A': 'ignore', '--user-agent': 'ignore', '-u': 'ignore', '--user': 'ignore', '-e': 'ignore', '--referer': 'ignore',
  '--cacert': 'cacert', '--retry': 'ignore', '--resolve': 'ignore', '-x': 'ignore', '--proxy': 'ignore',
};
const CURL_FLAGS: Record<string, keyof CurlOptions | 'ignore'> = {
  s: 'silent', S: 'showError', f: 'fail', i: 'include', I: 'head', L: 'ignore', k: 'insecure', v: 'ignore', N: 'ignore', '4': 'ignore', '#': 'ignore',
  // -g turns off URL globbing, which the model does not do; -q skips .curlrc, which no modelled image has.
  g: 'ignore', q: 'ignore',
};
const CURL_LONG_FLAGS: Record<string, keyof CurlOptions | 'ignore'> = {
  '--silent': 'silent', '--show-error': 'showError', '--fail': 'fail', '--include': 'include', '--head': 'head',
  '--location': 'ignore', '--insecure': 'insecure', '--verbose': 'ignore', '--no-buffer': 'ignore', '--ipv4': 'ignore', '--compressed': 'ignore',
  '--globoff': 'ignore', '--disable': 'ignore',
};

type Parsed = { ok: true; opts: CurlOptions } | { ok: false; message: string; code: number };

function parseCurl(args: readonly string[]): Parsed {
  const opts: CurlOptions = { silent: false, showError: false, fail: false, include: false, head: false, headers: [], insecure: false };
  const set = (key: keyof CurlOptions | 'ignore', value: string): Parsed | undefined => {
    if (key === 'ignore') return undefined;
    if (key === 'headers') { opts.headers.push(value); return undefined; }
    if (key === 'connectTimeoutMs' || key === 'maxTimeMs') {
      const s = Number(value);
      if (!Number.isFinite(s) || s < 0) return { ok: false, message: `curl: option ${key === 'maxTimeMs' ? '--max-time' : '--connect-timeout'}: expected a proper numerical parameter`, code: 2 };
      opts[key] = Math.round(s * 1000);
      return undefined;
    }
    (opts as unknown as Record<string, unknown>)[key] = value;
    return undefined;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const valueKey = CURL_VALUE_OPTIONS[a];
    if (valueKey) {
      const v = args[++i];
      if (v === undefined) return { ok: false, message: `curl: option ${a}: requires parameter`, code: 2 };
      const bad = set(valueKey, v); if (bad) return bad;
      continue;
    }
    if (a.startsWith('--')) {
      const key = CURL_LONG_FLAGS[a];
      if (!key) return { ok: false, message: `curl: option ${a}: is unknown`, code: 2 };
      if (key !== 'ignore') (opts as unknown as Record<string, boolean>)[key] = true;
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const f = a[j]!;
        const flag = CURL_FLAGS[f];
        if (flag) { if (flag !== 'ignore') (opts as unknown as Record<string, boolean>)[flag] = true; continue; }
        const withValue = CURL_VALUE_OPTIONS[`-${f}`];
        if (withValue) {
          // `-oFILE` or `-o FILE`: the rest of the word, else the next argument.
          const rest = a.slice(j + 1);
          const v = rest || args[++i];
          if (v === undefined) return { ok: false, message: `curl: option -${f}: requires parameter`, code: 2 };
          const bad = set(withValue, v); if (bad) return bad;
          break;
        }
        return { ok: false, message: `curl: option ${a}: is unknown`, code: 2 };
      }
      continue;
    }
    opts.url = a;
  }
  return { ok: true, opts };
}

/** The request a client sends: its own headers first, then the user's (-H replaces one of the same name). */
function buildRequest(method: string, t: HttpTarget, own: [string, string][], user: string[], body: string): HttpRequest {
  const headers: [string, string][] = [['Host', t.hostHeader], ...own];
  for (const h of user) {
    const i = h.indexOf(':');
    if (i <= 0) continue;
    const name = h.slice(0, i).trim();
    const value = h.slice(i + 1).trim();
    const at = headers.findIndex(([k]) => k.toLowerCase() === name.toLowerCase());
    if (at !== -1) { if (value) headers[at] = [name, value]; else headers.splice(at, 1); } else if (value) headers.push([name, value]);
  }
  return { method, target: t.target, headers, body: Buffer.from(body, 'utf8') };
}

/** curl as a container runs it; `windows` for curl.exe (its connect timing and messages' line ends). */
export function* curl(args: readonly string[], io: ToolIO, windows = false): Generator<Step, number, void> {
  const eol = io.eol ?? '\n';
  const parsed = parseCurl(args);
  if (!parsed.ok) {
    yield* io.err(`${parsed.message}${eol}curl: try 'curl --help' or 'curl --manual' for more information${eol}`);
    return parsed.code;
  }
  const o = parsed.opts;
  // A transfer that fails still writes its -w output: http_code 000 when no response came.
  const error = function* (code: number, message: string, reply?: Extract<FetchOutcome, { kind: 'response' }>): Generator<Step, number, void> {
    if (!o.silent || o.showError) yield* io.err(`curl: (${code}) ${message}${eol}`);
    if (o.writeOut !== undefined) yield* io.out(writeOut(o.writeOut, reply, 0));
    return code;
  };
  if (o.url === undefined) {
    yield* io.err(`curl: no URL specified${eol}curl: try 'curl --help' or 'curl --manual' for more information${eol}`);
    return 2;
  }
  const t = parseHttpUrl(o.url);
  if (!t) {
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(o.url)?.[1];
    if (scheme) return yield* error(1, `Protocol "${scheme}" not supported`);
    return yield* error(3, 'URL rejected: No host part in the URL');
  }
  const method = o.method ?? (o.head ? 'HEAD' : o.data !== undefined ? 'POST' : 'GET');
  const own: [string, string][] = [['User-Agent', `curl/${CURL_VERSION}`], ['Accept', '*/*']];
  if (o.data !== undefined) own.push(['Content-Length', String(Buffer.byteLength(o.data))], ['Content-Type', 'application/x-www-form-urlencoded']);
  let caBundle: string | undefined;
  // Only a verifying curl loads the file (vtls/openssl.c populate_x509_store): -k ignores a bad one.
  if (o.cacert !== undefined && !o.insecure) {
    caBundle = io.readFile(o.cacert);
    // X509_STORE_load_file fails on a missing file and on one without a certificate.
    if (caBundle === undefined || !parsePEMCertificates(caBundle).length) return yield* error(77, `error setting certificate file: ${o.cacert}`);
  }
  const trust = { insecure: o.insecure, ...(caBundle !== undefined ? { caBundle } : {}) };
  const outcome = yield* awaitPending(fetchHttp(io.ctx, t, buildRequest(method, t, own, o.headers, o.data ?? ''), trust));
  const limitMs = [o.connectTimeoutMs, o.maxTimeMs].filter((v): v is number => v !== undefined && v > 0).reduce<number | undefined>((a, b) => (a === undefined ? b : Math.min(a, b)), undefined);
  switch (outcome.kind) {
    case 'unresolved': return yield* error(6, `Could not resolve host: ${t.host}`);
    case 'refused': {
      const ms = windows ? WINDOWS_REFUSED_MS : 0;
      if (ms) yield { kind: 'sleep', ms };
      return yield* error(7, `Failed to connect to ${t.host} port ${t.port} after ${ms} ms: Couldn't connect to server`);
    }
    case 'timeout': {
      const kernel = windows ? WINDOWS_CONNECT_TIMEOUT_MS : LINUX_CONNECT_TIMEOUT_MS;
      const ms = limitMs !== undefined && limitMs < kernel ? limitMs : kernel;
      yield { kind: 'sleep', ms };
      return yield* error(28, `Failed to connect to ${t.host} port ${t.port} after ${ms} ms: ${ms === kernel ? "Couldn't connect to server" : 'Timeout was reached'}`);
    }
    case 'tls':
      return yield* error(35, 'TLS connect error: error:0A00010B:SSL routines::wrong version number');
    case 'untrusted': {
      const code = yield* error(60, outcome.message);
      // tool_operate.c's CURL_CA_CERT_ERRORMSG, after the error line.
      if (!o.silent || o.showError) {
        yield* io.err(`More details here: https://curl.se/docs/sslcerts.html${eol}${eol}curl failed to verify the legitimacy of the server and therefore could not${eol}` +
          `establish a secure connection to it. To learn more about this situation and${eol}how to fix it, please visit the webpage mentioned above.${eol}`);
      }
      return code;
    }
    case 'reset':
      return yield* error(56, 'Recv failure: Connection reset by peer');
    case 'response': return yield* curlResponse(outcome, o, io, eol, error);
  }
}

function* curlResponse(r: Extract<FetchOutcome, { kind: 'response' }>, o: CurlOptions, io: ToolIO, eol: string,
  error: (code: number, message: string, reply?: typeof r) => Generator<Step, number, void>): Generator<Step, number, void> {
  const res = r.response;
  if (o.fail && res.status >= 400) return yield* error(22, `The requested URL returned error: ${res.status}`, r);
  const body = Buffer.from(res.body).toString('utf8');
  let text = (o.include || o.head ? responseHead(res) : '') + (o.head ? '' : body);
  if (o.output !== undefined && o.output !== '-') {
    if (o.output !== '/dev/null' && !/^nul$/i.test(o.output) && !io.writeFile(o.output, text)) {
      return yield* error(23, `client returned ERROR on write of ${Buffer.byteLength(text)} bytes`);
    }
    text = '';
  }
  if (text) yield* io.out(text);
  if (o.writeOut !== undefined) yield* io.out(writeOut(o.writeOut, r, Buffer.byteLength(body)));
  return 0;
}

/** -w: the variables scripts use, and `\n`/`\t` escapes. */
function writeOut(fmt: string, r: Extract<FetchOutcome, { kind: 'response' }> | undefined, size: number): string {
  const code = String(r?.response.status ?? 0).padStart(3, '0');
  const vars: Record<string, string> = {
    http_code: code, response_code: code,
    remote_ip: r?.remote.ip ?? '', remote_port: String(r?.remote.port ?? 0), local_ip: r?.local.ip ?? '', local_port: String(r?.local.port ?? 0),
    size_download: String(size), content_type: r?.response.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '',
  };
  return fmt.replace(/%\{([a-z_]+)\}|\\n|\\t|\\r/g, (m, v?: string) => (v !== undefined ? vars[v] ?? '' : m === '\\n' ? '\n' : m === '\\t' ? '\t' : '\r'));
}

/**
 * busybox wget: `-q`, `-O FILE` (`-` is stdout; default the URL's last
 * path segment, `index.html` without one), `-T SECONDS`, `-S`,
 * `--post-data STR` (a POST of STR). Its
 * messages are busybox's (`bad address`, `can't connect to remote host`,
 * `server returned error`), all exiting 1.
 */
export function* busyboxWget(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  let quiet = false; let noCheckCertificate = false; let output: string | undefined; let timeoutMs: number | undefined; let url: string | undefined; let serverResponse = false;
  const headers: string[] = [];
  let postData: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-O' || a === '--output-document') { output = args[++i]; continue; }
    if (a === '--post-data') { postData = args[++i] ?? ''; continue; }
    if (a.startsWith('--post-data=')) { postData = a.slice('--post-data='.length); continue; }
    if (a.startsWith('-O') && a.length > 2 && !a.startsWith('--')) { output = a.slice(2); continue; }
    if (a === '-T' || a === '--timeout') { timeoutMs = Number(args[++i]) * 1000; continue; }
    if (a === '--header') { const h = args[++i]; if (h !== undefined) headers.push(h); continue; }
    if (a === '-U' || a === '--user-agent' || a === '-Y' || a === '-P') { i++; continue; }
    if (/^-[qScs]+$/.test(a)) {
      // A cluster of flags, ending in O with its value attached (`-qO-`) or next.
      if (a.includes('q')) quiet = true;
      if (a.includes('S')) serverResponse = true;
      continue;
    }
    if (/^-[qScs]*O/.test(a)) {
      if (a.includes('q')) quiet = true;
      const rest = a.slice(a.indexOf('O') + 1);
      output = rest || args[++i];
      continue;
    }
    if (a === '--quiet') { quiet = true; continue; }
    if (a === '--no-check-certificate') { noCheckCertificate = true; continue; }
    if (a === '--spider') continue;
    if (a.startsWith('-')) {
      yield* io.err(`wget: unrecognized option '${a.replace(/^-+/, '')}'\nBusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL...\n`);
      return 1;
    }
    url = a;
  }
  if (url === undefined) {
    yield* io.err('BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL...\n');
    return 1;
  }
  const t = parseHttpUrl(url);
  if (!t) { yield* io.err(`wget: not an http or ftp url: ${url}\n`); return 1; }
  // --post-data: a POST of the string as a form (wget.c: Content-Type and Content-Length after its own headers).
  const req = postData === undefined
    ? buildRequest('GET', t, [['User-Agent', 'Wget'], ['Connection', 'close']], headers, '')
    : buildRequest('POST', t, [['User-Agent', 'Wget'], ['Connection', 'close'], ['Content-Type', 'application/x-www-form-urlencoded'],
      ['Content-Length', String(Buffer.byteLength(postData))]], headers, postData);
  // busybox's own TLS checks no certificate: it says so (unless told not to) and goes on.
  const outcome = yield* awaitPending(fetchHttp(io.ctx, t, req, { insecure: noCheckCertificate, unverified: true }));
  switch (outcome.kind) {
    case 'unresolved': yield* io.err(`wget: bad address '${t.host}'\n`); return 1;
    case 'refused': yield* io.err(`wget: can't connect to remote host (${outcome.ip}): Connection refused\n`); return 1;
    case 'timeout':
      // Without -T the kernel's connect timeout decides.
      yield { kind: 'sleep', ms: timeoutMs !== undefined && timeoutMs > 0 && timeoutMs < LINUX_CONNECT_TIMEOUT_MS ? timeoutMs : LINUX_CONNECT_TIMEOUT_MS };
      yield* io.err(timeoutMs !== undefined && timeoutMs > 0 && timeoutMs < LINUX_CONNECT_TIMEOUT_MS ? 'wget: download timed out\n' : `wget: can't connect to remote host (${outcome.ip}): Connection timed out\n`);
      return 1;
    case 'tls': case 'untrusted': case 'reset': yield* io.err('wget: error getting response: Connection reset by peer\n'); return 1;
    case 'response': break;
  }
  const res = outcome.response;
  if (!quiet) yield* io.err(`Connecting to ${t.hostHeader} (${outcome.remote.ip}:${outcome.remote.port})\n`);
  if (t.scheme === 'https' && !noCheckCertificate) yield* io.err('wget: note: TLS certificate validation not implemented\n');
  if (serverResponse) yield* io.err(responseHead(res).replace(/\r\n$/, '').split('\r\n').map((l) => `  ${l}\n`).join(''));
  if (res.status >= 400) {
    yield* io.err(`wget: server returned error: HTTP/${res.version ?? '1.1'} ${res.status} ${res.reason}\n`);
    return 1;
  }
  const body = Buffer.from(res.body).toString('utf8');
  const file = output ?? (t.target.replace(/[?#].*$/, '').split('/').pop() || 'index.html');
  if (file === '-') {
    if (!quiet) yield* io.err('writing to stdout\n');
    yield* io.out(body);
    if (!quiet) yield* io.err(`${'-'.padEnd(20)} 100% |${'*'.repeat(32)}| ${String(res.body.length).padStart(5)}  0:00:00 ETA\nwritten to stdout\n`);
    return 0;
  }
  if (!io.writeFile(file, body)) { yield* io.err(`wget: can't open '${file}': Read-only file system\n`); return 1; }
  if (!quiet) yield* io.err(`saving to '${file}'\n${file.slice(0, 20).padEnd(20)} 100% |${'*'.repeat(32)}| ${String(res.body.length).padStart(5)}  0:00:00 ETA\n'${file}' saved\n`);
  return 0;
}

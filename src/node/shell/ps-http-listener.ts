/**
 * System.Net.HttpListener as the Windows guide's sample web server uses it:
 * Prefixes.Add, Start (binds each prefix's port in the pod, as http.sys
 * registers it), GetContext (the next request; waits for one), and the
 * context's Request (Url, RawUrl, HttpMethod, RemoteEndPoint, UserAgent,
 * Headers) and Response (StatusCode, StatusDescription, ContentType,
 * ContentLength64, AddHeader, OutputStream.Write, Close). Close sends the
 * response as http.sys does: the status line, Content-Length (or chunked
 * transfer when no length was set), Content-Type when set, the headers the
 * script added, then `Server: Microsoft-HTTPAPI/2.0` and `Date`.
 *
 * A request whose Host matches no prefix gets http.sys's own 400 (invalid
 * hostname); a path under no prefix its 404.
 *
 * Without a network (a container this process does not run) nothing can
 * call: GetContext waits for good.
 */
import type { Acceptor, Endpoint, HttpReply, HttpRequest, HttpResponse, Listening, PodNetAccess } from './net-types.js';
import { REASONS } from './http-client.js';
import { Pending } from './pending.js';
import { display, psObject, PsBlocks, PsRuntimeError, PsWait, type PsObject, type Value } from './ps-values.js';

/** `Exception calling "M" with "N" argument(s): "why"`: how a .NET exception reaches the PowerShell error stream. */
export const exceptionCalling = (method: string, args: number, why: string) =>
  `Exception calling "${method}" with "${args}" argument(s): "${why}"`;

export interface ListenerHost {
  net?: PodNetAccess;
  now: () => Date;
}

interface Prefix { scheme: string; host: string; port: number; path: string }

interface Incoming { req: HttpRequest; client: Endpoint; local: Endpoint; response: Pending<HttpReply> }

function parsePrefix(p: string): Prefix | undefined {
  const m = /^(https?):\/\/(\[[^\]]+\]|[^/:]+)(?::(\d+))?(\/.*)$/i.exec(p);
  if (!m) return undefined;
  const [, scheme = 'http', host = '', port, path = '/'] = m;
  return { scheme: scheme.toLowerCase(), host: host.toLowerCase(), port: port ? Number(port) : scheme.toLowerCase() === 'https' ? 443 : 80, path: path.toLowerCase() };
}

/** RFC 1123 date, as http.sys writes the Date header. */
export const httpDate = (d: Date) => d.toUTCString();

/** http.sys's own error page (HTTP Server API), for requests no registration takes. */
function httpSysError(status: 400 | 404, now: Date): HttpResponse {
  const [title, heading, detail] = status === 400
    ? ['Bad Request', 'Bad Request - Invalid Hostname', 'HTTP Error 400. The request hostname is invalid.']
    : ['Not Found', 'Not Found', 'HTTP Error 404. The requested resource is not found.'];
  const body = Buffer.from('<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN""http://www.w3.org/TR/html4/strict.dtd">\r\n' +
    `<HTML><HEAD><TITLE>${title}</TITLE>\r\n<META HTTP-EQUIV="Content-Type" Content="text/html; charset=us-ascii"></HEAD>\r\n` +
    `<BODY><h2>${heading}</h2>\r\n<hr><p>${detail}</p>\r\n</BODY></HTML>\r\n`, 'latin1');
  return {
    status, reason: title,
    headers: [['Content-Type', 'text/html; charset=us-ascii'], ['Server', 'Microsoft-HTTPAPI/2.0'], ['Date', httpDate(now)], ['Connection', 'close'], ['Content-Length', String(body.length)]],
    body,
  };
}

const headerOf = (req: HttpRequest, name: string) => req.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

function ipAddress(ip: string): PsObject {
  return psObject('System.Net.IPAddress', { Address: ip, AddressFamily: ip.includes(':') ? 'InterNetworkV6' : 'InterNetwork', __string: ip });
}

function endPoint(e: Endpoint): PsObject {
  return psObject('System.Net.IPEndPoint', { Address: ipAddress(e.ip), AddressFamily: 'InterNetwork', Port: e.port, __string: `${e.ip}:${e.port}` });
}

function requestObject(i: Incoming, scheme: string): PsObject {
  const host = headerOf(i.req, 'Host') ?? i.local.ip;
  const url = `${scheme}://${host.toLowerCase()}${i.req.target.startsWith('/') ? i.req.target : `/${i.req.target}`}`;
  const [path = '/', query = ''] = i.req.target.split('?');
  const hostName = host.replace(/:\d+$/, '').toLowerCase();
  return psObject('System.Net.HttpListenerRequest', {
    HttpMethod: i.req.method,
    Url: psObject('System.Uri', {
      AbsoluteUri: url, AbsolutePath: path, Host: hostName, Port: i.local.port, Scheme: scheme, Query: query ? `?${query}` : '',
      PathAndQuery: i.req.target, OriginalString: url, __string: url,
    }),
    RawUrl: i.req.target,
    RemoteEndPoint: endPoint(i.client),
    LocalEndPoint: endPoint(i.local),
    UserAgent: headerOf(i.req, 'User-Agent') ?? null,
    UserHostName: host,
    UserHostAddress: `${i.local.ip}:${i.local.port}`,
    ContentLength64: i.req.body.length,
    HasEntityBody: i.req.body.length > 0,
    IsLocal: i.client.ip === i.local.ip,
    ProtocolVersion: '1.1',
    Headers: psObject('System.Net.WebHeaderCollection', Object.fromEntries(i.req.headers.map(([k, v]) => [k, v])), undefined),
  });
}

function responseObject(i: Incoming, now: () => Date): PsObject {
  const chunks: number[] = [];
  const added: [string, string][] = [];
  const bytesOf = (v: Value): number[] => (Array.isArray(v) ? v.map((b) => Number(b) & 255) : [...Buffer.from(display(v), 'utf8')]);
  const stream = psObject('System.Net.HttpResponseStream', { CanWrite: true, CanRead: false }, {
    Write(args) {
      const buf = bytesOf(args[0] ?? null);
      const offset = args[1] === undefined ? 0 : Number(args[1]);
      const count = args[2] === undefined ? buf.length - offset : Number(args[2]);
      chunks.push(...buf.slice(offset, offset + count));
      return null;
    },
    Flush() { return null; },
    Close() { send(); return null; },
    Dispose() { send(); return null; },
  });
  const response: PsObject = psObject('System.Net.HttpListenerResponse', {
    StatusCode: 200, StatusDescription: 'OK', ContentType: null, ContentLength64: 0, ContentEncoding: null,
    KeepAlive: true, SendChunked: false, RedirectLocation: null, OutputStream: stream, ProtocolVersion: '1.1',
  }, {
    Close() { send(); return null; },
    Abort() { send(); return null; },
    AddHeader(args) { added.push([display(args[0] ?? null), display(args[1] ?? null)]); return null; },
    AppendHeader(args) { added.push([display(args[0] ?? null), display(args[1] ?? null)]); return null; },
    Redirect(args) { response.props.StatusCode = 302; response.props.RedirectLocation = display(args[0] ?? null); return null; },
  });
  let sent = false;
  const send = () => {
    if (sent) return;
    sent = true;
    const p = response.props;
    const status = Number(p.StatusCode) || 200;
    const statusDescription = display(p.StatusDescription ?? null);
    const reason = statusDescription && !(statusDescription === 'OK' && status !== 200) ? statusDescription : REASONS[status] ?? '';
    const body = i.req.method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(chunks);
    const length = Number(p.ContentLength64) || 0;
    const headers: [string, string][] = [];
    // Without a length, what was written goes out chunked; nothing written is an empty body.
    if (p.SendChunked === true || (length <= 0 && chunks.length > 0)) headers.push(['Transfer-Encoding', 'chunked']);
    else headers.push(['Content-Length', String(Math.max(0, length))]);
    if (p.ContentType !== null && p.ContentType !== undefined && display(p.ContentType)) headers.push(['Content-Type', display(p.ContentType)]);
    if (p.RedirectLocation) headers.push(['Location', display(p.RedirectLocation)]);
    headers.push(...added, ['Server', 'Microsoft-HTTPAPI/2.0'], ['Date', httpDate(now())]);
    i.response.settle({ status, reason, headers, body });
  };
  return response;
}

export function httpListener(host: ListenerHost): PsObject {
  const prefixes: string[] = [];
  const queue: Incoming[] = [];
  let bound: Listening[] = [];
  let arrival: Pending<unknown> | undefined;

  /** Which registration a request reaches: http.sys matches the Host (or a wildcard) and the longest path prefix. */
  const accept: Acceptor = (req, conn) => {
    const name = (headerOf(req, 'Host') ?? conn.local.ip).replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
    const ours = prefixes.map(parsePrefix).filter((p): p is Prefix => !!p && p.port === conn.local.port);
    const byHost = ours.filter((p) => p.host === '*' || p.host === '+' || p.host === name);
    if (!byHost.length) return Pending.of(httpSysError(400, host.now()));
    const path = (req.target.split('?')[0] ?? '/').toLowerCase();
    if (!byHost.some((p) => (path.endsWith('/') ? path : `${path}/`).startsWith(p.path))) return Pending.of(httpSysError(404, host.now()));
    const incoming: Incoming = { req, client: conn.client, local: conn.local, response: new Pending<HttpReply>() };
    queue.push(incoming);
    inFlight.add(incoming);
    incoming.response.onSettle(() => inFlight.delete(incoming));
    const a = arrival;
    arrival = undefined;
    a?.settle(undefined);
    return incoming.response;
  };

  /** Requests taken and not yet answered: reset when the listener's sockets close. */
  const inFlight = new Set<Incoming>();
  const resetAll = () => {
    queue.length = 0;
    for (const i of [...inFlight]) i.response.settle('reset');
  };
  const unbind = () => { for (const l of bound) l.close(); bound = []; };

  const listener: PsObject = psObject('System.Net.HttpListener', {
    IsListening: false, IgnoreWriteExceptions: false, AuthenticationSchemes: 'Anonymous', Realm: null, UnsafeConnectionNtlmAuthentication: false,
    Prefixes: psObject('System.Net.HttpListenerPrefixCollection', { Count: 0 }, {
      Add(args) {
        const p = display(args[0] ?? null);
        // HttpListenerPrefixCollection.Add: the prefix must be http(s)://host[:port]/ ending in a slash.
        if (!/^https?:\/\/[^/]+\/.*$/i.test(p)) {
          throw new PsRuntimeError(exceptionCalling('Add', 1, 'Only Uri prefixes starting with \'http://\' or \'https://\' are supported.\r\nParameter name: uriPrefix'), 'ArgumentException');
        }
        if (!p.endsWith('/')) {
          throw new PsRuntimeError(exceptionCalling('Add', 1, 'Only Uri prefixes ending in \'/\' are allowed.\r\nParameter name: uriPrefix'), 'ArgumentException');
        }
        if (!prefixes.includes(p)) prefixes.push(p);
        (listener.props.Prefixes as PsObject).props.Count = prefixes.length;
        return null;
      },
    }),
  }, {
    Start() {
      if (listener.props.IsListening) return null;
      if (host.net) {
        const ports = [...new Set(prefixes.map(parsePrefix).filter((p): p is Prefix => !!p).map((p) => p.port))];
        for (const port of ports) {
          const l = host.net.listen(port, accept, resetAll);
          if (!l) {
            unbind();
            const conflict = prefixes.find((p) => parsePrefix(p)?.port === port) ?? '';
            throw new PsRuntimeError(exceptionCalling('Start', 0, `Failed to listen on prefix '${conflict}' because it conflicts with an existing registration on the machine.`), 'HttpListenerException');
          }
          bound.push(l);
        }
      }
      listener.props.IsListening = true;
      return null;
    },
    Stop() { unbind(); listener.props.IsListening = false; return null; },
    Close() { unbind(); listener.props.IsListening = false; return null; },
    GetContext() {
      if (!listener.props.IsListening) {
        throw new PsRuntimeError(exceptionCalling('GetContext', 0, 'Please call the Start() method before calling this method.'), 'InvalidOperationException');
      }
      if (!prefixes.length) {
        throw new PsRuntimeError(exceptionCalling('GetContext', 0, 'Please call the AddPrefix() method before calling this method.'), 'InvalidOperationException');
      }
      const next = queue.shift();
      if (!next) {
        if (!host.net) throw new PsBlocks();
        arrival ??= new Pending<unknown>();
        throw new PsWait(arrival);
      }
      const scheme = parsePrefix(prefixes[0] ?? '')?.scheme ?? 'http';
      return psObject('System.Net.HttpListenerContext', {
        Request: requestObject(next, scheme),
        Response: responseObject(next, host.now),
        User: null,
      });
    },
  });
  return listener;
}

/**
 * mcr.microsoft.com/windows/servercore/iis (ENTRYPOINT
 * ["C:\\ServiceMonitor.exe", "w3svc"]): the Default Web Site on port 80
 * through http.sys, whatever the pod's containerPorts say. `/` and
 * `/iisstart.htm` answer C:\inetpub\wwwroot\iisstart.htm with the headers
 * IIS 10 sends for a static file; any other path the custom error module's
 * 404 page. ServiceMonitor writes nothing and IIS logs to files, not to the
 * container's output, so `kubectl logs` is empty.
 *
 * The file's mtime (Last-Modified, and the ETag IIS derives from it: the
 * FILETIME's bytes, low first, each in hex, then `:0`) is one IIS 10 install's,
 * not necessarily the image's. `/iisstart.png` is not modelled (404).
 */
import type { HttpResponse } from '../shell/net-types.js';
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { httpDate, httpServer, pathOf } from './http-server.js';

const CRLF = (lines: string[]) => lines.join('\r\n');

/** C:\inetpub\wwwroot\iisstart.htm: CRLF lines, no line end after the last (703 bytes). */
export const IIS_START_PAGE = CRLF([
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
  '<html xmlns="http://www.w3.org/1999/xhtml">',
  '<head>',
  '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1" />',
  '<title>IIS Windows Server</title>',
  '<style type="text/css">',
  '<!--',
  'body {',
  '\tcolor:#000000;',
  '\tbackground-color:#0072C6;',
  '\tmargin:0;',
  '}',
  '',
  '#container {',
  '\tmargin-left:auto;',
  '\tmargin-right:auto;',
  '\ttext-align:center;',
  '\t}',
  '',
  'a img {',
  '\tborder:none;',
  '}',
  '',
  '-->',
  '</style>',
  '</head>',
  '<body>',
  '<div id="container">',
  '<a href="http://go.microsoft.com/fwlink/?linkid=66138&amp;clcid=0x409"><img src="iisstart.png" alt="IIS" width="960" height="600" /></a>',
  '</div>',
  '</body>',
  '</html>',
]);

/** The custom error module's page for 404 (1245 bytes, CRLF lines). */
export const IIS_NOT_FOUND_PAGE = CRLF([
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
  '<html xmlns="http://www.w3.org/1999/xhtml">',
  '<head>',
  '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/>',
  '<title>404 - File or directory not found.</title>',
  '<style type="text/css">',
  '<!--',
  'body{margin:0;font-size:.7em;font-family:Verdana, Arial, Helvetica, sans-serif;background:#EEEEEE;}',
  'fieldset{padding:0 15px 10px 15px;} ',
  'h1{font-size:2.4em;margin:0;color:#FFF;}',
  'h2{font-size:1.7em;margin:0;color:#CC0000;} ',
  'h3{font-size:1.2em;margin:10px 0 0 0;color:#000000;} ',
  '#header{width:96%;margin:0 0 0 0;padding:6px 2% 6px 2%;font-family:"trebuchet MS", Verdana, sans-serif;color:#FFF;',
  'background-color:#555555;}',
  '#content{margin:0 0 0 2%;position:relative;}',
  '.content-container{background:#FFF;width:96%;margin-top:8px;padding:10px;position:relative;}',
  '-->',
  '</style>',
  '</head>',
  '<body>',
  '<div id="header"><h1>Server Error</h1></div>',
  '<div id="content">',
  ' <div class="content-container"><fieldset>',
  '  <h2>404 - File or directory not found.</h2>',
  '  <h3>The resource you are looking for might have been removed, had its name changed, or is temporarily unavailable.</h3>',
  ' </fieldset></div>',
  '</div>',
  '</body>',
  '</html>',
]) + '\r\n';

/** iisstart.htm's mtime as a FILETIME (100 ns ticks since 1601): 2020-11-04T05:35:35.2373513Z. */
const START_PAGE_FILETIME = 0x01d6b26c51c96509n;

const FILETIME_EPOCH_MS = 11_644_473_600_000n;

/** IIS's static-file ETag: each byte of the FILETIME, low byte first, in unpadded hex; `:0` the change number. */
export function iisETag(filetime: bigint): string {
  let hex = '';
  for (let i = 0n; i < 8n; i++) hex += ((filetime >> (8n * i)) & 0xffn).toString(16);
  return `"${hex}:0"`;
}

const filetimeDate = (ft: bigint) => new Date(Number(ft / 10_000n - FILETIME_EPOCH_MS));

export function iisServe(target: string, method: string, now: Date): HttpResponse {
  const path = pathOf(target).toLowerCase();
  const head = method === 'HEAD';
  if (path === '/' || path === '/iisstart.htm') {
    const body = Buffer.from(IIS_START_PAGE, 'latin1');
    return {
      status: 200, reason: 'OK',
      headers: [['Content-Type', 'text/html'], ['Last-Modified', httpDate(filetimeDate(START_PAGE_FILETIME))], ['Accept-Ranges', 'bytes'],
        ['ETag', iisETag(START_PAGE_FILETIME)], ['Server', 'Microsoft-IIS/10.0'], ['X-Powered-By', 'ASP.NET'], ['Date', httpDate(now)], ['Content-Length', String(body.length)]],
      body: head ? Buffer.alloc(0) : body,
    };
  }
  const body = Buffer.from(IIS_NOT_FOUND_PAGE, 'latin1');
  return {
    status: 404, reason: 'Not Found',
    headers: [['Content-Type', 'text/html'], ['Server', 'Microsoft-IIS/10.0'], ['X-Powered-By', 'ASP.NET'], ['Date', httpDate(now)], ['Content-Length', String(body.length)]],
    body: head ? Buffer.alloc(0) : body,
  };
}

/**
 * CPU per request: http.sys and w3wp answering a static file on a new
 * connection, about a quarter of a millisecond (a model default of the order
 * IIS's static-file throughput on one core gives, not a measurement).
 */
export const IIS_CPU_PER_REQUEST_NS = 250_000;

export function iis(ctx: AppContext): Program {
  return httpServer(ctx, {
    ports: [80],
    startup: () => [],
    bound: () => [],
    // W3SVC reports a failed binding to the event log, not to the container's output; ServiceMonitor runs on.
    bindFailed: () => ({ steps: [{ kind: 'forever' }], code: 0 }),
    cpuPerRequestNs: IIS_CPU_PER_REQUEST_NS,
    serve: (req) => ({ response: iisServe(req.target, req.method, ctx.now()) }),
  });
}

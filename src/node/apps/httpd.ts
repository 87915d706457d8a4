/**
 * The Apache httpd image (docker.io/library/httpd, and the e2e tests'
 * registry.k8s.io/e2e-test-images/httpd; CMD ["httpd-foreground"]): the
 * default document root's `It works!` page on port 80, Apache's 404 page,
 * and the image's logs: `CustomLog /proc/self/fd/1 common` on stdout, and
 * the AH00558 warnings httpd prints twice at start (no ServerName: it uses
 * the address the pod's hostname resolves to).
 *
 * The page is the container's own file, htdocs/index.html, which the image
 * puts under /usr/local/apache2 (unless a volume is mounted over htdocs): a
 * command that moves it away (the StatefulSet tests' `mv
 * /usr/local/apache2/htdocs/index.html /tmp/`) turns the page, and a
 * readiness probe on it, into a 404. A rewritten index.html keeps the
 * image's mtime in Last-Modified and ETag (the model keeps no mtimes).
 *
 * Not written: the `[mpm_event:notice] ... AH00489` and `[core:notice] ...
 * AH00094` start-up lines, which carry a thread id and microseconds the
 * model cannot know. The version is 2.4.62 for every tag without one
 * (`2.4`, `latest`, `alpine`); a tag naming a full version reports it.
 */
import type { ContainerFS } from '../shell/fs.js';
import type { HttpResponse } from '../shell/net-types.js';
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { clfTime, httpDate, httpServer, pathOf, requestLine } from './http-server.js';

export const HTTPD_DEFAULT_VERSION = '2.4.62';

/** htdocs/index.html, unchanged since 2007. */
export const IT_WORKS = '<html><body><h1>It works!</h1></body></html>\n';
/** index.html's mtime, Mon, 11 Jun 2007 18:53:14 GMT, and its ETag (size-mtime in microseconds, hex). */
const INDEX_MTIME_MS = 1181587994000;
/** ETag's second part: the mtime in microseconds, hex. */
const INDEX_MTIME_HEX = (BigInt(INDEX_MTIME_MS) * 1000n).toString(16);

/** DocumentRoot of the image's httpd.conf. */
export const HTTPD_HTDOCS = '/usr/local/apache2/htdocs';
const INDEX_PATH = `${HTTPD_HTDOCS}/index.html`;

/** The image's htdocs in the container's filesystem, unless something (a volume) is already mounted there. */
export function seedHtdocs(fs: ContainerFS): void {
  if (fs.stat(HTTPD_HTDOCS)) return;
  for (const dir of ['/usr/local', '/usr/local/apache2', HTTPD_HTDOCS]) fs.mkdir(dir);
  fs.write(INDEX_PATH, IT_WORKS);
}

/** htdocs/index.html as the server would open it now: undefined when it is gone (or a directory). */
export function indexFile(fs: ContainerFS | undefined): string | undefined {
  if (!fs) return IT_WORKS;
  const entry = fs.stat(INDEX_PATH);
  return entry?.type === 'file' ? entry.content : undefined;
}

export const HTTPD_NOT_FOUND = '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n' +
  '<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n';

export const httpdVersion = (tag: string) => /^(\d+\.\d+\.\d+)(?:-|$)/.exec(tag)?.[1] ?? HTTPD_DEFAULT_VERSION;

/** The answer to one request; `index` is htdocs/index.html's content, undefined when the file is gone. */
export function httpdServe(target: string, method: string, version: string, now: Date, index: string | undefined): HttpResponse {
  const path = pathOf(target);
  const head = method === 'HEAD';
  const server = `Apache/${version} (Unix)`;
  if ((path === '/' || path === '/index.html') && index !== undefined) {
    const body = Buffer.from(index);
    return {
      status: 200, reason: 'OK',
      headers: [['Date', httpDate(now)], ['Server', server], ['Last-Modified', httpDate(new Date(INDEX_MTIME_MS))], ['ETag', `"${body.length.toString(16)}-${INDEX_MTIME_HEX}"`],
        ['Accept-Ranges', 'bytes'], ['Content-Length', String(body.length)], ['Content-Type', 'text/html']],
      body: head ? Buffer.alloc(0) : body,
    };
  }
  const body = Buffer.from(HTTPD_NOT_FOUND);
  return {
    status: 404, reason: 'Not Found',
    headers: [['Date', httpDate(now)], ['Server', server], ['Content-Length', String(body.length)], ['Content-Type', 'text/html; charset=iso-8859-1']],
    body: head ? Buffer.alloc(0) : body,
  };
}

/** CPU per request: a static file on a new connection, about 150 µs (a model default, not a measurement). */
export const HTTPD_CPU_PER_REQUEST_NS = 150_000;

export function httpd(ctx: AppContext, tag: string): Program {
  const version = httpdVersion(tag);
  if (ctx.fs) seedHtdocs(ctx.fs);
  const ah00558 = `AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using ${ctx.net?.podIP ?? '127.0.0.1'}. Set the 'ServerName' directive globally to suppress this message\n`;
  return httpServer(ctx, {
    ports: [80],
    startup: () => [{ kind: 'stderr', text: ah00558 }, { kind: 'stderr', text: ah00558 }],
    bound: () => [],
    bindFailed: () => ({
      steps: [
        { kind: 'stderr', text: '(98)Address already in use: AH00072: make_sock: could not bind to address [::]:80\n' },
        { kind: 'stderr', text: '(98)Address already in use: AH00072: make_sock: could not bind to address 0.0.0.0:80\n' },
        { kind: 'stderr', text: 'no listening sockets available, shutting down\n' },
        { kind: 'stderr', text: 'AH00015: Unable to open logs\n' },
      ],
      code: 1,
    }),
    cpuPerRequestNs: HTTPD_CPU_PER_REQUEST_NS,
    serve: (req, conn) => {
      const response = httpdServe(req.target, req.method, version, ctx.now(), indexFile(ctx.fs));
      // %b: the body's bytes, `-` for none.
      const bytes = response.body.length ? String(response.body.length) : '-';
      return { response, log: [{ kind: 'stdout', text: `${conn.client.ip} - - [${clfTime(ctx.now())}] "${requestLine(req)}" ${response.status} ${bytes}\n` }] };
    },
  });
}

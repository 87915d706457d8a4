/**
 * The official nginx image (docker.io/library/nginx, Debian and Alpine
 * tags) as its container runs: docker-entrypoint.sh's lines on stdout
 * (nginxinc/docker-nginx mainline/debian/docker-entrypoint.sh and the
 * /docker-entrypoint.d scripts, when the image's ENTRYPOINT runs), the
 * master's start-up notices on stderr (error_log notice, symlinked to
 * /dev/stderr), the default server on port 80 whatever the pod's
 * containerPorts say, its access log on stdout in the image's `main`
 * format, and a bind failure as ngx_open_listening_sockets reports it.
 *
 * The version: `latest`, `mainline`, `1`, `1.27`, `alpine` and other tags
 * without a full version are 1.27.3 (whose index.html has the mtime
 * 2024-11-26T15:55:00Z that its ETag and Last-Modified carry); a tag naming
 * a full version (`1.25.4`, `1.25.4-alpine`) reports that version with the
 * same page and mtime.
 */
import type { HttpRequest, HttpResponse } from '../shell/net-types.js';
import type { Step } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { clfTime, headerOf, httpDate, httpServer, pathOf, requestLine, type Output, type Served } from './http-server.js';

export const NGINX_DEFAULT_VERSION = '1.27.3';

/** /usr/share/nginx/html/index.html of the 1.27 packages. */
export const NGINX_INDEX = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;

/** The index file's mtime in the 1.27.3 image (seconds since the epoch). */
const INDEX_MTIME = 0x6745ef54;

/** ngx_http_special_response.c: the status line's text and the page title for the errors the default server gives. */
const ERROR_TITLES: Record<number, string> = { 404: '404 Not Found', 405: '405 Not Allowed' };

/** The nginx version an image tag runs. */
export function nginxVersion(tag: string): string {
  return /^(\d+\.\d+\.\d+)(?:-|$)/.exec(tag)?.[1] ?? NGINX_DEFAULT_VERSION;
}

/** ngx_http_special_response.c's page for an error status: the title, then ngx_http_error_tail with the version. */
export function nginxErrorPage(status: number, version: string): string {
  const title = ERROR_TITLES[status] ?? `${status}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n` +
    `<hr><center>nginx/${version}</center>\r\n</body>\r\n</html>\r\n`;
}

/** The entrypoint's lines when it runs the image's default configuration (docker-entrypoint.sh and /docker-entrypoint.d). */
export const ENTRYPOINT_LINES = [
  '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
  '/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/',
  '/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh',
  '10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf',
  '10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf',
  '/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh',
  '/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh',
  '/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh',
  '/docker-entrypoint.sh: Configuration complete; ready for start up',
];

/** The error log's time format: `2024/12/11 09:53:17`. */
export const errorLogTime = (d: Date) => d.toISOString().slice(0, 19).replace(/-/g, '/').replace('T', ' ');

/**
 * What differs between the Debian and the Alpine images: the compiler line
 * (NGX_COMPILER is `gcc -v`'s version text, trailing space included) and the
 * first worker's pid (the entrypoint's processes come before the master,
 * pid 1, forks its workers).
 */
const BUILDS = {
  debian: { compiler: 'gcc 12.2.0 (Debian 12.2.0-14) ', firstWorker: 29 },
  alpine: { compiler: 'gcc 13.2.1 20240309 (Alpine 13.2.1_git20240309) ', firstWorker: 21 },
};

export interface NginxOptions {
  tag: string;
  /** The image's ENTRYPOINT runs (no `command` in the container spec). */
  entrypoint: boolean;
}

/** CPU per request: a static file on a new connection, about 100 µs (a model default, not a measurement). */
export const NGINX_CPU_PER_REQUEST_NS = 100_000;

export function nginx(ctx: AppContext, o: NginxOptions): ReturnType<typeof httpServer> {
  const version = nginxVersion(o.tag);
  const build = /alpine/.test(o.tag) ? BUILDS.alpine : BUILDS.debian;
  const worker = build.firstWorker;
  const now = () => ctx.now();
  const notice = (pid: string, text: string): Output => ({ kind: 'stderr', text: `${errorLogTime(now())} [notice] ${pid}: ${text}\n` });
  const workers = Math.max(1, ctx.cpus);
  let connection = 0;
  const emerg = (text: string): Output[] => [
    { kind: 'stderr', text: `${errorLogTime(now())} [emerg] 1#1: ${text}\n` },
    { kind: 'stderr', text: `nginx: [emerg] ${text}\n` },
  ];
  return httpServer(ctx, {
    ports: [80],
    startup: () => (o.entrypoint && !ctx.env.NGINX_ENTRYPOINT_QUIET_LOGS ? ENTRYPOINT_LINES.map((text) => ({ kind: 'stdout' as const, text: `${text}\n` })) : []),
    bound: () => [
      notice('1#1', 'using the "epoll" event method'),
      notice('1#1', `nginx/${version}`),
      notice('1#1', `built by ${build.compiler}`),
      notice('1#1', `OS: Linux ${ctx.kernelVersion ?? ''}`),
      notice('1#1', 'getrlimit(RLIMIT_NOFILE): 1048576:1048576'),
      notice('1#1', 'start worker processes'),
      ...Array.from({ length: workers }, (_, i) => notice('1#1', `start worker process ${worker + i}`)),
    ],
    bindFailed: () => {
      // Five tries 500 ms apart (IPv4 and the IPv6 listen the entrypoint added), then the master gives up.
      const steps: Step[] = [];
      for (let i = 0; i < 5; i++) {
        steps.push(...emerg('bind() to 0.0.0.0:80 failed (98: Address already in use)'), ...emerg('bind() to [::]:80 failed (98: Address already in use)'),
          { kind: 'stderr', text: `${errorLogTime(now())} [notice] 1#1: try again to bind() after 500ms\n` }, { kind: 'sleep', ms: 500 });
      }
      steps.push(...emerg('still could not bind()'));
      return { steps, code: 1 };
    },
    cpuPerRequestNs: NGINX_CPU_PER_REQUEST_NS,
    serve: (req, conn) => {
      connection++;
      const served = nginxServe(req, version, now());
      const body = served.response.body.length;
      const log: Output[] = [];
      if (served.missing) {
        log.push({ kind: 'stderr', text: `${errorLogTime(now())} [error] ${worker}#${worker}: *${connection} open() "/usr/share/nginx/html${served.missing}" failed (2: No such file or directory), client: ${conn.client.ip}, server: localhost, request: "${requestLine(req)}", host: "${headerOf(req, 'Host') ?? conn.local.ip}"\n` });
      }
      const dash = (v: string | undefined) => (v === undefined || v === '' ? '-' : v);
      log.push({ kind: 'stdout', text: `${conn.client.ip} - - [${clfTime(now())}] "${requestLine(req)}" ${served.response.status} ${body} "${dash(headerOf(req, 'Referer'))}" "${dash(headerOf(req, 'User-Agent'))}" "${dash(headerOf(req, 'X-Forwarded-For'))}"\n` });
      return { response: served.response, log } satisfies Served;
    },
  });
}

/**
 * The default server (conf.d/default.conf: root /usr/share/nginx/html, index
 * index.html): the index page for `/` and `/index.html`, 404 for any other
 * file (`missing` is the path it tried to open), 405 for methods the static
 * module does not serve.
 */
export function nginxServe(req: HttpRequest, version: string, now: Date): { response: HttpResponse; missing?: string } {
  const path = pathOf(req.target);
  const head = req.method === 'HEAD';
  const page = path === '/' || path === '/index.html';
  if (page && req.method !== 'GET' && !head) return { response: errorResponse(405, version, now, head) };
  if (!page) return { response: errorResponse(404, version, now, head), missing: path };
  const body = Buffer.from(NGINX_INDEX, 'utf8');
  return {
    response: {
      status: 200, reason: 'OK',
      headers: [
        ['Server', `nginx/${version}`], ['Date', httpDate(now)], ['Content-Type', 'text/html'], ['Content-Length', String(body.length)],
        ['Last-Modified', httpDate(new Date(INDEX_MTIME * 1000))], ['Connection', 'keep-alive'],
        ['ETag', `"${INDEX_MTIME.toString(16)}-${body.length.toString(16)}"`], ['Accept-Ranges', 'bytes'],
      ],
      body: head ? Buffer.alloc(0) : body,
    },
  };
}

function errorResponse(status: number, version: string, now: Date, head: boolean): HttpResponse {
  const body = Buffer.from(nginxErrorPage(status, version), 'latin1');
  return {
    status, reason: (ERROR_TITLES[status] ?? '').replace(/^\d+ /, ''),
    headers: [['Server', `nginx/${version}`], ['Date', httpDate(now)], ['Content-Type', 'text/html'], ['Content-Length', String(body.length)], ['Connection', 'keep-alive']],
    body: head ? Buffer.alloc(0) : body,
  };
}

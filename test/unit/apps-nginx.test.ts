/**
 * The nginx image as a server: its start-up output, the default page and
 * its headers as nginx 1.27.3 sends them, the 404 and 405 pages, HEAD, the
 * access and error log lines, and a second nginx in the pod failing to bind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTRYPOINT_LINES, nginx, NGINX_INDEX, nginxErrorPage, nginxVersion } from '../../src/node/apps/nginx.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import { appNetwork, CLIENT_IP, drain } from '../helpers/app-network.js';

const NOTICES = '2026/11/28 17:16:21 [notice] 1#1: using the "epoll" event method\n' +
  '2026/11/28 17:16:21 [notice] 1#1: nginx/1.27.3\n' +
  '2026/11/28 17:16:21 [notice] 1#1: built by gcc 12.2.0 (Debian 12.2.0-14) \n' +
  '2026/11/28 17:16:21 [notice] 1#1: OS: Linux 6.8.0-1015-azure\n' +
  '2026/11/28 17:16:21 [notice] 1#1: getrlimit(RLIMIT_NOFILE): 1048576:1048576\n' +
  '2026/11/28 17:16:21 [notice] 1#1: start worker processes\n' +
  '2026/11/28 17:16:21 [notice] 1#1: start worker process 29\n' +
  '2026/11/28 17:16:21 [notice] 1#1: start worker process 30\n';

test('nginx starts: the entrypoint lines on stdout, the master notices on stderr, then it waits', () => {
  const n = appNetwork();
  const p = nginx(n.server(), { tag: 'latest', entrypoint: true });
  assert.deepEqual(drain(p), { stdout: ENTRYPOINT_LINES.map((l) => `${l}\n`).join(''), stderr: NOTICES, code: 'forever', slept: 0 });
  assert.equal(n.net.listening('10.244.1.5', 80), true);
  assert.equal(ENTRYPOINT_LINES.length, 9);
  // With `command` set the entrypoint does not run.
  const m = appNetwork();
  assert.deepEqual(drain(nginx(m.server(), { tag: 'latest', entrypoint: false })), { stdout: '', stderr: NOTICES, code: 'forever', slept: 0 });
});

test('GET / through the Service: the default page, its headers, the access log line', () => {
  const n = appNetwork();
  const p = nginx(n.server(), { tag: '1.27', entrypoint: true });
  drain(p);
  const r = n.curl('-s', 'http://web/');
  assert.deepEqual(r, { stdout: NGINX_INDEX, stderr: '', code: 0, slept: 0 });
  assert.equal(Buffer.byteLength(NGINX_INDEX), 615);
  assert.deepEqual(drain(p), { stdout: `${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "GET / HTTP/1.1" 200 615 "-" "curl/8.11.1" "-"\n`, stderr: '', code: 'forever', slept: 0 });
  const head = n.curl('-sI', 'http://10.244.1.5/');
  assert.equal(head.stdout, 'HTTP/1.1 200 OK\r\nServer: nginx/1.27.3\r\nDate: Sat, 28 Nov 2026 17:16:21 GMT\r\nContent-Type: text/html\r\nContent-Length: 615\r\n' +
    'Last-Modified: Tue, 26 Nov 2024 15:55:00 GMT\r\nConnection: keep-alive\r\nETag: "6745ef54-267"\r\nAccept-Ranges: bytes\r\n\r\n');
  assert.equal(drain(p).stdout, `${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "HEAD / HTTP/1.1" 200 0 "-" "curl/8.11.1" "-"\n`);
});

test('a missing file: the 404 page, the error log line on stderr, the access log line', () => {
  const n = appNetwork();
  const p = nginx(n.server(), { tag: 'latest', entrypoint: false });
  drain(p);
  const r = n.curl('-s', '-i', 'http://web/favicon.ico');
  const page = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n';
  assert.equal(page.length, 153);
  assert.equal(nginxErrorPage(404, '1.27.3'), page);
  assert.equal(r.stdout, 'HTTP/1.1 404 Not Found\r\nServer: nginx/1.27.3\r\nDate: Sat, 28 Nov 2026 17:16:21 GMT\r\nContent-Type: text/html\r\nContent-Length: 153\r\nConnection: keep-alive\r\n\r\n' + page);
  assert.deepEqual(drain(p), {
    stdout: `${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "GET /favicon.ico HTTP/1.1" 404 153 "-" "curl/8.11.1" "-"\n`,
    stderr: `2026/11/28 17:16:21 [error] 29#29: *1 open() "/usr/share/nginx/html/favicon.ico" failed (2: No such file or directory), client: ${CLIENT_IP}, server: localhost, request: "GET /favicon.ico HTTP/1.1", host: "web"\n`,
    code: 'forever', slept: 0,
  });
  const post = n.curl('-s', '-X', 'POST', 'http://web/');
  assert.equal(post.stdout, nginxErrorPage(405, '1.27.3'));
  assert.match(nginxErrorPage(405, '1.27.3'), /<title>405 Not Allowed<\/title>/);
  // --fail exits 22 and still writes -w: the status that failed.
  const failed = n.curl('-s', '-f', '-o', '/dev/null', '-w', '%{http_code}', 'http://web/favicon.ico');
  assert.deepEqual([failed.stdout, failed.code], ['404', 22]);
});

test('a second nginx in the pod cannot bind port 80: five tries, then it exits 1', () => {
  const n = appNetwork();
  drain(nginx(n.server(), { tag: 'latest', entrypoint: false }));
  const second = drain(nginx(n.server(), { tag: 'latest', entrypoint: false }));
  const round = '2026/11/28 17:16:21 [emerg] 1#1: bind() to 0.0.0.0:80 failed (98: Address already in use)\n' +
    'nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)\n' +
    '2026/11/28 17:16:21 [emerg] 1#1: bind() to [::]:80 failed (98: Address already in use)\n' +
    'nginx: [emerg] bind() to [::]:80 failed (98: Address already in use)\n' +
    '2026/11/28 17:16:21 [notice] 1#1: try again to bind() after 500ms\n';
  assert.deepEqual(second, { stdout: '', stderr: round.repeat(5) + '2026/11/28 17:16:21 [emerg] 1#1: still could not bind()\nnginx: [emerg] still could not bind()\n', code: 1, slept: 2500 });
  // Once the first one's process is gone, the port is free again.
  n.exit();
  assert.equal(n.net.listening('10.244.1.5', 80), false);
  assert.equal(drain(nginx(n.server(), { tag: 'latest', entrypoint: false })).code, 'forever');
});

test('versions and which containers run nginx', () => {
  assert.equal(nginxVersion('latest'), '1.27.3');
  assert.equal(nginxVersion('alpine'), '1.27.3');
  assert.equal(nginxVersion('1.25.4-alpine'), '1.25.4');
  const app = (image: string, command: string[], args: string[]) => applicationFor({ image, command, args }) !== undefined;
  assert.equal(app('nginx', [], []), true);
  assert.equal(app('nginx:1.27.3-alpine', [], ['nginx', '-g', 'daemon off;']), true);
  assert.equal(app('docker.io/library/nginx:latest', ['nginx', '-g', 'daemon off;'], []), true);
  assert.equal(app('nginx', ['/docker-entrypoint.sh'], ['nginx', '-g', 'daemon off;']), true);
  assert.equal(app('nginx', ['sleep', '3600'], []), false);
  assert.equal(app('nginx', [], ['sh', '-c', 'sleep 5']), false);
  assert.equal(app('busybox', [], []), false);
  // The Alpine image: its compiler line, and workers from pid 21.
  const n = appNetwork();
  assert.deepEqual(drain(nginx(n.server(), { tag: 'alpine', entrypoint: true })).stderr, NOTICES
    .replace('gcc 12.2.0 (Debian 12.2.0-14) ', 'gcc 13.2.1 20240309 (Alpine 13.2.1_git20240309) ')
    .replace('worker process 29', 'worker process 21').replace('worker process 30', 'worker process 22'));
});

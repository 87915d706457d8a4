/**
 * httpd, IIS and the scripted `http` server: their pages, headers and log
 * lines as the real servers send them, and which containers run them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpd, HTTPD_NOT_FOUND, IT_WORKS } from '../../src/node/apps/httpd.js';
import { iis, iisETag, IIS_NOT_FOUND_PAGE, IIS_START_PAGE } from '../../src/node/apps/iis.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import { listenScripted, parseHttpScript } from '../../src/node/apps/scripted-http.js';
import { containerScript } from '../../src/node/kubelet/script.js';
import { ContainerFS } from '../../src/node/shell/fs.js';
import { appNetwork, CLIENT_IP, drain, NOW, SERVER_IP } from '../helpers/app-network.js';

const DATE = 'Date: Sat, 28 Nov 2026 17:16:21 GMT\r\n';

test('httpd: the AH00558 warnings, It works! with Apache\'s headers, the 404 page, the common log line', () => {
  const n = appNetwork();
  const p = httpd(n.server(), '2.4');
  const warn = `AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using ${SERVER_IP}. Set the 'ServerName' directive globally to suppress this message\n`;
  assert.deepEqual(drain(p), { stdout: '', stderr: warn + warn, code: 'forever', slept: 0 });
  assert.equal(n.curl('-si', 'http://web/').stdout, `HTTP/1.1 200 OK\r\n${DATE}Server: Apache/2.4.62 (Unix)\r\nLast-Modified: Mon, 11 Jun 2007 18:53:14 GMT\r\n` +
    `ETag: "2d-432a5e4a73a80"\r\nAccept-Ranges: bytes\r\nContent-Length: 45\r\nContent-Type: text/html\r\n\r\n${IT_WORKS}`);
  assert.equal(n.curl('-si', 'http://web/x').stdout, `HTTP/1.1 404 Not Found\r\n${DATE}Server: Apache/2.4.62 (Unix)\r\nContent-Length: 196\r\nContent-Type: text/html; charset=iso-8859-1\r\n\r\n${HTTPD_NOT_FOUND}`);
  assert.deepEqual(drain(p).stdout, `${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "GET / HTTP/1.1" 200 45\n${CLIENT_IP} - - [28/Nov/2026:17:16:21 +0000] "GET /x HTTP/1.1" 404 196\n`);
  const second = drain(httpd(n.server(), '2.4.62-alpine'));
  assert.deepEqual([second.code, second.stderr.split('\n').slice(2).join('\n')], [1,
    '(98)Address already in use: AH00072: make_sock: could not bind to address [::]:80\n(98)Address already in use: AH00072: make_sock: could not bind to address 0.0.0.0:80\n' +
    'no listening sockets available, shutting down\nAH00015: Unable to open logs\n']);
});

test('httpd: the page is the container\'s htdocs/index.html: moved away it is a 404 (a readiness probe on it fails), moved back a 200', () => {
  const n = appNetwork();
  const fs = new ContainerFS('linux');
  drain(httpd({ ...n.server(), fs }, '2.4.38-2'));
  assert.equal(fs.read('/usr/local/apache2/htdocs/index.html'), IT_WORKS);
  const status = () => n.curl('-s', '-o', '/dev/null', '-w', '%{http_code}', 'http://web/index.html').stdout;
  assert.equal(status(), '200');
  fs.write('/tmp/index.html', fs.read('/usr/local/apache2/htdocs/index.html')!);
  fs.remove('/usr/local/apache2/htdocs/index.html');
  assert.equal(status(), '404');
  fs.write('/usr/local/apache2/htdocs/index.html', fs.read('/tmp/index.html')!);
  assert.equal(status(), '200');
  // A volume mounted over htdocs hides the image's page.
  const n2 = appNetwork();
  const mounted = new ContainerFS('linux');
  mounted.mountDir('/usr/local/apache2/htdocs', false);
  drain(httpd({ ...n2.server(), fs: mounted }, '2.4'));
  assert.equal(n2.curl('-s', '-o', '/dev/null', '-w', '%{http_code}', 'http://web/index.html').stdout, '404');
});

test('IIS: iisstart.htm with IIS 10 headers from a Windows and a Linux client, the 404 page, nothing logged', () => {
  const n = appNetwork();
  const p = iis(n.server());
  assert.deepEqual(drain(p), { stdout: '', stderr: '', code: 'forever', slept: 0 });
  assert.equal(Buffer.byteLength(IIS_START_PAGE), 703);
  assert.equal(Buffer.byteLength(IIS_NOT_FOUND_PAGE), 1245);
  assert.equal(iisETag(0x01d6b26c51c96509n), '"965c9516cb2d61:0"');
  assert.equal(n.curl('-si', 'http://web/').stdout, 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nLast-Modified: Wed, 04 Nov 2020 05:35:35 GMT\r\nAccept-Ranges: bytes\r\n' +
    `ETag: "965c9516cb2d61:0"\r\nServer: Microsoft-IIS/10.0\r\nX-Powered-By: ASP.NET\r\n${DATE}Content-Length: 703\r\n\r\n${IIS_START_PAGE}`);
  assert.equal(n.run('windows', ['curl.exe', '-s', 'http://web/iisstart.htm']).stdout, IIS_START_PAGE);
  const missing = n.curl('-si', 'http://web/nope.htm').stdout;
  assert.equal(missing, `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nServer: Microsoft-IIS/10.0\r\nX-Powered-By: ASP.NET\r\n${DATE}Content-Length: 1245\r\n\r\n${IIS_NOT_FOUND_PAGE}`);
  assert.deepEqual(drain(p), { stdout: '', stderr: '', code: 'forever', slept: 0 });
});

test('the scripted http server: parsed from the annotation, answers while bound, frees the port when closed', () => {
  const script = containerScript({ 'winkube.io/script': '{"app": {"http": {"port": 8080, "status": 201, "body": "made\\n"}}}' }, 'app');
  assert.deepEqual(script?.http, { port: 8080, status: 201, body: 'made\n', contentType: 'text/plain; charset=utf-8' });
  assert.deepEqual(parseHttpScript({}), { port: 80, status: 200, body: '', contentType: 'text/plain; charset=utf-8' });
  assert.equal(parseHttpScript({ port: 70000 }), undefined);
  assert.equal(parseHttpScript('x'), undefined);
  const http = script?.http;
  assert.ok(http);
  const n = appNetwork(8080);
  const l = listenScripted(n.server().net!, http, () => NOW);
  assert.ok(l);
  assert.equal(n.curl('-si', 'http://web/anything').stdout, `HTTP/1.1 201 Created\r\nContent-Type: text/plain; charset=utf-8\r\n${DATE}Content-Length: 5\r\n\r\nmade\n`);
  assert.equal(listenScripted(n.server().net!, http, () => NOW), undefined, 'the port is taken');
  l.close();
  const refused = n.curl('-sS', `http://${SERVER_IP}:8080/`);
  assert.equal(refused.code, 7);
});

test('which httpd and IIS containers are modelled', () => {
  const app = (image: string, command: string[], args: string[]) => applicationFor({ image, command, args }) !== undefined;
  assert.equal(app('httpd', [], []), true);
  assert.equal(app('httpd:2.4', ['httpd-foreground'], []), true);
  assert.equal(app('registry.k8s.io/e2e-test-images/httpd:2.4.38-4', [], []), true);
  assert.equal(app('httpd', ['sh', '-c', 'sleep 1'], []), false);
  assert.equal(app('mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', [], []), true);
  assert.equal(app('mcr.microsoft.com/windows/servercore/iis', ['C:\\ServiceMonitor.exe', 'w3svc'], []), true);
  assert.equal(app('mcr.microsoft.com/windows/servercore/iis', ['powershell', '-Command', 'Start-Sleep 5'], []), false);
});

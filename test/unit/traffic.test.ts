/**
 * Programs talking through the cluster network model: the Windows guide's
 * sample HttpListener server, unchanged, answers curl and wget from a Linux
 * container and curl.exe, Invoke-WebRequest and Test-NetConnection from a
 * Windows one, by Service name, ClusterIP and pod IP; the clients' own
 * errors when a name does not resolve or a port refuses.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork } from '../../src/node/net/cluster-network.js';
import { ContainerFS, interpret, ProgramRunner, type Program, type ShellContext } from '../../src/node/shell/index.js';
import type { Listening } from '../../src/node/shell/net-types.js';
import { execShellFor } from '../../src/node/exec/shell-exec.js';
import { formatForHost } from '../../src/node/shell/ps-values.js';
import { webResponseObject } from '../../src/node/shell/ps-web.js';

const SEARCHES = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
const SERVER_IP = '10.244.1.5';
const LINUX_IP = '10.244.2.9';
const WINDOWS_IP = '10.244.1.6';
const CLUSTER_IP = '10.96.12.34';

const services: KObject[] = [{
  apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'win-webserver' },
  spec: { type: 'LoadBalancer', clusterIP: CLUSTER_IP, clusterIPs: [CLUSTER_IP], ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] },
}];
const slices: KObject[] = [{
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'default', name: 'win-webserver-x1', labels: { 'kubernetes.io/service-name': 'win-webserver' } },
  addressType: 'IPv4', ports: [{ name: '', port: 80, protocol: 'TCP' }], endpoints: [{ addresses: [SERVER_IP], conditions: { ready: true, serving: true, terminating: false } }],
}];

const net = new ClusterNetwork({
  services: () => services,
  service: (ns, name) => services.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
  endpointSlices: (ns) => slices.filter((s) => s.metadata.namespace === ns),
});
for (const [ip, name] of [[SERVER_IP, 'win-webserver-abc'], [LINUX_IP, 'client'], [WINDOWS_IP, 'win-client']] as const) {
  net.attach(ip, { namespace: 'default', name, node: 'n' });
}

/** Sleeps pass at once: the tests check what the programs print, not how long they wait. */
const INSTANT = { setTimeout: (fn: () => void) => setImmediate(fn), clearTimeout: (h: unknown) => clearImmediate(h as NodeJS.Immediate) };

function context(os: 'linux' | 'windows', ip: string, hostname: string, owned = new Set<Listening>()): ShellContext {
  return {
    os, env: {}, hostname, fs: new ContainerFS(os), now: () => new Date('2026-11-27T23:40:00Z'), kernelVersion: os === 'windows' ? '10.0.17763.1879' : undefined,
    network: { podIP: ip, prefixLength: 24, dnsServers: ['10.96.0.10'], searches: SEARCHES },
    net: net.forPod(ip, { os, searches: SEARCHES }, owned),
  };
}

function start(program: Program): { runner: ProgramRunner; out: () => string; done: Promise<{ stdout: string; stderr: string; code: number }> } {
  let stdout = ''; let stderr = '';
  let finish!: (r: { stdout: string; stderr: string; code: number }) => void;
  const done = new Promise<{ stdout: string; stderr: string; code: number }>((res) => { finish = res; });
  const runner = new ProgramRunner(program, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, exit: (code) => finish({ stdout, stderr, code }) }, INSTANT);
  runner.start();
  return { runner, out: () => stdout, done };
}

/** The Windows guide's sample web server (fixtures/windows-webserver.yaml), after the kubelet turned `$$` into `$`. */
const WEB_SERVER = "<#code used from https://gist.github.com/wagnerandrade/5424431#> ; $listener = New-Object System.Net.HttpListener ; $listener.Prefixes.Add('http://*:80/') ; $listener.Start() ; $callerCounts = @{} ; Write-Host('Listening at http://*:80/') ; while ($listener.IsListening) { ;$context = $listener.GetContext() ;$requestUrl = $context.Request.Url ;$clientIP = $context.Request.RemoteEndPoint.Address ;$response = $context.Response ;Write-Host '' ;Write-Host('> {0}' -f $requestUrl) ;  ;$count = 1 ;$k=$callerCounts.Get_Item($clientIP) ;if ($k -ne $null) { $count += $k } ;$callerCounts.Set_Item($clientIP, $count) ;$ip=(Get-NetAdapter | Get-NetIpAddress); $header='<html><body><H1>Windows Container Web Server</H1>' ;$callerCountsString='' ;$callerCounts.Keys | % { $callerCountsString+='<p>IP {0} callerCount {1} ' -f $ip[1].IPAddress,$callerCounts.Item($_) } ;$footer='</body></html>' ;$content='{0}{1}{2}' -f $header,$callerCountsString,$footer ;Write-Output $content ;$buffer = [System.Text.Encoding]::UTF8.GetBytes($content) ;$response.ContentLength64 = $buffer.Length ;$response.OutputStream.Write($buffer, 0, $buffer.Length) ;$response.Close() ;$responseStatus = $response.StatusCode ;Write-Host('< {0}' -f $responseStatus)  } ; ";

const serverOwned = new Set<Listening>();
const server = start(interpret(['powershell.exe', '-command', WEB_SERVER], context('windows', SERVER_IP, 'win-webserver-abc', serverOwned)));
after(() => server.runner.kill(1));

const page = (counts: string) => `<html><body><H1>Windows Container Web Server</H1>${counts}</body></html>`;
const linux = (script: string) => start(interpret(['sh', '-c', script], context('linux', LINUX_IP, 'client'))).done;
const windows = (argv: string[]) => start(interpret(argv, context('windows', WINDOWS_IP, 'win-client'))).done;

test('the sample server answers curl and wget from a Linux pod by Service name, ClusterIP and pod IP', async () => {
  assert.deepEqual(await linux('curl -s http://win-webserver'), { stdout: page(`<p>IP ${SERVER_IP} callerCount 1 `), stderr: '', code: 0 });
  assert.deepEqual(await linux(`curl -s http://${CLUSTER_IP}/`), { stdout: page(`<p>IP ${SERVER_IP} callerCount 2 `), stderr: '', code: 0 });
  assert.deepEqual(await linux('wget -qO- http://win-webserver.default.svc.cluster.local'), { stdout: page(`<p>IP ${SERVER_IP} callerCount 3 `), stderr: '', code: 0 });
  assert.deepEqual(await linux(`wget -qO- http://${SERVER_IP}:80/`), { stdout: page(`<p>IP ${SERVER_IP} callerCount 4 `), stderr: '', code: 0 });
  assert.equal(server.out(), 'Listening at http://*:80/\r\n' +
    `\r\n> http://win-webserver/\r\n${page(`<p>IP ${SERVER_IP} callerCount 1 `)}\r\n< 200\r\n` +
    `\r\n> http://${CLUSTER_IP}/\r\n${page(`<p>IP ${SERVER_IP} callerCount 2 `)}\r\n< 200\r\n` +
    `\r\n> http://win-webserver.default.svc.cluster.local/\r\n${page(`<p>IP ${SERVER_IP} callerCount 3 `)}\r\n< 200\r\n` +
    `\r\n> http://${SERVER_IP}/\r\n${page(`<p>IP ${SERVER_IP} callerCount 4 `)}\r\n< 200\r\n`);
});

test('curl -i shows the status line and the headers http.sys sends', async () => {
  const r = await linux('curl -si http://win-webserver.default');
  const body = page(`<p>IP ${SERVER_IP} callerCount 5 `);
  assert.equal(r.stdout, `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nServer: Microsoft-HTTPAPI/2.0\r\nDate: Fri, 27 Nov 2026 23:40:00 GMT\r\n\r\n${body}`);
  assert.equal((await linux('curl -s -o /dev/null -w "%{http_code} %{remote_ip}\\n" http://win-webserver')).stdout, `200 ${CLUSTER_IP}\n`);
});

test('the clients\' errors: unresolvable names, refused ports, connect timeouts', async () => {
  assert.deepEqual(await linux('curl -sS http://no-such-svc'), { stdout: '', stderr: 'curl: (6) Could not resolve host: no-such-svc\n', code: 6 });
  assert.deepEqual(await linux('curl -s http://no-such-svc; echo $?'), { stdout: '6\n', stderr: '', code: 0 });
  assert.deepEqual(await linux(`curl -sS http://${SERVER_IP}:8080/`),
    { stdout: '', stderr: `curl: (7) Failed to connect to ${SERVER_IP} port 8080 after 0 ms: Couldn't connect to server\n`, code: 7 });
  // -w is written for a failed transfer too: scripts that test %{http_code} read 000.
  assert.deepEqual(await linux(`curl -s -o /dev/null -w '%{http_code}' http://${SERVER_IP}:8080/`), { stdout: '000', stderr: '', code: 7 });
  assert.deepEqual(await linux('curl -sS --connect-timeout 3 http://10.244.9.9/'),
    { stdout: '', stderr: 'curl: (28) Failed to connect to 10.244.9.9 port 80 after 3000 ms: Timeout was reached\n', code: 28 });
  assert.deepEqual(await linux('wget -qO- http://no-such-svc'), { stdout: '', stderr: "wget: bad address 'no-such-svc'\n", code: 1 });
  assert.deepEqual(await linux(`wget -qO- http://${SERVER_IP}:8080`), { stdout: '', stderr: `wget: can't connect to remote host (${SERVER_IP}): Connection refused\n`, code: 1 });
});

test('from a Windows pod: curl.exe, Invoke-WebRequest and Test-NetConnection; one DNS suffix', async () => {
  const r = await windows(['curl.exe', '-s', 'http://win-webserver']);
  assert.deepEqual(r, { stdout: page(`<p>IP ${SERVER_IP} callerCount 6 <p>IP ${SERVER_IP} callerCount 1 `), stderr: '', code: 0 });
  const iwr = await windows(['powershell', '-Command', '(Invoke-WebRequest -UseBasicParsing http://win-webserver).Content']);
  assert.equal(iwr.stdout, `${page(`<p>IP ${SERVER_IP} callerCount 6 <p>IP ${SERVER_IP} callerCount 2 `)}\r\n`);
  assert.equal(iwr.code, 0);
  const status = await windows(['powershell', '-Command', '$r = Invoke-WebRequest -UseBasicParsing http://win-webserver.default.svc.cluster.local; $r.StatusCode']);
  assert.equal(status.stdout, '200\r\n');
  const noIE = await windows(['powershell', '-Command', 'Invoke-WebRequest http://win-webserver']);
  assert.match(noIE.stderr, /^Invoke-WebRequest : The response content cannot be parsed because the Internet Explorer engine is not available/);
  const pqdn = await windows(['curl.exe', '-sS', 'http://win-webserver.default']);
  assert.deepEqual(pqdn, { stdout: '', stderr: 'curl: (6) Could not resolve host: win-webserver.default\r\n', code: 6 });
  const tnc = await windows(['powershell', '-Command', 'Test-NetConnection win-webserver -Port 80']);
  assert.equal(tnc.stdout, `\r\nComputerName     : win-webserver\r\nRemoteAddress    : ${CLUSTER_IP}\r\nRemotePort       : 80\r\nInterfaceAlias   : vEthernet (Ethernet)\r\nSourceAddress    : ${WINDOWS_IP}\r\nTcpTestSucceeded : True\r\n\r\n`);
});

test('a Service whose backend stopped listening refuses', async () => {
  assert.equal(serverOwned.size, 1);
  server.runner.kill(1);
  assert.equal((await server.done).code, 1);
  for (const l of [...serverOwned]) l.close();
  assert.equal(net.listening(SERVER_IP, 80), false);
  assert.deepEqual(await linux('curl -sS http://win-webserver'), { stdout: '', stderr: "curl: (7) Failed to connect to win-webserver port 80 after 0 ms: Couldn't connect to server\n", code: 7 });
});

test('what a kubectl exec process listens on is released when the exec ends', () => {
  const owned = new Set<Listening>();
  const shell = execShellFor(context('windows', WINDOWS_IP, 'win-client', owned));
  const program = shell.program(['powershell', '-Command', "$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:8080/'); $l.Start(); $c = $l.GetContext()"], undefined);
  let step = program.next();
  while (!step.done && step.value.kind !== 'wait') step = program.next();
  assert.equal(!step.done && step.value.kind, 'wait', 'GetContext waits for a request');
  assert.equal(net.listening(WINDOWS_IP, 8080), true);
  shell.end?.();
  assert.equal(net.listening(WINDOWS_IP, 8080), false);
  assert.equal(owned.size, 0, 'the container keeps nothing of it');
});

test('a request in flight when the serving process ends is reset', async () => {
  const owned = new Set<Listening>();
  const stuck = start(interpret(['powershell', '-Command', "$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:8081/'); $l.Start(); $first = $l.GetContext(); $second = $l.GetContext()"],
    context('windows', WINDOWS_IP, 'win-client', owned)));
  while (!net.listening(WINDOWS_IP, 8081)) await new Promise((r) => setImmediate(r));
  const client = linux(`curl -sS http://${WINDOWS_IP}:8081/; echo "exit $?"`);
  // The server took the request and waits for another without answering; then its container stops.
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  stuck.runner.kill(137);
  for (const l of [...owned]) l.close();
  assert.deepEqual(await client, { stdout: 'exit 56\n', stderr: 'curl: (56) Recv failure: Connection reset by peer\n', code: 0 });
});

test("Invoke-WebRequest's default view in Windows PowerShell: cut at 200 characters, the first four headers", () => {
  const body = Buffer.from(`<html>\n<head><title></title>\n<meta http-equiv="refresh" content="0;URL=index.jsp">\n</head>\n<body>\n</body>\n</html>\n`);
  const response = {
    status: 200, reason: 'OK', body,
    headers: [['Accept-Ranges', 'bytes'], ['Content-Length', '114'], ['Content-Type', 'text/html'], ['ETag', '"1"'], ['Server', 'x']] as [string, string][],
  };
  const pad = ' '.repeat(20);
  assert.equal(formatForHost([webResponseObject(response, 5)]),
    '\r\nStatusCode        : 200\r\nStatusDescription : OK\r\n' +
    `Content           : <html>\r\n${pad}<head><title></title>\r\n${pad}<meta http-equiv="refresh" content="0;URL=index.jsp">\r\n${pad}</head>\r\n${pad}<body>\r\n${pad}</body>\r\n${pad}</html>\r\n${pad}\r\n` +
    `RawContent        : HTTP/1.1 200 OK\r\n${pad}Accept-Ranges: bytes\r\n${pad}Content-Length: 114\r\n${pad}Content-Type: text/html\r\n${pad}ETag: "1"\r\n${pad}Server: x\r\n${pad}\r\n` +
    `${pad}<html>\r\n${pad}<head><title></title>\r\n${pad}<meta http-equiv="refresh" content="0;URL=index.jsp">\r\n${pad}</head>\r\n${pad}...\r\n` +
    'Forms             : \r\nHeaders           : {[Accept-Ranges, bytes], [Content-Length, 114], [Content-Type, text/html], [ETag, "1"]...}\r\n' +
    'Images            : {}\r\nInputFields       : {}\r\nLinks             : {}\r\nParsedHtml        : \r\nRawContentLength  : 114\r\n\r\n');
});

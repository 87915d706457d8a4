/**
 * The Windows shells as a Windows admin uses them: PowerShell expressions,
 * object pipelines and the common cmdlets, comments, the .NET the Windows
 * guide's sample web server needs, and the network tools with the real
 * programs' output (a container whose packets go unanswered: no network
 * model yet).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, ContainerFS, interpret, type ShellContext } from '../../src/node/shell/index.js';
import { processEnv } from '../../src/node/runtime/env.js';
import { podNetwork } from '../../src/node/exec/pod-network.js';

function ctx(extra: Partial<ShellContext> = {}): ShellContext {
  const fs = new ContainerFS('windows');
  fs.mountFile('C:\\etc\\config\\a.txt', 'one');
  fs.mountFile('C:\\etc\\config\\b.txt', 'two\r\nlines');
  fs.mountFile('C:\\etc\\config\\c.log', 'three');
  return {
    os: 'windows', env: { FOO: 'bar' }, hostname: 'web-0', fs, now: () => new Date('2026-11-23T13:16:57Z'),
    network: { podIP: '10.244.3.7', prefixLength: 24, dnsServers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'] },
    ...extra,
  };
}
const ps = (script: string, extra: Partial<ShellContext> = {}, max = 5000) => collect(interpret(['powershell', '-Command', script], ctx(extra)), max);
const cmd = (line: string, extra: Partial<ShellContext> = {}) => collect(interpret(['cmd', '/c', line], ctx(extra)));

/** The Windows guide's sample web server (corpus mssdn WebServer.yaml), after the kubelet turned `$$` into `$`. */
const WEB_SERVER = "<#code used from https://gist.github.com/wagnerandrade/5424431#> ; $listener = New-Object System.Net.HttpListener ; $listener.Prefixes.Add('http://*:80/') ; $listener.Start() ; $callerCounts = @{} ; Write-Host('Listening at http://*:80/') ; while ($listener.IsListening) { ;$context = $listener.GetContext() ;$requestUrl = $context.Request.Url ;$clientIP = $context.Request.RemoteEndPoint.Address ;$response = $context.Response ;Write-Host '' ;Write-Host('> {0}' -f $requestUrl) ;  ;$count = 1 ;$k=$callerCounts.Get_Item($clientIP) ;if ($k -ne $null) { $count += $k } ;$callerCounts.Set_Item($clientIP, $count) ;$ip=(Get-NetAdapter | Get-NetIpAddress); $header='<html><body><H1>Windows Container Web Server</H1>' ;$callerCountsString='' ;$callerCounts.Keys | % { $callerCountsString+='<p>IP {0} callerCount {1} ' -f $ip[1].IPAddress,$callerCounts.Item($_) } ;$footer='</body></html>' ;$content='{0}{1}{2}' -f $header,$callerCountsString,$footer ;Write-Output $content ;$buffer = [System.Text.Encoding]::UTF8.GetBytes($content) ;$response.ContentLength64 = $buffer.Length ;$response.OutputStream.Write($buffer, 0, $buffer.Length) ;$response.Close() ;$responseStatus = $response.StatusCode ;Write-Host('< {0}' -f $responseStatus)  } ; ";

test('the sample HttpListener web server logs its banner once and then waits for requests', () => {
  assert.deepEqual(ps(WEB_SERVER), { stdout: 'Listening at http://*:80/\r\n', stderr: '', code: 'forever', slept: 0 });
  // GetContext before Start is .NET's InvalidOperationException, as an error record; the script goes on.
  const early = ps('$l = New-Object System.Net.HttpListener; $l.GetContext(); "after"');
  assert.equal(early.stdout, 'after\r\n');
  assert.equal(early.stderr,
    'Exception calling "GetContext" with "0" argument(s): "Please call the Start() method before calling this method."\r\n' +
    'At line:1 char:42\r\n+ $l = New-Object System.Net.HttpListener; $l.GetContext(); "after"\r\n' +
    '+                                          ~~~~~~~~~~~~~~~\r\n' +
    '    + CategoryInfo          : NotSpecified: (:) [], MethodInvocationException\r\n    + FullyQualifiedErrorId : InvalidOperationException\r\n \r\n');
});

test('comments: <# block #> and # line comments are not commands', () => {
  assert.deepEqual(ps('<# a\nblock #> Write-Output x # trailing\n# whole line\nWrite-Output y'), { stdout: 'x\r\ny\r\n', stderr: '', code: 0, slept: 0 });
  assert.equal(ps("Write-Output 'a # not a comment'").stdout, 'a # not a comment\r\n');
});

test('expressions: parenthesized pipelines, members, methods, indexes, -f, hashtables, arrays', () => {
  assert.equal(ps('(Get-ChildItem C:\\etc\\config | Select-Object -First 2 | Measure-Object).Count').stdout, '2\r\n');
  assert.equal(ps('(Get-ChildItem C:\\etc\\config).Count; @(1,2,3).Count; (1,2,3)[-1]; "abc".ToUpper(); "a,b".Split(",")[1]').stdout, '3\r\n3\r\n3\r\nABC\r\nb\r\n');
  assert.equal(ps("'{0}-{1,3}|{2}' -f 'a', 7, $env:FOO; \"sum $(1 + 2)\"").stdout, 'a-  7|bar\r\nsum 3\r\n');
  assert.equal(ps('$h = @{ a = 1 }; $h.Set_Item("B", 2); $h.b + $h.Get_Item("A"); $h.Count; $h.ContainsKey("c")').stdout, '3\r\n2\r\nFalse\r\n');
  assert.equal(ps('$x = Get-Process -Name csrss; $x.Id; [System.Text.Encoding]::UTF8.GetBytes("hé").Length; [Environment]::MachineName').stdout, '1056\r\n3\r\nWEB-0\r\n');
  const nope = ps('"abc".Nope()');
  assert.equal(nope.code, 1);
  assert.match(nope.stderr, /^Method invocation failed because \[System\.String\] does not contain a method named 'Nope'\.\r\n[\s\S]*FullyQualifiedErrorId : MethodNotFound\r\n/);
});

test('pipelines: Where-Object, ForEach-Object, Select-Object, Sort-Object, Measure-Object, Test-Path', () => {
  assert.equal(ps('Get-ChildItem C:\\etc\\config | Where-Object { $_.Name -like "*.txt" } | ForEach-Object { $_.Name.ToUpper() }').stdout, 'A.TXT\r\nB.TXT\r\n');
  assert.equal(ps('Get-ChildItem C:\\etc\\config | Where-Object Name -like "c*" | ForEach-Object Name').stdout, 'c.log\r\n');
  assert.equal(ps('1,5,3 | Sort-Object -Descending | Select-Object -First 2').stdout, '5\r\n3\r\n');
  assert.equal(ps('1..3 | Out-Null; 4,6 | Measure-Object -Sum -Average').stdout,
    '\r\nCount    : 2\r\nAverage  : 5\r\nSum      : 10\r\nMaximum  :\r\nMinimum  :\r\nProperty :\r\n\r\n');
  assert.equal(ps('Test-Path C:\\etc\\config\\a.txt; Test-Path C:\\nope; Get-Content C:\\etc\\config\\b.txt | Measure-Object | % Count').stdout, 'True\r\nFalse\r\n2\r\n');
  // A directory listing piped on keeps Get-ChildItem's table.
  assert.equal(ps('Get-ChildItem C:\\etc\\config | Select-Object -Last 1').stdout,
    '\r\n\r\n    Directory: C:\\etc\\config\r\n\r\n\r\nMode                 LastWriteTime         Length Name\r\n----                 -------------         ------ ----\r\n' +
    '-a----        11/23/2026   1:16 PM              5 c.log\r\n\r\n\r\n');
});

test('Get-Process and Get-Service print their default tables; unknown names are error records', () => {
  assert.equal(ps('Get-Process -Name csrss').stdout,
    '\r\nHandles  NPM(K)    PM(K)      WS(K)     CPU(s)     Id  SI ProcessName\r\n-------  ------    -----      -----     ------     --  -- -----------\r\n' +
    '    150      10     1160       5180       0.05   1056   1 csrss\r\n\r\n');
  assert.equal(ps('Get-Service CExecSvc').stdout,
    '\r\nStatus   Name               DisplayName\r\n------   ----               -----------\r\nRunning  CExecSvc           Container Execution Agent\r\n\r\n');
  const missing = ps('Get-Service nope');
  assert.match(missing.stderr, /^Get-Service : Cannot find any service with service name 'nope'\.\r\n[\s\S]*NoServiceFoundForGivenName,Microsoft\.PowerShell\.Commands\.GetServiceCommand/);
  assert.equal(ps('(Get-Process | Where-Object { $_.ProcessName -eq "svchost" }).Count').stdout, '3\r\n');
});

test('ping: loopback and the pod itself answer; other addresses time out, unknown names do not resolve', () => {
  assert.deepEqual(cmd('ping 8.8.8.8'), {
    stdout: '\r\nPinging 8.8.8.8 with 32 bytes of data:\r\nRequest timed out.\r\nRequest timed out.\r\nRequest timed out.\r\nRequest timed out.\r\n\r\n' +
      'Ping statistics for 8.8.8.8:\r\n    Packets: Sent = 4, Received = 0, Lost = 4 (100% loss),\r\n',
    stderr: '', code: 1, slept: 16_000,
  });
  assert.deepEqual(cmd('ping no-such-host.invalid'),
    { stdout: 'Ping request could not find host no-such-host.invalid. Please check the name and try again.\r\n', stderr: '', code: 1, slept: 0 });
  assert.deepEqual(cmd('ping -n 2 10.244.3.7'), {
    stdout: '\r\nPinging 10.244.3.7 with 32 bytes of data:\r\nReply from 10.244.3.7: bytes=32 time<1ms TTL=128\r\nReply from 10.244.3.7: bytes=32 time<1ms TTL=128\r\n\r\n' +
      'Ping statistics for 10.244.3.7:\r\n    Packets: Sent = 2, Received = 2, Lost = 0 (0% loss),\r\nApproximate round trip times in milli-seconds:\r\n    Minimum = 0ms, Maximum = 0ms, Average = 0ms\r\n',
    stderr: '', code: 0, slept: 1000,
  });
  assert.equal(ps('ping -n 1 8.8.8.8 | Out-Null; $LASTEXITCODE').stdout, '1\r\n');
});

test('ipconfig shows the pod address, subnet, gateway and DNS suffix in ipconfig\'s layout', () => {
  assert.equal(cmd('ipconfig').stdout,
    '\r\nWindows IP Configuration\r\n\r\n\r\nEthernet adapter vEthernet (Ethernet):\r\n\r\n' +
    '   Connection-specific DNS Suffix  . : default.svc.cluster.local\r\n' +
    '   Link-local IPv6 Address . . . . . : fe80::57f4:3ff:fe07:4f4%17\r\n' +
    '   IPv4 Address. . . . . . . . . . . : 10.244.3.7\r\n' +
    '   Subnet Mask . . . . . . . . . . . : 255.255.255.0\r\n' +
    '   Default Gateway . . . . . . . . . : 10.244.3.1\r\n');
  const all = cmd('ipconfig /all').stdout;
  assert.match(all, /\r\n   Host Name \. \. \. \. \. \. \. \. \. \. \. \. : web-0\r\n/);
  assert.match(all, /   DNS Suffix Search List\. \. \. \. \. \. : default\.svc\.cluster\.local\r\n {39}svc\.cluster\.local\r\n {39}cluster\.local\r\n/);
  assert.match(all, /   DNS Servers \. \. \. \. \. \. \. \. \. \. \. : 10\.96\.0\.10\r\n/);
  assert.equal(ps('ipconfig').stdout, cmd('ipconfig').stdout);
});

test('name lookups and HTTP clients fail as on a host whose DNS server never answers', () => {
  assert.deepEqual(cmd('nslookup kubernetes.default'), {
    stdout: 'DNS request timed out.\r\n    timeout was 2 seconds.\r\nServer:  UnKnown\r\nAddress:  10.96.0.10\r\n\r\n' +
      'DNS request timed out.\r\n    timeout was 2 seconds.\r\n'.repeat(4) + '*** Request to UnKnown timed-out\r\n',
    stderr: '', code: 1, slept: 10_000,
  });
  assert.deepEqual(cmd('curl http://no-such-host.invalid/'), { stdout: '', stderr: 'curl: (6) Could not resolve host: no-such-host.invalid\r\n', code: 6, slept: 10_000 });
  assert.deepEqual(cmd('curl.exe -sS http://10.0.0.1/'),
    { stdout: '', stderr: 'curl: (28) Failed to connect to 10.0.0.1 port 80 after 21000 ms: Timed out\r\n', code: 28, slept: 21_000 });
  const dns = ps('Resolve-DnsName example.com');
  assert.equal(dns.stderr, 'Resolve-DnsName : example.com : This operation returned because the timeout period expired\r\nAt line:1 char:1\r\n' +
    '+ Resolve-DnsName example.com\r\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~\r\n' +
    '    + CategoryInfo          : OperationTimeout: (example.com:String) [Resolve-DnsName], Win32Exception\r\n' +
    '    + FullyQualifiedErrorId : ERROR_TIMEOUT,Microsoft.DnsClient.Commands.ResolveDnsName\r\n \r\n');
  const iwr = ps('Invoke-WebRequest http://example.com -UseBasicParsing');
  assert.match(iwr.stderr, /^Invoke-WebRequest : The remote name could not be resolved: 'example\.com'\r\n[\s\S]*InvalidOperation: \(System\.Net\.HttpWebRequest:HttpWebRequest\) \[Invoke-WebRequest\], WebException\r\n/);
  assert.equal(collect(interpret(['pwsh', '-c', 'Invoke-WebRequest https://example.com/x'], ctx())).stderr, 'Invoke-WebRequest: No such host is known. (example.com:443)\r\n');
  // In Windows PowerShell `curl` is Invoke-WebRequest's alias; PowerShell 7 runs curl.exe.
  assert.equal(collect(interpret(['pwsh', '-c', 'curl http://example.com'], ctx())).stderr, 'curl: (6) Could not resolve host: example.com\r\n');
  assert.match(ps('curl http://example.com').stderr, /^Invoke-WebRequest : /);
  assert.equal(ps('Test-NetConnection 8.8.8.8').stdout,
    'WARNING: Ping to 8.8.8.8 failed with status: TimedOut\r\n\r\nComputerName           : 8.8.8.8\r\nRemoteAddress          : 8.8.8.8\r\n' +
    'InterfaceAlias         : vEthernet (Ethernet)\r\nSourceAddress          : 10.244.3.7\r\nPingSucceeded          : False\r\nPingReplyDetails (RTT) : 0 ms\r\n\r\n');
});

test('hostname, whoami, tasklist and netstat', () => {
  assert.equal(cmd('hostname & whoami').stdout, 'web-0\r\nuser manager\\containeradministrator\r\n');
  const tasks = cmd('tasklist').stdout.split('\r\n');
  assert.deepEqual(tasks.slice(0, 4), ['', 'Image Name                     PID Session Name        Session#    Mem Usage',
    '========================= ======== ================ =========== ============', 'System Idle Process              0 Services                   0          8 K']);
  assert.equal(cmd('netstat -an').stdout, '\r\nActive Connections\r\n\r\n  Proto  Local Address          Foreign Address        State\r\n' +
    '  TCP    0.0.0.0:135            0.0.0.0:0              LISTENING\r\n  TCP    [::]:135               [::]:0                 LISTENING\r\n');
  assert.equal(collect(interpret(['ipconfig'], ctx())).code, 0);
});

test('whoami names the account runAsUserName gives the container (container over pod), else ContainerAdministrator', () => {
  const net = { nodeName: 'win-1', hostIPs: [], podIPs: [], allocatable: { cpu: '4', memory: '8Gi' }, os: 'windows' as const };
  const src = { configMap: () => undefined, secret: () => undefined, services: () => [] };
  const pod = (podUser?: string, containerUser?: string) => {
    const container = { name: 'c', image: 'x', ...(containerUser ? { securityContext: { windowsOptions: { runAsUserName: containerUser } } } : {}) };
    const p = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [container], ...(podUser ? { securityContext: { windowsOptions: { runAsUserName: podUser } } } : {}) } };
    return processEnv(p, container, net, src, 'p', 4);
  };
  const who = (env: Record<string, string>) => cmd('whoami', { env }).stdout;
  assert.equal(who(pod()), 'user manager\\containeradministrator\r\n');
  assert.equal(who(pod('ContainerUser')), 'user manager\\containeruser\r\n');
  assert.equal(pod('ContainerUser').USERPROFILE, 'C:\\Users\\ContainerUser');
  assert.equal(who(pod('ContainerUser', 'ContainerAdministrator')), 'user manager\\containeradministrator\r\n');
  assert.equal(ps('whoami', { env: pod('NT AUTHORITY\\NETWORK SERVICE') }).stdout, 'nt authority\\network service\r\n');
});

test('Get-Date: the long date view, properties, -Format and string conversion', () => {
  assert.equal(ps('Get-Date').stdout, '\r\nMonday, November 23, 2026 1:16:57 PM\r\n\r\n\r\n');
  assert.equal(ps('(Get-Date).Year; (Get-Date).AddDays(1).DayOfWeek; Get-Date -Format "yyyy-MM-dd HH:mm:ss"; Get-Date -Format o; "at $(Get-Date)"').stdout,
    '2026\r\nTuesday\r\n2026-11-23 13:16:57\r\n2026-11-23T13:16:57.0000000+00:00\r\nat 11/23/2026 13:16:57\r\n');
});

test('the network a pod\'s tools show: its address and the DNS of its dnsPolicy plus dnsConfig', () => {
  const pod = (spec: Record<string, unknown>) => ({ metadata: { name: 'p', namespace: 'web' }, spec, status: { podIP: '10.244.4.9' } });
  assert.deepEqual(podNetwork(pod({})), { podIP: '10.244.4.9', prefixLength: 24, dnsServers: ['10.96.0.10'], searches: ['web.svc.cluster.local', 'svc.cluster.local', 'cluster.local'] });
  assert.deepEqual(podNetwork(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['example.com'] } })),
    { podIP: '10.244.4.9', prefixLength: 24, dnsServers: ['1.1.1.1'], searches: ['example.com'] });
  assert.deepEqual(podNetwork(pod({ hostNetwork: true })).dnsServers, []);
  assert.deepEqual(podNetwork(pod({ dnsConfig: { nameservers: ['1.1.1.1'] } })).dnsServers, ['10.96.0.10', '1.1.1.1']);
});

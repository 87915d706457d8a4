import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, ContainerFS, interpret, openSession, ProgramRunner, startError, type ShellContext, type Step } from '../../src/node/shell/index.js';

function ctx(os: 'linux' | 'windows', extra: Partial<ShellContext> = {}): ShellContext {
  const fs = new ContainerFS(os);
  if (os === 'linux') fs.mountFile('/etc/config/game.properties', 'lives=3\n');
  else fs.mountFile('C:\\etc\\config\\key', 'value');
  return { os, env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', FOO: 'bar', HOSTNAME: 'pod-1' }, hostname: 'pod-1', fs,
    now: () => new Date('2026-11-23T13:16:57Z'), ...extra };
}
const run = (os: 'linux' | 'windows', argv: string[], extra: Partial<ShellContext> = {}, max = 1000) => collect(interpret(argv, ctx(os, extra)), max);

test('sh -c: sequences, exit codes, expansion and quoting', () => {
  assert.deepEqual(run('linux', ['sh', '-c', 'echo hi; exit 3']), { stdout: 'hi\n', stderr: '', code: 3, slept: 0 });
  assert.deepEqual(run('linux', ['sh', '-c', 'echo "a $FOO ${FOO}x" \'$FOO\' ${NOPE:-dflt}']).stdout, 'a bar barx $FOO dflt\n');
  assert.deepEqual(run('linux', ['sh', '-c', 'false && echo no || echo yes; true; echo $?']).stdout, 'yes\n0\n');
  assert.deepEqual(run('linux', ['sh', '-c', 'X=1; export X; sh -c "echo \\$X"']).stdout, '1\n');
  assert.equal(run('linux', ['sh', '-c', 'exit 300']).code, 44);
  assert.deepEqual(run('linux', ['sh', '-c', 'echo $(hostname) `date +%F`']).stdout, 'pod-1 2026-11-23\n');
  assert.deepEqual(run('linux', ['sh', '-c', 'printf "%s-%d\\n" a 1 b 2']).stdout, 'a-1\nb-2\n');
  assert.deepEqual(run('linux', ['sh', '-c', 'echo $0 $1', 'name', 'arg']).stdout, 'name arg\n');
  assert.deepEqual(run('linux', ['sh', '-c', 'date']).stdout, 'Mon Nov 23 13:16:57 UTC 2026\n');
});

test('sh: unknown commands fail as each shell reports it, status 127', () => {
  assert.deepEqual(run('linux', ['sh', '-c', 'foo']), { stdout: '', stderr: 'sh: foo: not found\n', code: 127, slept: 0 });
  assert.equal(run('linux', ['/bin/sh', '-c', 'foo']).stderr, '/bin/sh: foo: not found\n');
  assert.equal(run('linux', ['sh', '-c', 'foo'], { posixShell: 'dash' }).stderr, 'sh: 1: foo: not found\n');
  assert.deepEqual(run('linux', ['bash', '-c', 'foo; echo $?']), { stdout: '127\n', stderr: 'bash: line 1: foo: command not found\n', code: 0, slept: 0 });
  assert.deepEqual(run('linux', ['sh', '-c', 'while true; do; done']), { stdout: '', stderr: 'sh: syntax error: unexpected ";"\n', code: 2, slept: 0 });
  assert.equal(run('linux', ['sh', '-ec', 'false; echo unreachable']).code, 1);
});

test('sh: sleeps, loops and blocking forever', () => {
  assert.deepEqual(run('linux', ['sh', '-c', 'for i in 1 2 3; do echo $i; sleep 1; done']), { stdout: '1\n2\n3\n', stderr: '', code: 0, slept: 3000 });
  const loop = run('linux', ['sh', '-c', 'while true; do echo x; sleep 5; done'], {}, 20);
  assert.equal(loop.code, 'forever');
  assert.equal(loop.stdout, 'x\n'.repeat(10));
  assert.equal(run('linux', ['sh', '-c', 'tail -f /dev/null']).code, 'forever');
  assert.equal(run('linux', ['sh', '-c', 'sleep infinity']).code, 'forever');
  assert.deepEqual(run('linux', ['sleep', '3600']), { stdout: '', stderr: '', code: 0, slept: 3_600_000 });
  assert.deepEqual(run('linux', ['sh', '-c', 'sleep 1m 0.5']).slept, 60_500);
  assert.deepEqual(run('linux', ['sleep', 'x']), { stdout: '', stderr: "sleep: invalid number 'x'\n", code: 1, slept: 0 });
  // A loop that never sleeps is throttled rather than spinning.
  assert.ok(run('linux', ['sh', '-c', 'while true; do :; done'], {}, 200).slept > 0);
});

test('sh: files of mounted volumes, the writable overlay, redirections', () => {
  assert.deepEqual(run('linux', ['sh', '-c', 'ls /etc/config; cat /etc/config/game.properties; cat /nope']),
    { stdout: 'game.properties\nlives=3\n', stderr: "cat: can't open '/nope': No such file or directory\n", code: 1, slept: 0 });
  assert.deepEqual(run('linux', ['sh', '-c', 'echo x > /etc/config/y']),
    { stdout: '', stderr: "sh: can't create /etc/config/y: Read-only file system\n", code: 1, slept: 0 });
  assert.deepEqual(run('linux', ['sh', '-c', 'touch /tmp/healthy; cat /tmp/healthy && echo ok; rm /tmp/healthy; cat /tmp/healthy']).stdout, 'ok\n');
  assert.deepEqual(run('linux', ['sh', '-c', 'echo a > /tmp/f; echo b >> /tmp/f; cat /tmp/f; echo err >&2; echo gone > /dev/null']),
    { stdout: 'a\nb\n', stderr: 'err\n', code: 0, slept: 0 });
  assert.equal(run('linux', ['sh', '-c', 'if [ -f /etc/config/game.properties ]; then echo yes; else echo no; fi']).stdout, 'yes\n');
  assert.equal(run('linux', ['sh', '-c', 'cat /etc/config/* | grep lives']).stdout, 'lives=3\n');
  assert.equal(run('linux', ['ls', '/nope'], { posixShell: 'dash' }).stderr, "ls: cannot access '/nope': No such file or directory\n");
});

test('sh: env and printenv show the exported environment', () => {
  assert.equal(run('linux', ['sh', '-c', 'env | grep FOO; printenv FOO HOSTNAME']).stdout, 'FOO=bar\nbar\npod-1\n');
  assert.equal(run('linux', ['printenv', 'NOPE']).code, 1);
});

test('a TERM trap runs on SIGTERM; a plain shell ignores it', () => {
  const trapped = interpret(['sh', '-c', "trap 'echo bye; exit 0' TERM; sleep 3600"], ctx('linux'));
  assert.deepEqual(trapped.next().value, { kind: 'sleep', ms: 3_600_000 });
  const t = trapped.terminate!()!;
  assert.deepEqual([t.next().value, t.next().value], [{ kind: 'stdout', text: 'bye\n' }, { kind: 'exit', code: 0 }]);
  const plain = interpret(['sh', '-c', 'sleep 3600'], ctx('linux'));
  plain.next();
  assert.equal(plain.terminate!(), undefined);
  // The image's own entrypoint (no command) runs until stopped and exits 0 on SIGTERM.
  const app = interpret([], ctx('linux'));
  assert.deepEqual(app.next().value, { kind: 'forever' });
  assert.deepEqual(app.terminate!()!.next().value, { kind: 'exit', code: 0 });
});

test('cmd /c: echo, set, type, dir, exit /b, unknown commands (9009)', () => {
  assert.deepEqual(run('windows', ['cmd', '/c', 'echo hi& set FOO & exit /b 4']), { stdout: 'hi\r\nFOO=bar\r\n', stderr: '', code: 4, slept: 0 });
  assert.deepEqual(run('windows', ['cmd.exe', '/S', '/C', '"foo"']), {
    stdout: '', code: 9009, slept: 0,
    stderr: "'foo' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n",
  });
  assert.equal(run('windows', ['cmd', '/c', 'echo %FOO% %UNDEFINED% %COMPUTERNAME%']).stdout, 'bar %UNDEFINED% POD-1\r\n');
  assert.equal(run('windows', ['cmd', '/c', 'type C:\\etc\\config\\key']).stdout, 'value');
  assert.deepEqual(run('windows', ['cmd', '/c', 'type C:\\nope']), { stdout: '', stderr: 'The system cannot find the file specified.\r\n', code: 1, slept: 0 });
  assert.equal(run('windows', ['cmd', '/c', 'dir /b C:\\etc\\config']).stdout, 'key\r\n');
  assert.equal(run('windows', ['cmd', '/c', 'hostname']).stdout, 'pod-1\r\n');
  assert.deepEqual(run('windows', ['cmd', '/c', 'timeout /t 30 /nobreak > nul & exit 2']), { stdout: '', stderr: '', code: 2, slept: 30_000 });
  assert.equal(run('windows', ['cmd', '/c', 'ping -t localhost'], {}, 50).code, 'forever');
  assert.deepEqual(run('windows', ['cmd', '/c', 'ping -n 3 127.0.0.1 > nul']).slept, 2000);
});

test('powershell -Command: output, sleep, env, exit codes, CommandNotFoundException', () => {
  assert.deepEqual(run('windows', ['powershell', '-Command', 'Write-Host "hi $env:FOO"; Start-Sleep -Seconds 2; Write-Output a b; exit 5']),
    { stdout: 'hi bar\r\na\r\nb\r\n', stderr: '', code: 5, slept: 2000 });
  assert.deepEqual(run('windows', ['powershell', '-Command', 'foo']), {
    stdout: '', code: 1, slept: 0,
    stderr: "foo : The term 'foo' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the " +
      'spelling of the name, or if a path was included, verify that the path is correct and try again.\r\nAt line:1 char:1\r\n+ foo\r\n+ ~~~\r\n' +
      '    + CategoryInfo          : ObjectNotFound: (foo:String) [], CommandNotFoundException\r\n    + FullyQualifiedErrorId : CommandNotFoundException\r\n \r\n',
  });
  assert.equal(run('windows', ['pwsh', '-c', 'foo']).stderr,
    "foo: The term 'foo' is not recognized as a name of a cmdlet, function, script file, or executable program.\r\n" +
    'Check the spelling of the name, or if a path was included, verify that the path is correct and try again.\r\n');
  assert.equal(run('windows', ['powershell', '-c', 'foo; Write-Host after']).code, 0);
  assert.equal(run('windows', ['powershell', '-c', '$env:X = "y"; Write-Output $env:X; $i = 2; Write-Host ($i + 1)']).stdout, 'y\r\n3\r\n');
  const loop = run('windows', ['powershell', '-c', 'while ($true) { Write-Host tick; Start-Sleep 10 }'], {}, 6);
  assert.deepEqual([loop.stdout, loop.code, loop.slept], ['tick\r\n'.repeat(3), 'forever', 30_000]);
  assert.equal(run('windows', ['powershell', '-c', 'Get-ChildItem Env:']).stdout,
    '\r\nName                           Value\r\n----                           -----\r\nCOMPUTERNAME                   POD-1\r\nFOO                            bar\r\n' +
    'HOSTNAME                       pod-1\r\nPATH                           /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\r\n\r\n');
  assert.equal(run('windows', ['powershell', '-c', 'Get-Content C:\\etc\\config\\key']).stdout, 'value\r\n');
  assert.equal(run('windows', ['powershell', '-c', 'for ($i=0; $i -lt 3; $i++) { Write-Host $i }']).stdout, '0\r\n1\r\n2\r\n');
});

test('executables the image cannot have fail at start; unknown ones are the image application', () => {
  assert.match(startError(['cmd', '/c', 'echo'], { os: 'linux' })!, /exec: "cmd": executable file not found in \$PATH: unknown$/);
  assert.match(startError(['sh', '-c', 'echo'], { os: 'windows' })!, /The system cannot find the file specified/);
  assert.equal(startError(['nginx'], { os: 'linux' }), undefined);
  assert.equal(run('linux', ['nginx', '-g', 'daemon off;']).code, 'forever');
});

test('interactive sessions keep state between lines', () => {
  const s = openSession('sh', ctx('linux'));
  assert.equal(s.prompt(), '/ # ');
  const lines = (src: string) => { const out: Step[] = []; const it = s.line(src); for (let r = it.next(); !r.done; r = it.next()) out.push(r.value); return out; };
  lines('X=5; cd /etc');
  assert.deepEqual(lines('echo $X; pwd'), [{ kind: 'stdout', text: '5\n' }, { kind: 'stdout', text: '/etc\n' }]);
  assert.deepEqual(lines('exit 7'), [{ kind: 'exit', code: 7 }]);
});

test('ProgramRunner plays steps with timers and honours kill', async () => {
  const out: string[] = [];
  const code = await new Promise<number>((resolve) => {
    const r = new ProgramRunner(interpret(['sh', '-c', 'echo a; sleep 0.01; echo b; exit 4'], ctx('linux')),
      { stdout: (t) => out.push(t), stderr: () => {}, exit: resolve });
    r.start();
  });
  assert.deepEqual([out, code], [['a\n', 'b\n'], 4]);
  const killed = await new Promise<number>((resolve) => {
    const r = new ProgramRunner(interpret(['sleep', '3600'], ctx('linux')), { stdout: () => {}, stderr: () => {}, exit: resolve });
    r.start();
    setTimeout(() => { assert.equal(r.terminate(), false); r.kill(137); }, 5);
  });
  assert.equal(killed, 137);
});

test('sh: busybox ash and bash take [[ ... ]] as test (the Job conformance test\'s fail-once script); dash has no [[', () => {
  const script = 'if [[ -r /etc/config/game.properties ]] ; then echo yes ; else echo no ; fi; [[ -r /nope ]]; echo $?';
  assert.deepEqual(run('linux', ['sh', '-c', script]), { stdout: 'yes\n1\n', stderr: '', code: 0, slept: 0 });
  assert.equal(run('linux', ['bash', '-c', script]).stdout, 'yes\n1\n');
  assert.deepEqual(run('linux', ['sh', '-c', '[[ -r /nope']), { stdout: '', stderr: '[[: missing ]]\n', code: 2, slept: 0 });
  assert.deepEqual(run('linux', ['sh', '-c', '[[ -r /nope ]]'], { posixShell: 'dash' }), { stdout: '', stderr: 'sh: 1: [[: not found\n', code: 127, slept: 0 });
});

/**
 * Read-only volume mounts as the container's shells meet them: cmd.exe opens
 * a redirection target before it runs the command and reports the Win32
 * error (`Access is denied.`, errorlevel 1) without running it; PowerShell's
 * Out-File (which `>` runs) and Set-Content report .NET's
 * UnauthorizedAccessException; POSIX shells report EROFS each in its words.
 * Writable mounts stay writable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, interpret } from '../../src/node/shell/index.js';
import { containerFS, type VolumeContext } from '../../src/node/runtime/volumes.js';
import type { KObject } from '../../src/apimachinery/object.js';

const VCTX = {
  sources: { configMap: () => undefined, secret: () => undefined, services: () => [] },
  net: { nodeName: 'n', hostIPs: [], podIPs: [], allocatable: { cpu: '1', memory: '1Gi' }, os: 'linux' },
} as unknown as VolumeContext;

function fsFor(os: 'linux' | 'windows') {
  const ro = os === 'windows' ? 'C:\\ro' : '/ro';
  const rw = os === 'windows' ? 'C:\\rw' : '/rw';
  const pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { volumes: [{ name: 'a', emptyDir: {} }, { name: 'b', emptyDir: {} }] } } as unknown as KObject;
  return containerFS(pod, { name: 'c', volumeMounts: [{ name: 'a', mountPath: ro, readOnly: true }, { name: 'b', mountPath: rw }] }, os, VCTX);
}

const cases: { name: string; os: 'linux' | 'windows'; argv: string[]; stdout: string; stderr: string; code: number; file: string; content?: string }[] = [
  { name: 'cmd: redirect into a read-only mount', os: 'windows', argv: ['cmd', '/c', 'echo x> C:\\ro\\f.txt'],
    stdout: '', stderr: 'Access is denied.\r\n', code: 1, file: 'C:\\ro\\f.txt' },
  { name: 'cmd: a failed redirection is a failed command (|| runs)', os: 'windows',
    argv: ['cmd', '/c', 'echo x> C:\\ro\\f.txt || echo failed'], stdout: 'failed\r\n', stderr: 'Access is denied.\r\n', code: 0, file: 'C:\\ro\\f.txt' },
  { name: 'cmd: redirect into a missing directory', os: 'windows', argv: ['cmd', '/c', 'echo x> C:\\nope\\f.txt'],
    stdout: '', stderr: 'The system cannot find the path specified.\r\n', code: 1, file: 'C:\\nope\\f.txt' },
  { name: 'cmd: a writable mount takes the file', os: 'windows', argv: ['cmd', '/c', 'echo x> C:\\rw\\f.txt'],
    stdout: '', stderr: '', code: 0, file: 'C:\\rw\\f.txt', content: 'x\r\n' },
  { name: 'PowerShell: Set-Content into a read-only mount is the provider\'s UnauthorizedAccessException', os: 'windows',
    argv: ['powershell', '-Command', 'Set-Content -Path C:\\ro\\f.txt -Value x'], stdout: '',
    stderr: "Set-Content : Access to the path 'C:\\ro\\f.txt' is denied.\r\nAt line:1 char:1\r\n+ Set-Content -Path C:\\ro\\f.txt -Value x\r\n" +
      `+ ${'~'.repeat(38)}\r\n    + CategoryInfo          : PermissionDenied: (C:\\ro\\f.txt:String) [Set-Content], UnauthorizedAccessException\r\n` +
      '    + FullyQualifiedErrorId : GetContentWriterUnauthorizedAccessError,Microsoft.PowerShell.Commands.SetContentCommand\r\n \r\n',
    code: 1, file: 'C:\\ro\\f.txt' },
  { name: 'cmd: >> into a read-only mount is refused too', os: 'windows', argv: ['cmd', '/c', 'echo x>> C:\\ro\\f.txt'],
    stdout: '', stderr: 'Access is denied.\r\n', code: 1, file: 'C:\\ro\\f.txt' },
  { name: 'PowerShell: > into a read-only mount is out-file\'s UnauthorizedAccessException', os: 'windows',
    argv: ['powershell', '-Command', '"x" > C:\\ro\\f.txt'], stdout: '',
    stderr: "out-file : Access to the path 'C:\\ro\\f.txt' is denied.\r\nAt line:1 char:1\r\n+ \"x\" > C:\\ro\\f.txt\r\n" +
      `+ ${'~'.repeat(17)}\r\n    + CategoryInfo          : OpenError: (:) [Out-File], UnauthorizedAccessException\r\n` +
      '    + FullyQualifiedErrorId : FileOpenFailure,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\n',
    code: 1, file: 'C:\\ro\\f.txt' },
  { name: 'PowerShell: Out-File into a read-only mount, at the cmdlet\'s position in the pipeline', os: 'windows',
    argv: ['powershell', '-Command', 'Get-Date | Out-File C:\\ro\\f.txt'], stdout: '',
    stderr: "Out-File : Access to the path 'C:\\ro\\f.txt' is denied.\r\nAt line:1 char:12\r\n+ Get-Date | Out-File C:\\ro\\f.txt\r\n" +
      `+ ${' '.repeat(11)}${'~'.repeat(20)}\r\n    + CategoryInfo          : OpenError: (:) [Out-File], UnauthorizedAccessException\r\n` +
      '    + FullyQualifiedErrorId : FileOpenFailure,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\n',
    code: 1, file: 'C:\\ro\\f.txt' },
  { name: 'PowerShell: a writable mount takes the redirected output', os: 'windows', argv: ['powershell', '-Command', '"x" > C:\\rw\\f.txt'],
    stdout: '', stderr: '', code: 0, file: 'C:\\rw\\f.txt', content: 'x\r\n' },
  { name: 'sh: redirect into a read-only mount', os: 'linux', argv: ['sh', '-c', 'echo x > /ro/f.txt'],
    stdout: '', stderr: "sh: can't create /ro/f.txt: Read-only file system\n", code: 1, file: '/ro/f.txt' },
  { name: 'dash: redirect into a read-only mount (dash says cannot create, and fails with 2)', os: 'linux', argv: ['dash', '-c', 'echo x > /ro/f.txt'],
    stdout: '', stderr: 'dash: 1: cannot create /ro/f.txt: Read-only file system\n', code: 2, file: '/ro/f.txt' },
  { name: 'dash: redirect into a missing directory', os: 'linux', argv: ['dash', '-c', 'echo x > /nope/f.txt'],
    stdout: '', stderr: 'dash: 1: cannot create /nope/f.txt: Directory nonexistent\n', code: 2, file: '/nope/f.txt' },
  { name: 'bash: redirect into a read-only mount', os: 'linux', argv: ['bash', '-c', 'echo x > /ro/f.txt'],
    stdout: '', stderr: 'bash: line 1: /ro/f.txt: Read-only file system\n', code: 1, file: '/ro/f.txt' },
];

for (const c of cases) {
  test(c.name, () => {
    const fs = fsFor(c.os);
    const r = collect(interpret(c.argv, { os: c.os, env: {}, hostname: 'p', fs }));
    assert.deepEqual({ stdout: r.stdout, stderr: r.stderr, code: r.code }, { stdout: c.stdout, stderr: c.stderr, code: c.code });
    assert.equal(fs.read(fs.resolve(c.file)), c.content);
  });
}

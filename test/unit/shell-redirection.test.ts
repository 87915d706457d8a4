/**
 * Output redirection in the Windows shells. Windows PowerShell 5.1: `>` and
 * `>>` run Out-File, which writes UTF-16 LE with a BOM; `n>`, `*>`, `n>&1`
 * and `> $null` route the error, warning and information streams; a target
 * that cannot be opened is Out-File's terminating error, invoked as
 * `out-file`, and the command does not run. cmd.exe: `>`, `>>`, `2>`,
 * `2>nul`, `2>&1`, applied left to right, the text around them kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, ContainerFS, interpret, type ShellContext } from '../../src/node/shell/index.js';

function ctx(fs = new ContainerFS('windows')): ShellContext {
  return { os: 'windows', env: {}, hostname: 'web-0', fs, now: () => new Date('2026-11-23T13:16:57Z') };
}
const ps = (script: string, c = ctx()) => collect(interpret(['powershell', '-Command', script], c));
const pwsh = (script: string, c = ctx()) => collect(interpret(['pwsh', '-Command', script], c));
const cmd = (line: string, c = ctx()) => collect(interpret(['cmd', '/c', line], c));
const bytes = (c: ShellContext, path: string) => {
  const e = c.fs.stat(c.fs.resolve(path));
  assert.equal(e?.type, 'file', `${path} is a file`);
  // The bytes on disk: kept beside the text when they are not its UTF-8.
  return e?.type === 'file' ? e.bytes ?? Buffer.from(e.content) : Buffer.alloc(0);
};
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

test('PowerShell 5.1: > writes what the host would show, as UTF-16 LE with a BOM; Get-Content and type read it back', () => {
  const c = ctx();
  const shown = ps('Get-Date', c).stdout;
  assert.deepEqual(ps('Get-Date > C:\\out.txt', c), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(bytes(c, 'C:\\out.txt'), utf16(shown));
  assert.equal(ps('Get-Content C:\\out.txt', c).stdout, shown);
  assert.equal(cmd('type C:\\out.txt', c).stdout, shown);
  // The size on disk is the UTF-16 one.
  assert.equal(ps('(Get-ChildItem C:\\out.txt).Length', c).stdout, `${2 + 2 * shown.length}\r\n`);
});

test('PowerShell 5.1: >> appends without a second BOM; a native program\'s lines go through Out-File too', () => {
  const c = ctx();
  assert.equal(ps('"x" >> C:\\log.txt; "y" >> C:\\log.txt', c).code, 0);
  assert.deepEqual(bytes(c, 'C:\\log.txt'), utf16('x\r\ny\r\n'));
  assert.equal(ps('Get-Content C:\\log.txt', c).stdout, 'x\r\ny\r\n');
  assert.deepEqual(ps('cmd /c echo hi > C:\\native.txt', c), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(bytes(c, 'C:\\native.txt'), utf16('hi\r\n'));
  // > truncates; an empty output leaves the BOM alone, as the StreamWriter writes it when it closes.
  assert.equal(ps('$null > C:\\log.txt', c).code, 0);
  assert.deepEqual(bytes(c, 'C:\\log.txt'), Buffer.from([0xff, 0xfe]));
});

test('PowerShell 5.1: cmd >> onto a UTF-16 file mixes its single-byte text in, as on Windows', () => {
  const c = ctx();
  ps('"a" > C:\\mix.txt', c);
  assert.equal(cmd('echo b>> C:\\mix.txt', c).code, 0);
  assert.deepEqual(bytes(c, 'C:\\mix.txt'), Buffer.concat([utf16('a\r\n'), Buffer.from('b\r\n')]));
});

test('PowerShell 5.1: 2> takes the error records, 2>$null drops them, 2>&1 makes them output; $? stays false', () => {
  const c = ctx();
  const error = ps('Get-Process nope', c).stderr;
  assert.match(error, /^Get-Process : Cannot find a process with the name "nope"\./);
  assert.deepEqual(ps('Get-Process nope 2> C:\\err.txt', c), { stdout: '', stderr: '', code: 1, slept: 0 });
  // The record's position is the command's, its redirections included.
  const at = (line: string) => error.replace('+ Get-Process nope\r\n+ ~~~~~~~~~~~~~~~~\r\n', `+ ${line}\r\n+ ${'~'.repeat(line.length)}\r\n`);
  assert.equal(ps('Get-Content C:\\err.txt', c).stdout, at('Get-Process nope 2> C:\\err.txt'));
  assert.deepEqual(ps('Get-Process nope 2>$null', c), { stdout: '', stderr: '', code: 1, slept: 0 });
  assert.deepEqual(ps('Get-Process nope 2>&1', c), { stdout: at('Get-Process nope 2>&1'), stderr: '', code: 1, slept: 0 });
  // Merged errors follow the success stream into its file, whichever order the operators come in.
  assert.equal(ps('Get-Process nope 2>&1 > C:\\both.txt', c).stdout, '');
  assert.equal(ps('Get-Content C:\\both.txt', c).stdout, at('Get-Process nope 2>&1 > C:\\both.txt'));
  assert.equal(ps('"x" *> C:\\all.txt', c).stdout, '');
  assert.deepEqual(bytes(c, 'C:\\all.txt'), utf16('x\r\n'));
});

test('PowerShell 5.1: a native program\'s stderr, redirected, becomes NativeCommandError records', () => {
  const c = ctx();
  const script = 'cmd /c "type C:\\nope.txt & type C:\\nope.txt" 2>&1';
  assert.deepEqual(ps(script, c), {
    stdout: `cmd : The system cannot find the file specified.\r\nAt line:1 char:1\r\n+ ${script}\r\n+ ${'~'.repeat(script.length)}\r\n` +
      '    + CategoryInfo          : NotSpecified: (The system cann...file specified.:String) [], RemoteException\r\n' +
      '    + FullyQualifiedErrorId : NativeCommandError\r\n \r\nThe system cannot find the file specified.\r\n',
    stderr: '', code: 1, slept: 0,
  });
  // Not redirected, the program writes its stderr itself.
  assert.equal(ps('cmd /c "type C:\\nope.txt"', c).stderr, 'The system cannot find the file specified.\r\n');
  assert.deepEqual(ps('cmd /c "type C:\\nope.txt" 2>$null', c), { stdout: '', stderr: '', code: 1, slept: 0 });
});

test('PowerShell 5.1: Write-Host is the information stream: > leaves it on the host, 6> and *> take it, > $null drops output only', () => {
  const c = ctx();
  assert.deepEqual(ps('Write-Host hi > C:\\o.txt', c), { stdout: 'hi\r\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(bytes(c, 'C:\\o.txt'), Buffer.from([0xff, 0xfe]));
  assert.deepEqual(ps('Write-Host hi 6> C:\\o.txt; Write-Host -NoNewline there *> C:\\p.txt', c), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(bytes(c, 'C:\\o.txt'), utf16('hi\r\n'));
  assert.deepEqual(bytes(c, 'C:\\p.txt'), utf16('there\r\n'));
  assert.deepEqual(ps('Get-Date > $null; Write-Output gone > $null; Write-Host kept > $null', c), { stdout: 'kept\r\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(ps('Write-Host merged 6>&1 > C:\\m.txt', c).stdout, '');
  assert.deepEqual(bytes(c, 'C:\\m.txt'), utf16('merged\r\n'));
});

test('PowerShell 5.1: a target in a missing directory is out-file\'s error record and the command does not run', () => {
  const c = ctx();
  assert.deepEqual(ps('Get-Date > C:\\nope\\x.txt', c), {
    stdout: '', code: 1, slept: 0,
    stderr: `out-file : Could not find a part of the path 'C:\\nope\\x.txt'.\r\nAt line:1 char:1\r\n+ Get-Date > C:\\nope\\x.txt\r\n+ ${'~'.repeat('Get-Date > C:\\nope\\x.txt'.length)}\r\n` +
      '    + CategoryInfo          : OpenError: (:) [Out-File], DirectoryNotFoundException\r\n' +
      '    + FullyQualifiedErrorId : FileOpenFailure,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\n',
  });
  // The command never ran (its host output would show), and the script goes on.
  const r = ps('Write-Host ran > C:\\nope\\x.txt; "after"', c);
  assert.equal(r.stdout, 'after\r\n');
  assert.match(r.stderr, /^out-file : Could not find a part of the path 'C:\\nope\\x\.txt'\.\r\nAt line:1 char:1\r\n\+ Write-Host ran > C:\\nope\\x\.txt; "after"\r\n\+ ~{30}\r\n {4}\+ CategoryInfo/);
  assert.equal(r.code, 0);
});

test('Out-File: the pipeline\'s objects in the chosen encoding, -Append, -NoClobber, and its errors at its own position', () => {
  const c = ctx();
  assert.equal(ps('"x" | Out-File C:\\u.txt; "y" | Out-File -FilePath C:\\a.txt -Encoding ascii; 1,2 | Out-File C:\\a.txt -Append -Encoding ascii', c).code, 0);
  assert.deepEqual(bytes(c, 'C:\\u.txt'), utf16('x\r\n'));
  assert.deepEqual(bytes(c, 'C:\\a.txt'), Buffer.from('y\r\n1\r\n2\r\n'));
  assert.equal(ps('"z" | Out-File C:\\b.txt -Encoding utf8', c).code, 0);
  assert.deepEqual(bytes(c, 'C:\\b.txt'), Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('z\r\n')]));
  assert.deepEqual(ps('"x" | Out-File C:\\nope\\x.txt', c), {
    stdout: '', code: 1, slept: 0,
    stderr: `Out-File : Could not find a part of the path 'C:\\nope\\x.txt'.\r\nAt line:1 char:7\r\n+ "x" | Out-File C:\\nope\\x.txt\r\n+       ${'~'.repeat('Out-File C:\\nope\\x.txt'.length)}\r\n` +
      '    + CategoryInfo          : OpenError: (:) [Out-File], DirectoryNotFoundException\r\n' +
      '    + FullyQualifiedErrorId : FileOpenFailure,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\n',
  });
  assert.deepEqual(ps('"x" | Out-File C:\\u.txt -NoClobber', c).stderr,
    `Out-File : File C:\\u.txt already exists and NoClobber was specified.\r\nAt line:1 char:7\r\n+ "x" | Out-File C:\\u.txt -NoClobber\r\n+       ${'~'.repeat('Out-File C:\\u.txt -NoClobber'.length)}\r\n` +
    '    + CategoryInfo          : ResourceExists: (C:\\u.txt:String) [Out-File], IOException\r\n' +
    '    + FullyQualifiedErrorId : NoClobber,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\n');
  assert.equal(ps('"x" | Out-File C:\\e.txt -Encoding latin1', c).stderr,
    'Out-File : Cannot validate argument on parameter \'Encoding\'. The argument "latin1" does not belong to the set ' +
    '"unknown,string,unicode,bigendianunicode,utf8,utf7,utf32,ascii,default,oem" specified by the ValidateSet attribute. ' +
    'Supply an argument that is in the set and then try the command again.\r\nAt line:1 char:35\r\n+ "x" | Out-File C:\\e.txt -Encoding latin1\r\n' +
    `+ ${' '.repeat(34)}~~~~~~\r\n` + '    + CategoryInfo          : InvalidData: (:) [Out-File], ParameterBindingValidationException\r\n' +
    '    + FullyQualifiedErrorId : ParameterArgumentValidationError,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\n');
});

test('PowerShell 7: > writes UTF-8 without a BOM', () => {
  const c = ctx();
  assert.deepEqual(pwsh('"x" > C:\\o.txt; "y" >> C:\\o.txt', c), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(bytes(c, 'C:\\o.txt'), Buffer.from('x\r\ny\r\n'));
});

test('Set-Content and New-Item into a missing directory: the provider\'s DirectoryNotFoundException', () => {
  assert.equal(ps('Set-Content -Path C:\\nope\\f.txt -Value x').stderr,
    "Set-Content : Could not find a part of the path 'C:\\nope\\f.txt'.\r\nAt line:1 char:1\r\n+ Set-Content -Path C:\\nope\\f.txt -Value x\r\n+ " + '~'.repeat('Set-Content -Path C:\\nope\\f.txt -Value x'.length) + '\r\n' +
    '    + CategoryInfo          : ObjectNotFound: (C:\\nope\\f.txt:String) [Set-Content], DirectoryNotFoundException\r\n' +
    '    + FullyQualifiedErrorId : GetContentWriterDirectoryNotFoundError,Microsoft.PowerShell.Commands.SetContentCommand\r\n \r\n');
  // A target over 40 characters is shortened in CategoryInfo as ErrorCategoryInfo.Ellipsize does.
  assert.match(ps('New-Item -Path C:\\nope\\a-rather-long-directory-name\\file.txt').stderr,
    /\r\n {4}\+ CategoryInfo {10}: WriteError: \(C:\\nope\\a-rathe\.\.\.y-name\\file\.txt:String\) \[New-Item\], DirectoryNotFoundException\r\n {4}\+ FullyQualifiedErrorId : NewItemIOError,Microsoft\.PowerShell\.Commands\.NewItemCommand\r\n/);
});

test('cmd: > and >> keep the text before the operator, spaces included; 2> and 2>&1 apply left to right', () => {
  const c = ctx();
  assert.deepEqual(cmd('echo x> C:\\f.txt', c), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.equal(c.fs.read('C:\\f.txt'), 'x\r\n');
  assert.equal(cmd('echo y > C:\\f.txt', c).code, 0);
  assert.equal(cmd('echo z>>C:\\f.txt', c).code, 0);
  assert.equal(c.fs.read('C:\\f.txt'), 'y \r\nz\r\n');
  assert.equal(cmd('echo "a>b"', c).stdout, '"a>b"\r\n');
  assert.deepEqual(cmd('type C:\\nope.txt 2>nul', c), { stdout: '', stderr: '', code: 1, slept: 0 });
  assert.deepEqual(cmd('type C:\\nope.txt 2>&1', c), { stdout: 'The system cannot find the file specified.\r\n', stderr: '', code: 1, slept: 0 });
  assert.deepEqual(cmd('type C:\\nope.txt > C:\\both.txt 2>&1', c), { stdout: '', stderr: '', code: 1, slept: 0 });
  assert.equal(c.fs.read('C:\\both.txt'), 'The system cannot find the file specified.\r\n');
  // 2>&1 before > duplicates the console: the error stays on it, on the output handle.
  assert.deepEqual(cmd('type C:\\nope.txt 2>&1 > C:\\out.txt', c), { stdout: 'The system cannot find the file specified.\r\n', stderr: '', code: 1, slept: 0 });
  assert.equal(c.fs.read('C:\\out.txt'), '');
  assert.deepEqual(cmd('type C:\\nope.txt 2> C:\\err.txt', c), { stdout: '', stderr: '', code: 1, slept: 0 });
  assert.equal(c.fs.read('C:\\err.txt'), 'The system cannot find the file specified.\r\n');
  // A nested cmd's output goes through the outer command's handles.
  assert.deepEqual(cmd('cmd /c "echo inner" > C:\\inner.txt', c), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.equal(c.fs.read('C:\\inner.txt'), 'inner\r\n');
});

test('PowerShell 5.1: < is reserved: a parse error, and nothing of the script runs', () => {
  assert.deepEqual(ps('Write-Output first; Get-Content < C:\\in.txt; "a<b" # c<d\n<# e<f #> cmd /c sort < C:\\x'), {
    stdout: '', code: 1, slept: 0,
    stderr: 'At line:1 char:33\r\n+ Write-Output first; Get-Content < C:\\in.txt; "a<b" # c<d\r\n+ ' + ' '.repeat(32) + '~\r\n' +
      "The '<' operator is reserved for future use.\r\n" +
      'At line:2 char:23\r\n+ <# e<f #> cmd /c sort < C:\\x\r\n+ ' + ' '.repeat(22) + '~\r\n' +
      "The '<' operator is reserved for future use.\r\n" +
      '    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\r\n' +
      '    + FullyQualifiedErrorId : RedirectionNotSupported\r\n \r\n',
  });
});

test('PowerShell 5.1: 3> takes warnings: the file holds the warning\'s message, the host no longer shows it', () => {
  const c = ctx();
  const shown = ps('Test-NetConnection nope.invalid', c).stdout;
  assert.match(shown, /^WARNING: Name resolution of nope\.invalid failed\r\n/);
  assert.deepEqual(ps('Test-NetConnection nope.invalid 3> C:\\w.txt', c).stdout, shown.replace('WARNING: Name resolution of nope.invalid failed\r\n', ''));
  assert.deepEqual(bytes(c, 'C:\\w.txt'), utf16('Name resolution of nope.invalid failed\r\n'));
  assert.equal(ps('Test-NetConnection nope.invalid 3>$null', c).stdout, shown.replace('WARNING: Name resolution of nope.invalid failed\r\n', ''));
});

/**
 * Output redirection through real `kubectl exec` into a Windows pod: what
 * PowerShell's `>` writes stays in the container and reads back with
 * Get-Content and cmd's `type`, in Windows PowerShell's UTF-16 (its size on
 * disk shows it); a `readOnly: true` volume mount refuses writes from cmd
 * and from PowerShell, each with its own error.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;

const POD = JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'winredir' },
  spec: {
    nodeName: 'win2022-1',
    volumes: [{ name: 'ro', emptyDir: {} }],
    containers: [{
      name: 'app', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', command: ['ping', '-t', 'localhost'],
      volumeMounts: [{ name: 'ro', mountPath: 'C:\\ro', readOnly: true }],
    }],
  },
});

const exec = (...command: string[]) => kubectl(cluster, ['exec', 'winredir', '--', ...command]);

before(async () => {
  cluster = await startCluster();
  const applied = await kubectl(cluster, ['apply', '-f', '-'], { input: POD });
  assert.equal(applied.code, 0, applied.stderr);
  for (let i = 0; i < 300; i++) {
    const r = await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/winredir');
    if (r.body?.status?.containerStatuses?.[0]?.state?.running) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail('the pod never ran');
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('kubectl exec: PowerShell > writes a file that Get-Content and type read back', async () => {
  assert.deepEqual(await exec('powershell', '-Command', 'Write-Output hello > C:\\out.txt; "again" >> C:\\out.txt'), { code: 0, stdout: '', stderr: '' });
  assert.deepEqual(await exec('powershell', '-Command', 'Get-Content C:\\out.txt'), { code: 0, stdout: 'hello\r\nagain\r\n', stderr: '' });
  assert.deepEqual(await exec('cmd', '/c', 'type C:\\out.txt'), { code: 0, stdout: 'hello\r\nagain\r\n', stderr: '' });
  // UTF-16 LE with its BOM: 2 + 2 × 14 bytes.
  assert.deepEqual(await exec('powershell', '-Command', '(Get-ChildItem C:\\out.txt).Length'), { code: 0, stdout: '30\r\n', stderr: '' });
});

test('kubectl exec: a read-only volume mount refuses cmd\'s and PowerShell\'s writes', async () => {
  assert.deepEqual(await exec('cmd', '/c', 'echo x> C:\\ro\\f.txt'), { code: 1, stdout: '', stderr: 'Access is denied.\r\ncommand terminated with exit code 1\n' });
  const ps = await exec('powershell', '-Command', '"x" > C:\\ro\\f.txt');
  assert.deepEqual(ps, {
    code: 1, stdout: '',
    stderr: "out-file : Access to the path 'C:\\ro\\f.txt' is denied.\r\nAt line:1 char:1\r\n+ \"x\" > C:\\ro\\f.txt\r\n+ ~~~~~~~~~~~~~~~~~\r\n" +
      '    + CategoryInfo          : OpenError: (:) [Out-File], UnauthorizedAccessException\r\n' +
      '    + FullyQualifiedErrorId : FileOpenFailure,Microsoft.PowerShell.Commands.OutFileCommand\r\n \r\ncommand terminated with exit code 1\n',
  });
  assert.deepEqual(await exec('powershell', '-Command', 'Test-Path C:\\ro\\f.txt'), { code: 0, stdout: 'False\r\n', stderr: '' });
});

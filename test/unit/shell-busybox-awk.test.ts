/**
 * busybox awk's one-line programs in the shell model: the Container Runtime
 * conformance script (`wc -l $f | awk {'print $1'}` counting restarts in an
 * emptyDir), field separators, patterns, and refusal of what it cannot run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, ContainerFS, interpret, type ShellContext } from '../../src/node/shell/index.js';
import { HostDir } from '../../src/node/shell/fs.js';

function ctx(fs = new ContainerFS('linux')): ShellContext {
  return { os: 'linux', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, hostname: 'pod-1', fs };
}
const sh = (script: string, c = ctx()) => collect(interpret(['sh', '-c', script], c), 10_000);

test('fields of a pipe: {print $1}, with the quotes inside the braces the conformance script uses', () => {
  assert.deepEqual(sh("printf 'a b\\n' > /tmp/f; wc -l /tmp/f | awk {'print $1'}"), { stdout: '1\n', stderr: '', code: 0, slept: 0 });
  assert.equal(sh("echo '  x   y  z ' | awk '{print $2, $NF, NF}'").stdout, 'y z 3\n');
  assert.equal(sh("printf 'root:x:0\\nbin:x:1\\n' | awk -F: '/^bin/ {print $1 \"=\" $3}'").stdout, 'bin=1\n');
  assert.equal(sh("printf 'a\\nb\\nc\\n' | awk 'NR==2'").stdout, 'b\n');
  assert.equal(sh("printf 'a\\nb\\n' | awk 'END {print NR}'").stdout, '2\n');
});

test('a program outside the subset is refused, not misread', () => {
  assert.deepEqual(sh("echo 1 | awk '{ s += $1 } END { print s }'"), { stdout: '', stderr: 'awk: cmd. line:1: Unexpected token\n', code: 1, slept: 0 });
});

test('the restart-count script: exit 1, then 0, then runs on, as the emptyDir keeps its file across restarts', () => {
  const dir = new HostDir();
  const script = `f=/restart-count/restartCount
count=$(echo 'hello' >> $f ; wc -l $f | awk {'print $1'})
if [ $count -eq 1 ]; then
\texit 1
fi
if [ $count -eq 2 ]; then
\texit 0
fi
while true; do sleep 1; done
`;
  const attempt = () => {
    const fs = new ContainerFS('linux');
    fs.mountHostDir('/restart-count', dir, false);
    return collect(interpret(['sh', '-c', script], ctx(fs)), 50).code;
  };
  assert.deepEqual([attempt(), attempt(), attempt()], [1, 0, 'forever']);
});

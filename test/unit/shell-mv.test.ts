/**
 * `mv` in the container's filesystem, as the StatefulSet conformance tests
 * use it on httpd (Debian, dash: coreutils): a rename that keeps the
 * content, `-v`'s line, and the errors in each flavour's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, interpret, ContainerFS } from '../../src/node/shell/index.js';

function fs(): ContainerFS {
  const f = new ContainerFS('linux');
  for (const d of ['/usr/local', '/usr/local/apache2', '/usr/local/apache2/htdocs']) f.mkdir(d);
  f.write('/usr/local/apache2/htdocs/index.html', 'page\n');
  return f;
}
const run = (f: ContainerFS, script: string, image: string) =>
  collect(interpret(['/bin/sh', '-c', script], { os: 'linux', env: {}, hostname: 'p', fs: f, image, posixShell: /busybox/.test(image) ? 'ash' : 'dash' }));

test('mv -v into a directory (coreutils): renamed line, the file moves with its content', () => {
  const f = fs();
  assert.deepEqual(run(f, 'mv -v /usr/local/apache2/htdocs/index.html /tmp/ || true', 'httpd:2.4.38'),
    { stdout: "renamed '/usr/local/apache2/htdocs/index.html' -> '/tmp/index.html'\n", stderr: '', code: 0, slept: 0 });
  assert.equal(f.stat('/usr/local/apache2/htdocs/index.html'), undefined);
  assert.equal(f.read('/tmp/index.html'), 'page\n');
  assert.deepEqual(run(f, 'mv -v /tmp/index.html /usr/local/apache2/htdocs/ || true', 'httpd:2.4.38').stdout,
    "renamed '/tmp/index.html' -> '/usr/local/apache2/htdocs/index.html'\n");
  assert.equal(f.read('/usr/local/apache2/htdocs/index.html'), 'page\n');
});

test('mv of a missing file: coreutils\' and busybox\'s cannot stat', () => {
  assert.deepEqual(run(fs(), 'mv /nope /tmp/', 'httpd:2.4.38'),
    { stdout: '', stderr: "mv: cannot stat '/nope': No such file or directory\n", code: 1, slept: 0 });
  assert.deepEqual(run(fs(), 'mv /nope /tmp/', 'busybox:1.36'),
    { stdout: '', stderr: "mv: can't stat '/nope': No such file or directory\n", code: 1, slept: 0 });
});

test('mv renames a file to a new name and a directory with what is below it', () => {
  const f = fs();
  assert.equal(run(f, 'mv /usr/local/apache2/htdocs /srv', 'busybox:1.36').code, 0);
  assert.equal(f.read('/srv/index.html'), 'page\n');
  assert.equal(f.stat('/usr/local/apache2/htdocs'), undefined);
  assert.equal(run(f, 'mv /srv/index.html /srv/old.html', 'busybox:1.36').code, 0);
  assert.deepEqual(f.list('/srv'), ['old.html']);
});

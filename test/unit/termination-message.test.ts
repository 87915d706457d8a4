/** A terminated container's message: the termination-log file, else (FallbackToLogsOnError, failed) its log's tail as written. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tailLines, terminationMessage } from '../../src/node/kubelet/termination-message.js';

const base = { policy: 'File', exitCode: 0, reason: 'Completed', file: undefined, output: '' };

test('File policy: the file, whatever the exit; no file no message', () => {
  assert.equal(terminationMessage({ ...base, file: 'DONE' }), 'DONE');
  assert.equal(terminationMessage({ ...base, exitCode: 1, reason: 'Error', output: 'DONE' }), '');
  assert.equal(terminationMessage({ ...base, file: 'x'.repeat(5000) }), 'x'.repeat(4096));
});

test('FallbackToLogsOnError: the log as written on a failure with no file, the file when written, nothing on success', () => {
  const fallback = { ...base, policy: 'FallbackToLogsOnError', exitCode: 1, reason: 'Error' };
  assert.equal(terminationMessage({ ...fallback, output: 'DONE' }), 'DONE');
  assert.equal(terminationMessage({ ...fallback, file: '', output: 'a\nb\n' }), 'a\nb\n');
  assert.equal(terminationMessage({ ...fallback, file: 'from file', output: 'DONE' }), 'from file');
  assert.equal(terminationMessage({ ...fallback, exitCode: 0, reason: 'Completed', output: 'DONE' }), '');
  assert.equal(terminationMessage({ ...fallback, reason: 'ContainerCannotRun', output: 'DONE' }), '');
  const many = Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join('');
  assert.equal(terminationMessage({ ...fallback, output: many }), Array.from({ length: 80 }, (_, i) => `line ${i + 20}\n`).join(''));
  assert.equal(terminationMessage({ ...fallback, output: 'y'.repeat(3000) }), 'y'.repeat(2048));
});

test('tailLines: a final line without a newline counts', () => {
  assert.equal(tailLines('a\nb\nc', 2), 'b\nc');
  assert.equal(tailLines('a\nb\nc\n', 2), 'b\nc\n');
  assert.equal(tailLines('a\n', 5), 'a\n');
});

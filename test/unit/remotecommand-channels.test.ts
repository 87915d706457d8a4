import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseChannelProtocol, decodeChannelMessage, encodeChannelMessage } from '../../src/api/streaming/channels.js';
import { exitCodeStatus, successStatus } from '../../src/apimachinery/remotecommand.js';
import { parseResizeMessages, parseStreamOptions, statusPayload } from '../../src/api/streaming/remotecommand.js';

test('the client\'s order of preference picks the channel protocol; no offer means the original binary one', () => {
  assert.equal(chooseChannelProtocol(['v5.channel.k8s.io'])?.name, 'v5.channel.k8s.io');
  assert.equal(chooseChannelProtocol(['v4.base64.channel.k8s.io', 'v4.channel.k8s.io'])?.name, 'v4.base64.channel.k8s.io');
  assert.equal(chooseChannelProtocol(['SPDY/3.1+portforward.k8s.io']), undefined);
  assert.deepEqual(chooseChannelProtocol([]), { name: '', base64: false, statusAsJSON: false, closeSignal: false });
});

test('binary framing: channel byte first; v5 adds CLOSE on channel 255', () => {
  const v5 = chooseChannelProtocol(['v5.channel.k8s.io'])!;
  const v4 = chooseChannelProtocol(['v4.channel.k8s.io'])!;
  assert.deepEqual(encodeChannelMessage(v5, 1, Buffer.from('hi')), Buffer.from([1, 0x68, 0x69]));
  // What kubectl 1.33 sends for `echo input-data | kubectl exec -i`: data on 0, then CLOSE of 0.
  assert.deepEqual(decodeChannelMessage(v5, Buffer.from('00696e7075742d646174610a', 'hex')), { kind: 'data', channel: 0, data: Buffer.from('input-data\n') });
  assert.deepEqual(decodeChannelMessage(v5, Buffer.from([0xff, 0x00])), { kind: 'close', channel: 0 });
  // Before v5, 255 is just a channel number.
  assert.deepEqual(decodeChannelMessage(v4, Buffer.from([0xff, 0x00])), { kind: 'data', channel: 255, data: Buffer.from([0]) });
  assert.equal(decodeChannelMessage(v5, Buffer.alloc(0)), undefined);
});

test('base64 framing: a text message starting with the channel digit', () => {
  const b64 = chooseChannelProtocol(['v4.base64.channel.k8s.io'])!;
  assert.equal(encodeChannelMessage(b64, 1, Buffer.from('hi\n')), '1aGkK');
  assert.deepEqual(decodeChannelMessage(b64, Buffer.from('0aGkK')), { kind: 'data', channel: 0, data: Buffer.from('hi\n') });
});

test('the error channel: a JSON Status from v4 on, the bare failure message before', () => {
  const failure = exitCodeStatus(['sh', '-c', 'exit 3'], 3);
  assert.equal(statusPayload(failure, true)!.toString(),
    '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}');
  assert.equal(statusPayload(successStatus(), true)!.toString(), '{"metadata":{},"status":"Success"}');
  assert.equal(statusPayload(failure, false)!.toString(), 'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3');
  assert.equal(statusPayload(successStatus(), false), undefined);
});

test('stream options: a TTY drops stderr; at least one stream is required', () => {
  assert.deepEqual(parseStreamOptions(new URLSearchParams('stdin=true&stdout=true&stderr=true&tty=true')), { stdin: true, stdout: true, stderr: false, tty: true });
  assert.deepEqual(parseStreamOptions(new URLSearchParams('command=ls')), { error: 'you must specify at least 1 of stdin, stdout, stderr' });
});

test('resize messages are TerminalSize JSON, one per line', () => {
  assert.deepEqual(parseResizeMessages('{"Width":80,"Height":24}\n{"Width":100,"Height":30}\n'), [{ width: 80, height: 24 }, { width: 100, height: 30 }]);
});

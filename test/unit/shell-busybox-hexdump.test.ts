/**
 * `hexdump -C` in the shell model, over a configMap's binaryData mounted
 * byte for byte (the ConfigMap binary data conformance test's check).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, interpret, type ShellContext } from '../../src/node/shell/index.js';
import { canonicalHexdump } from '../../src/node/shell/busybox-hexdump.js';
import { containerFS } from '../../src/node/runtime/volumes.js';
import type { KObject } from '../../src/apimachinery/object.js';

test('canonical format: two groups of eight, ASCII column, * for repeated lines, the length last', () => {
  assert.equal(canonicalHexdump(Buffer.from([0xde, 0xca, 0xfe, 0xba, 0xd0, 0xfe, 0xff])),
    '00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n');
  assert.equal(canonicalHexdump(Buffer.from('0123456789abcdefXYZ')),
    '00000000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  |0123456789abcdef|\n'
    + '00000010  58 59 5a                                          |XYZ|\n00000013\n');
  assert.equal(canonicalHexdump(Buffer.alloc(48)),
    '00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00000030\n');
  assert.equal(canonicalHexdump(Buffer.alloc(0)), '');
});

test('a configMap binaryData key is mounted as its bytes, which hexdump -C shows', () => {
  const pod: KObject = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/configmap-volume' }] }],
    volumes: [{ name: 'v', configMap: { name: 'cm' } }] } };
  const cm = { metadata: { name: 'cm', namespace: 'ns' }, data: { 'data-1': 'value-1' }, binaryData: { 'dump.bin': Buffer.from([0xde, 0xca, 0xfe, 0xba, 0xd0, 0xfe, 0xff]).toString('base64') } } as KObject;
  const fs = containerFS(pod, { name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/configmap-volume' }] }, 'linux', {
    sources: { configMap: () => cm, secret: () => undefined, services: () => [] },
    net: { nodeName: 'n', hostIPs: [], podIPs: [], allocatable: { cpu: '1', memory: '1Gi' }, os: 'linux' },
  });
  const ctx: ShellContext = { os: 'linux', env: { PATH: '/bin' }, hostname: 'p', fs };
  assert.deepEqual(collect(interpret(['hexdump', '-C', '/etc/configmap-volume/dump.bin'], ctx)),
    { stdout: '00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n', stderr: '', code: 0, slept: 0 });
  assert.equal(collect(interpret(['hexdump', '-C', '/etc/configmap-volume/nope'], ctx)).stderr, 'hexdump: /etc/configmap-volume/nope: No such file or directory\n');
});

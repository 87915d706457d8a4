import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mirrorSlices } from '../../src/controllers/endpointslice/mirroring.js';
import { goIPString } from '../../src/network/ip-string.js';
import { parseIPSloppy } from '../../src/validation/common.js';

const endpoints = (subsets: any[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ext', namespace: 'default', uid: 'u1' }, subsets });

test('mirrorSlices: one slice per port set and family; a subset over the limit is cut and counted', () => {
  const addrs = (n: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.0.${i >> 8}.${i & 255}` }));
  const c = mirrorSlices(endpoints([{ addresses: addrs(4), ports: [{ port: 80, protocol: 'TCP' }] }, { addresses: addrs(1), ports: [{ port: 443, protocol: 'TCP' }] }]), [], 3);
  assert.deepEqual([c.create.length, c.update.length, c.delete.length, c.skipped, c.invalid], [2, 0, 0, 1, 0]);
  assert.deepEqual(c.create.map((s) => [s.metadata.generateName, s.ports![0].port, s.endpoints!.length]), [['ext-', 80, 3], ['ext-', 443, 1]]);
});

test('mirrorSlices: an unchanged slice is left alone; a new port set recycles the old slice by name', () => {
  const ep = endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
  const [slice] = mirrorSlices(ep, []).create;
  assert.ok(slice);
  const existing = { ...slice, metadata: { ...slice.metadata, name: 'ext-abcde', generateName: undefined } };
  assert.deepEqual(mirrorSlices(ep, [existing]), { create: [], update: [], delete: [], invalid: 0, skipped: 0 });
  const moved = mirrorSlices(endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080, protocol: 'TCP' }] }]), [existing]);
  assert.deepEqual([moved.create.length, moved.delete.length, moved.update.map((s) => [s.metadata.name, s.ports![0].port])], [0, 0, [['ext-abcde', 8080]]]);
});

test('goIPString prints addresses as Go does', () => {
  const s = (ip: string) => goIPString(parseIPSloppy(ip)!);
  assert.deepEqual(['2001:0db8:0000:0000:0001:0000:0000:0001', '0:0:0:0:0:0:0:1', 'fe80:0:0:1:0:0:0:0', '::ffff:10.0.0.1', '010.001.0.9', '1:0:2:0:3:0:4:0'].map(s),
    ['2001:db8::1:0:0:1', '::1', 'fe80:0:0:1::', '10.0.0.1', '10.1.0.9', '1:0:2:0:3:0:4:0']);
});

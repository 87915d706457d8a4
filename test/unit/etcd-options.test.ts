import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdClientOptions, etcdPrefix } from '../../src/storage/etcd-options.js';

test('the --etcd-* flags as the etcd client takes them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-etcd-options-'));
  try {
    for (const f of ['ca.crt', 'client.crt', 'client.key']) writeFileSync(join(dir, f), `${f} bytes`);
    assert.throws(() => etcdClientOptions({ servers: [] }), { message: '--etcd-servers must be specified' });
    assert.deepEqual(etcdClientOptions({ servers: ['http://127.0.0.1:2379', 'http://127.0.0.1:22379'] }).hosts,
      ['http://127.0.0.1:2379', 'http://127.0.0.1:22379']);
    assert.equal(etcdClientOptions({ servers: ['http://127.0.0.1:2379'] }).credentials, undefined);
    assert.deepEqual(etcdClientOptions({ servers: ['https://e:2379'], caFile: join(dir, 'ca.crt'), certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key') }).credentials, {
      rootCertificate: Buffer.from('ca.crt bytes'), certChain: Buffer.from('client.crt bytes'), privateKey: Buffer.from('client.key bytes'),
    });
    assert.throws(() => etcdClientOptions({ servers: ['https://e:2379'], caFile: join(dir, 'ca.crt'), certFile: join(dir, 'client.crt') }),
      { message: '--etcd-certfile and --etcd-keyfile must be given together' });
    assert.throws(() => etcdClientOptions({ servers: ['https://e:2379'], certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key') }),
      { message: '--etcd-cafile must be given with --etcd-certfile' });
    assert.throws(() => etcdClientOptions({ servers: ['https://e:2379'], caFile: join(dir, 'missing.crt') }), { code: 'ENOENT' });
    assert.equal(etcdPrefix({ servers: [] }), '/registry');
    assert.equal(etcdPrefix({ servers: [], prefix: '/other' }), '/other');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

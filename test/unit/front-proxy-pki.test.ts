/**
 * kubeadm's front-proxy PKI beside the cluster's: a CA of its own (CN=front-proxy-ca) and the
 * client certificate the aggregator presents (CN=front-proxy-client), made at first start and
 * kept afterwards, also for a data directory made before the front proxy existed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki } from '../../src/pki/certificates.js';

test('the front-proxy CA and client certificate are made once, apart from the cluster CA', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-pki-'));
  try {
    const pki = await ensurePki(dir, '10.96.0.1');
    const ca = new X509Certificate(pki.frontProxyCA.cert);
    const client = new X509Certificate(pki.frontProxyClient.cert);
    assert.equal(ca.subject, 'CN=front-proxy-ca');
    assert.equal(client.subject, 'CN=front-proxy-client');
    assert.equal(client.issuer, 'CN=front-proxy-ca');
    assert.ok(client.verify(ca.publicKey));
    assert.ok(!client.verify(new X509Certificate(pki.ca.cert).publicKey));
    assert.deepEqual(await ensurePki(dir, '10.96.0.1'), pki);
    // A data directory of an earlier version: the cluster's certificates stay, the front proxy's are added.
    for (const f of ['front-proxy-ca.crt', 'front-proxy-ca.key', 'front-proxy-client.crt', 'front-proxy-client.key']) unlinkSync(join(dir, 'pki', f));
    const again = await ensurePki(dir, '10.96.0.1');
    assert.equal(again.ca.cert, pki.ca.cert);
    assert.equal(again.admin.cert, pki.admin.cert);
    assert.equal(new X509Certificate(again.frontProxyClient.cert).subject, 'CN=front-proxy-client');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * crypto/tls LoadX509KeyPair as a Go server calls it on the files its flags name (agnhost's
 * webhooks, the sample API server): the certificate chain it will serve, or the error it returns.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';

const PEM_CERTS = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g;

export function loadKeyPair(read: (path: string) => string | undefined, certFile: string, keyFile: string): { chain: string } | { error: string } {
  const cert = read(certFile);
  if (cert === undefined) return { error: `open ${certFile}: no such file or directory` };
  const key = read(keyFile);
  if (key === undefined) return { error: `open ${keyFile}: no such file or directory` };
  const blocks = cert.match(PEM_CERTS) ?? [];
  if (!blocks.length) return { error: 'tls: failed to find any PEM data in certificate input' };
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    return { error: 'tls: failed to find any PEM data in key input' };
  }
  const leaf = new X509Certificate(blocks[0]!);
  const pub = (k: Parameters<typeof createPublicKey>[0]) => createPublicKey(k).export({ type: 'spki', format: 'der' });
  if (!pub(privateKey).equals(leaf.publicKey.export({ type: 'spki', format: 'der' }))) return { error: 'tls: private key does not match public key' };
  return { chain: blocks.map((b) => (b.endsWith('\n') ? b : `${b}\n`)).join('') };
}


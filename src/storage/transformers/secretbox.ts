/**
 * k8s.io/apiserver/pkg/storage/value/encrypt/secretbox: NaCl's secretbox
 * (XSalsa20 and Poly1305), a random 24-byte nonce then the sealed text, as
 * golang.org/x/crypto/nacl/secretbox lays it out.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import type { TransformedValue, ValueTransformer } from './value-transformer.js';

const NONCE_SIZE = 24;

export class SecretboxTransformer implements ValueTransformer {
  constructor(private readonly key: Buffer) {}

  fromStorage(data: Buffer): TransformedValue {
    if (data.length < nacl.secretbox.overheadLength + NONCE_SIZE) throw new Error('the stored data was shorter than the required size');
    const opened = nacl.secretbox.open(data.subarray(NONCE_SIZE), data.subarray(0, NONCE_SIZE), this.key);
    // Upstream's text for any failure to open.
    if (!opened) throw new Error('output array was not large enough for encryption');
    return { value: Buffer.from(opened), stale: false };
  }

  toStorage(data: Buffer): Buffer {
    const nonce = randomBytes(NONCE_SIZE);
    return Buffer.concat([nonce, nacl.secretbox(data, nonce, this.key)]);
  }
}

/**
 * k8s.io/apiserver/pkg/storage/value/encrypt/aes, with the same layouts so
 * values read and write as kube-apiserver's: CBC is a random IV then the
 * PKCS#7-padded ciphertext; GCM a random 12-byte nonce then the sealed text and
 * its 16-byte tag, the storage key as additional data.
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import type { TransformedValue, ValueTransformer } from './value-transformer.js';

const BLOCK_SIZE = 16;
const GCM_NONCE_SIZE = 12;
const GCM_TAG_SIZE = 16;

function aesName(key: Buffer, mode: 'cbc' | 'gcm'): string {
  return `aes-${key.length * 8}-${mode}`;
}

export class AesCbcTransformer implements ValueTransformer {
  constructor(private readonly key: Buffer) {}

  fromStorage(data: Buffer): TransformedValue {
    if (data.length < BLOCK_SIZE) throw new Error('the stored data was shorter than the required size');
    const body = data.subarray(BLOCK_SIZE);
    if (body.length % BLOCK_SIZE !== 0) throw new Error('the stored data is not a multiple of the block size');
    const decipher = createDecipheriv(aesName(this.key, 'cbc'), this.key, data.subarray(0, BLOCK_SIZE));
    decipher.setAutoPadding(false);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    return { value: unpad(plain), stale: false };
  }

  toStorage(data: Buffer): Buffer {
    const iv = randomBytes(BLOCK_SIZE);
    const cipher = createCipheriv(aesName(this.key, 'cbc'), this.key, iv);
    return Buffer.concat([iv, cipher.update(data), cipher.final()]);
  }
}

/** PKCS#7, checked as upstream's cbc transformer checks it (its error texts). */
function unpad(plain: Buffer): Buffer {
  const c = plain.length ? plain[plain.length - 1]! : 0;
  if (plain.length === 0 || c === 0) throw new Error('invalid PKCS7 data (empty or not padded)');
  if (c > plain.length || c > BLOCK_SIZE) throw new Error('invalid padding on input');
  for (let i = plain.length - c; i < plain.length; i++) {
    if (plain[i] !== c) throw new Error('invalid padding on input');
  }
  return plain.subarray(0, plain.length - c);
}

export class AesGcmTransformer implements ValueTransformer {
  constructor(private readonly key: Buffer) {}

  fromStorage(data: Buffer, authenticatedData: Buffer): TransformedValue {
    if (data.length < GCM_NONCE_SIZE) throw new Error('the stored data was shorter than the required size');
    const sealed = data.subarray(GCM_NONCE_SIZE);
    if (sealed.length < GCM_TAG_SIZE) throw new Error('cipher: message authentication failed');
    const decipher = createDecipheriv(aesName(this.key, 'gcm') as CipherGCMTypes, this.key, data.subarray(0, GCM_NONCE_SIZE));
    decipher.setAAD(authenticatedData);
    decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_SIZE));
    try {
      return { value: Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG_SIZE)), decipher.final()]), stale: false };
    } catch {
      // Go's crypto/cipher wording for a wrong key or tampered text.
      throw new Error('cipher: message authentication failed');
    }
  }

  toStorage(data: Buffer, authenticatedData: Buffer): Buffer {
    const nonce = randomBytes(GCM_NONCE_SIZE);
    const cipher = createCipheriv(aesName(this.key, 'gcm') as CipherGCMTypes, this.key, nonce);
    cipher.setAAD(authenticatedData);
    const body = Buffer.concat([cipher.update(data), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]);
  }
}

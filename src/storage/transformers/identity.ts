import type { TransformedValue, ValueTransformer } from './value-transformer.js';

/** identity.NewEncryptCheckTransformer: the value as is, but it refuses what another provider encrypted. */
export class IdentityTransformer implements ValueTransformer {
  fromStorage(data: Buffer): TransformedValue {
    if (data.subarray(0, ENCRYPTED_PREFIX.length).equals(ENCRYPTED_PREFIX)) throw new Error('identity transformer tried to read encrypted data');
    return { value: data, stale: false };
  }

  toStorage(data: Buffer): Buffer {
    return data;
  }
}

/** Reserved for encrypted values on disk. */
const ENCRYPTED_PREFIX = Buffer.from('k8s:enc:');

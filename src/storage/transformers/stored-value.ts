/**
 * The storage contract carries values as strings. A plain value is the
 * registry's JSON text; an encrypted one (`k8s:enc:...`) is bytes, carried one
 * char per byte (latin1). A backend that stores bytes (etcd) converts with
 * these to write exactly the bytes kube-apiserver would.
 */
const ENCRYPTED_PREFIX = 'k8s:enc:';

export function storedValueBytes(value: string): Buffer {
  return Buffer.from(value, value.startsWith(ENCRYPTED_PREFIX) ? 'latin1' : 'utf8');
}

export function storedValueFromBytes(bytes: Buffer): string {
  const encrypted = bytes.subarray(0, ENCRYPTED_PREFIX.length).toString('latin1') === ENCRYPTED_PREFIX;
  return bytes.toString(encrypted ? 'latin1' : 'utf8');
}

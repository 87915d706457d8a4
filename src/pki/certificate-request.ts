/**
 * A CertificateSigningRequest's `spec.request` as the API server checks it
 * (pkg/apis/certificates ParseCSR, then x509.CertificateRequest.CheckSignature):
 * one PEM block of type CERTIFICATE REQUEST holding a PKCS#10 request whose
 * signature its own public key verifies. Synchronous, for strategy validation.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { DER_BIT_STRING, DER_OID, DER_SEQUENCE, DerError, derChildren, derElement } from './der.js';

/** One encoding/pem block: its type, DER bytes, and whether it carried headers. */
export interface PemBlock { type: string; der: Buffer; headers: boolean }

/** Every PEM block of `data` in order, as repeated encoding/pem Decode calls find them (text between blocks skipped). */
export function pemBlocks(data: Buffer | string): PemBlock[] {
  const text = typeof data === 'string' ? data : data.toString('latin1');
  const out: PemBlock[] = [];
  const begin = /-----BEGIN ([^\r\n-]*)-----\r?\n/g;
  for (let m = begin.exec(text); m; m = begin.exec(text)) {
    const type = m[1]!;
    const endMarker = `-----END ${type}-----`;
    const endAt = text.indexOf(endMarker, begin.lastIndex);
    if (endAt === -1) break;
    const body = text.slice(begin.lastIndex, endAt);
    // A header block ("Proc-Type: ...") ends at the first empty line.
    const headers = /^[^\s:]+:/.test(body);
    const b64 = (headers ? body.slice(body.search(/\r?\n\r?\n/) + 1) : body).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) break;
    out.push({ type, der: Buffer.from(b64, 'base64'), headers });
    begin.lastIndex = endAt + endMarker.length;
  }
  return out;
}

/** encoding/pem's first block, or undefined when there is none. */
export const pemDecode = (data: Buffer): PemBlock | undefined => pemBlocks(data)[0];

/** The signature algorithms Go verifies, by their OID's DER contents: the digest node:crypto takes and the error Go gives. */
const SIGNATURE_ALGORITHMS: Record<string, { digest: string | null; failure: string }> = {
  '2a864886f70d010105': { digest: 'sha1', failure: 'crypto/rsa: verification error' },
  '2a864886f70d01010b': { digest: 'sha256', failure: 'crypto/rsa: verification error' },
  '2a864886f70d01010c': { digest: 'sha384', failure: 'crypto/rsa: verification error' },
  '2a864886f70d01010d': { digest: 'sha512', failure: 'crypto/rsa: verification error' },
  '2a8648ce3d040302': { digest: 'sha256', failure: 'x509: ECDSA verification failure' },
  '2a8648ce3d040303': { digest: 'sha384', failure: 'x509: ECDSA verification failure' },
  '2a8648ce3d040304': { digest: 'sha512', failure: 'x509: ECDSA verification failure' },
  '2b6570': { digest: null, failure: 'x509: Ed25519 verification failure' },
};

export const CSR_PEM_TYPE_ERROR = 'PEM block type must be CERTIFICATE REQUEST';

/**
 * Why `request` (the PEM bytes) is not a valid signed request, or undefined
 * when it is. Errors of the DER structure are encoding/asn1's where it has a
 * fitting one.
 */
export function certificateRequestError(request: Buffer): string | undefined {
  const block = pemDecode(request);
  if (!block || block.type !== 'CERTIFICATE REQUEST') return CSR_PEM_TYPE_ERROR;
  const der = block.der;
  try {
    const outer = derElement(der, 0);
    if (outer.tag !== DER_SEQUENCE) return 'asn1: structure error: tags don\'t match';
    if (outer.end !== der.length) return 'x509: trailing data';
    const [info, algorithm, signature] = derChildren(der, outer);
    if (!info || !algorithm || !signature || info.tag !== DER_SEQUENCE || algorithm.tag !== DER_SEQUENCE || signature.tag !== DER_BIT_STRING) {
      return 'asn1: structure error: tags don\'t match';
    }
    const [, , spki] = derChildren(der, info);
    if (!spki || spki.tag !== DER_SEQUENCE) return 'asn1: structure error: tags don\'t match';
    const [oid] = derChildren(der, algorithm);
    if (!oid || oid.tag !== DER_OID) return 'asn1: structure error: tags don\'t match';
    let key: KeyObject;
    try {
      key = createPublicKey({ key: der.subarray(spki.start, spki.end), format: 'der', type: 'spki' });
    } catch {
      return 'x509: unsupported public key type';
    }
    const alg = SIGNATURE_ALGORITHMS[der.subarray(oid.contentStart, oid.end).toString('hex')];
    if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
    // A BIT STRING's first content octet counts the unused bits of the last one: none in a signature.
    const sig = der.subarray(signature.contentStart + 1, signature.end);
    const ok = verify(alg.digest, der.subarray(info.start, info.end), { key, dsaEncoding: 'der' }, sig);
    return ok ? undefined : alg.failure;
  } catch (e) {
    if (e instanceof DerError) return e.message;
    // node:crypto refuses a key that does not fit the algorithm (an RSA key with ECDSA): Go's verify fails too.
    return 'x509: cannot verify signature: algorithm unimplemented';
  }
}

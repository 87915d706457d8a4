/**
 * What the certificate controllers and admission read from a PKCS#10
 * request beyond its signature (x509.CertificateRequest's Subject and SANs),
 * through the X.509 library, loaded on first use: most clusters never see a
 * CertificateSigningRequest.
 */
import { pemDecode } from './certificate-request.js';

export interface RequestSubject {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  emailAddresses: string[];
  ipAddresses: string[];
  uris: string[];
}

/** The subjectAltName extension's OID. */
export const SUBJECT_ALT_NAME_OID = '2.5.29.17';

/** The subject and subject alternative names of a PEM request that passed validation. */
export async function requestSubject(request: Buffer): Promise<RequestSubject> {
  const x509 = await import('./x509.js');
  const block = pemDecode(request);
  if (!block) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const csr = new x509.lib.Pkcs10CertificateRequest(new Uint8Array(block.der));
  const san = csr.getExtension(SUBJECT_ALT_NAME_OID);
  const names = san ? new x509.lib.SubjectAlternativeNameExtension(san.rawData).names.items : [];
  const of = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  return {
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
    dnsNames: of('dns'), emailAddresses: of('email'), ipAddresses: of('ip'), uris: of('url'),
  };
}

/**
 * The certificates rules as pure functions: the request's signature check,
 * signer names, CSR update rules, which requests are a kubelet's, the
 * signer's durations and certificates, and the cleaner's deadlines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto, X509Certificate } from 'node:crypto';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { certificateRequestError, CSR_PEM_TYPE_ERROR, pemDecode } from '../../src/pki/certificate-request.js';
import { CertificateAuthority, certificateRequest, createCA } from '../../src/pki/issue.js';
import { lib as x509 } from '../../src/pki/x509.js';
import { requestSubject, type RequestSubject } from '../../src/pki/request-subject.js';
import { certificateSigningRequestValidation, validateSignerName } from '../../src/validation/certificatesigningrequest.js';
import { kubeletClientRequestError, kubeletServingRequestError } from '../../src/controllers/certificates/kubelet-requests.js';
import { certificateDuration, CLUSTER_SIGNING_DURATION_MS } from '../../src/controllers/certificates/signer.js';
import { isExpired } from '../../src/controllers/certificates/cleaner.js';
import type { CSR } from '../../src/controllers/certificates/certificate-controller.js';

const messages = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

/** The PEM with one byte of its DER changed (`at` counts from the end: the signature). */
function tampered(pem: string, at: number): Buffer {
  const der = pemDecode(Buffer.from(pem))!.der;
  const i = der.length - at;
  der.writeUInt8(der.readUInt8(i) ^ 0x01, i);
  return Buffer.from(`-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`);
}

async function rsaRequest(): Promise<string> {
  const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as unknown as CryptoKeyPair;
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=rsa-user', keys, signingAlgorithm: alg })).toString('pem');
}

test('a request is one CERTIFICATE REQUEST block whose signature its key verifies (ECDSA and RSA)', async () => {
  const { request } = await certificateRequest([{ CN: ['u'] }]);
  assert.equal(certificateRequestError(Buffer.from(request)), undefined);
  assert.equal(certificateRequestError(tampered(request, 3)), 'x509: ECDSA verification failure');
  const rsa = await rsaRequest();
  assert.equal(certificateRequestError(Buffer.from(rsa)), undefined);
  assert.equal(certificateRequestError(tampered(rsa, 10)), 'crypto/rsa: verification error');
  assert.equal(certificateRequestError(Buffer.from(request.replace(/CERTIFICATE REQUEST/g, 'CERTIFICATE'))), CSR_PEM_TYPE_ERROR);
  assert.equal(certificateRequestError(Buffer.alloc(0)), CSR_PEM_TYPE_ERROR);
  const der = pemDecode(Buffer.from(request))!.der;
  const trailing = Buffer.concat([der, Buffer.from([0, 0])]).toString('base64');
  assert.equal(certificateRequestError(Buffer.from(`-----BEGIN CERTIFICATE REQUEST-----\n${trailing}\n-----END CERTIFICATE REQUEST-----\n`)), 'x509: trailing data');
});

test('signer names: domain/path, the domain of two or more DNS labels', () => {
  assert.deepEqual(messages(validateSignerName('spec.signerName', 'kubernetes.io/kube-apiserver-client')), []);
  assert.deepEqual(messages(validateSignerName('spec.signerName', '')), ['spec.signerName: Required value']);
  assert.deepEqual(messages(validateSignerName('spec.signerName', 'a/b/c')),
    ["spec.signerName: Invalid value: \"a/b/c\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
  assert.deepEqual(messages(validateSignerName('spec.signerName', 'example/x')),
    ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']);
  assert.deepEqual(messages(validateSignerName('spec.signerName', 'Example.com/x_y')), [
    'spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    'spec.signerName: Invalid value: "x_y": validating label "x_y": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
  ]);
});

test('updates: only the approval subresource adds Approved/Denied, only status sets the certificate, once; nothing removes them', async () => {
  const { request } = await certificateRequest([{ CN: ['u'] }]);
  const base = {
    metadata: { name: 'c', resourceVersion: '1' },
    spec: { request: Buffer.from(request).toString('base64'), signerName: 'example.com/s', usages: ['client auth'] },
    status: {},
  };
  const approved = { ...base, status: { conditions: [{ type: 'Approved', status: 'True' }] } };
  const { validateUpdate } = certificateSigningRequestValidation;
  assert.deepEqual(messages(validateUpdate(approved, base)), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
  assert.deepEqual(messages(validateUpdate(approved, base, 'approval')), []);
  assert.deepEqual(messages(validateUpdate(base, approved, 'approval')), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
  const both = { ...base, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'False' }] } };
  assert.deepEqual(messages(validateUpdate(both, approved, 'approval')), [
    'status.conditions[1].status: Unsupported value: "False": supported values: "True"',
    'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
  ]);
  const cert = (await createCA()).cert;
  const issued = { ...approved, status: { ...approved.status, certificate: Buffer.from(cert).toString('base64') } };
  assert.deepEqual(messages(validateUpdate(issued, approved)), ['status.certificate: Forbidden: updates may not set certificate content']);
  assert.deepEqual(messages(validateUpdate(issued, approved, 'status')), []);
  const other = { ...approved, status: { ...approved.status, certificate: Buffer.from(cert.replace(/CERTIFICATE/g, 'PRIVATE KEY')).toString('base64') } };
  assert.deepEqual(messages(validateUpdate(other, approved, 'status')),
    ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']);
  assert.deepEqual(messages(validateUpdate(approved, issued, 'status')), ['status.certificate: Forbidden: updates may not modify existing certificate content']);
});

const subject = (s: Partial<RequestSubject>): RequestSubject => ({
  commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], emailAddresses: [], ipAddresses: [], uris: [], ...s,
});

test('a kubelet\'s requests: client (no SANs) and serving (a DNS or IP SAN), with the usages of an RSA or another key', () => {
  assert.equal(kubeletClientRequestError(subject({}), ['digital signature', 'client auth']), undefined);
  assert.equal(kubeletClientRequestError(subject({}), ['client auth', 'key encipherment', 'digital signature']), undefined);
  assert.equal(kubeletClientRequestError(subject({ organizations: ['system:nodes', 'x'] }), ['client auth']), 'subject organization is not system:nodes');
  assert.equal(kubeletClientRequestError(subject({ dnsNames: ['n1'] }), ['client auth']), 'DNS subjectAltNames are not allowed');
  assert.equal(kubeletClientRequestError(subject({ commonName: 'n1' }), ['client auth']), 'subject common name does not begin with system:node:');
  assert.equal(kubeletClientRequestError(subject({}), ['client auth']), 'usages did not match [client auth digital signature key encipherment]');
  assert.equal(kubeletServingRequestError(subject({}), ['digital signature', 'server auth']), 'DNS or IP subjectAltName is required');
  assert.equal(kubeletServingRequestError(subject({ ipAddresses: ['10.0.0.1'] }), ['digital signature', 'server auth']), undefined);
  assert.equal(kubeletServingRequestError(subject({ ipAddresses: ['10.0.0.1'] }), ['server auth']),
    'usages did not match [digital signature key encipherment server auth]');
});

test('the signer: durations within [10m, a year]; the request\'s subject, key and SANs, the usages asked for, no more', async () => {
  assert.equal(certificateDuration(undefined), CLUSTER_SIGNING_DURATION_MS);
  assert.equal(certificateDuration(600), 600_000);
  assert.equal(certificateDuration(60), 600_000);
  assert.equal(certificateDuration(3 * 365 * 86400), CLUSTER_SIGNING_DURATION_MS);
  const ca = await createCA();
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']) as unknown as CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'O=system:nodes, CN=system:node:n1', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'n1' }, { type: 'ip', value: '10.0.0.1' }])],
  });
  const request = Buffer.from(csr.toString('pem'));
  assert.deepEqual(await requestSubject(request), {
    commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'], emailAddresses: [], ipAddresses: ['10.0.0.1'], uris: [],
  });
  const now = new Date('2026-11-28T00:00:00Z');
  const authority = await CertificateAuthority.load(ca);
  const cert = new X509Certificate(await authority.signRequest(request, ['digital signature', 'server auth'], 3600_000, now));
  assert.equal(cert.subject, 'O=system:nodes\nCN=system:node:n1');
  assert.equal(cert.subjectAltName, 'DNS:n1, IP Address:10.0.0.1');
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.equal(cert.ca, false);
  // Short-lived (under 8h): backdated at the start only.
  assert.deepEqual([cert.validFrom, cert.validTo], ['Nov 27 23:55:00 2026 GMT', 'Nov 28 01:00:00 2026 GMT']);
  assert.ok(cert.checkIssued(new X509Certificate(ca.cert)));
  await assert.rejects(authority.signRequest(request, ['client auth', 'frobnicate'], 3600_000, now), /^Error: unrecognized usage values: \["frobnicate"\]$/);
});

test('the cleaner: issued or denied an hour ago, pending a day, or expired', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  const csr = (status: CSR['status'], created = '2026-11-28T11:00:00Z') =>
    ({ metadata: { name: 'c', creationTimestamp: created }, spec: { request: '', signerName: 'x/y' }, status }) as CSR;
  assert.equal(isExpired(csr({}), now), false);
  assert.equal(isExpired(csr({}, '2026-11-27T11:00:00Z'), now), true);
  assert.equal(isExpired(csr({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2026-11-28T10:59:00Z' }] }), now), true);
  assert.equal(isExpired(csr({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2026-11-28T11:30:00Z' }] }), now), false);
  // Approved an hour ago but not issued: the signer may still be at work.
  assert.equal(isExpired(csr({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2026-11-28T10:00:00Z' }] }), now), false);
});

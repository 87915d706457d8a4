/**
 * Which requests are a kubelet's (pkg/apis/certificates/v1 helpers, v1.32):
 * ValidateKubeletClientCSR and ValidateKubeletServingCSR, shared by the
 * approver and the signer. Each answers why a request is not one, or
 * undefined when it is.
 */
import type { RequestSubject } from '../../pki/request-subject.js';


const sameSet = (a: readonly string[], b: readonly string[]) => new Set(a).size === b.length && b.every((u) => a.includes(u));
/** The usages a kubelet asks for, with or without key encipherment (which only RSA keys use). */
const usagesMatch = (usages: readonly string[], required: string[]) =>
  sameSet(usages, required) || sameSet(usages, required.filter((u) => u !== 'key encipherment'));
const isNodeOrganization = (s: RequestSubject) => s.organizations.length === 1 && s.organizations[0] === 'system:nodes';
const COMMON_NAME_ERROR = 'subject common name does not begin with system:node:';
const ORGANIZATION_ERROR = 'subject organization is not system:nodes';

const CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];

export function kubeletClientRequestError(s: RequestSubject, usages: readonly string[]): string | undefined {
  if (!isNodeOrganization(s)) return ORGANIZATION_ERROR;
  if (s.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (s.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (s.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (s.uris.length) return 'URI subjectAltNames are not allowed';
  if (!s.commonName.startsWith('system:node:')) return COMMON_NAME_ERROR;
  if (!usagesMatch(usages, CLIENT_USAGES)) return `usages did not match [${CLIENT_USAGES.join(' ')}]`;
  return undefined;
}

export function kubeletServingRequestError(s: RequestSubject, usages: readonly string[]): string | undefined {
  if (!isNodeOrganization(s)) return ORGANIZATION_ERROR;
  if (!s.dnsNames.length && !s.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (s.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (s.uris.length) return 'URI subjectAltNames are not allowed';
  if (!usagesMatch(usages, SERVING_USAGES)) return `usages did not match [${SERVING_USAGES.join(' ')}]`;
  if (!s.commonName.startsWith('system:node:')) return COMMON_NAME_ERROR;
  return undefined;
}

/**
 * The certificates admission plugins (plugin/pkg/admission/certificates, v1.32):
 * CertificateApproval (approving or denying through the approval
 * subresource needs `approve` on the request's signer), CertificateSigning
 * (setting status.certificate needs `sign` on it), and
 * CertificateSubjectRestriction (no system:masters in a request for the
 * kube-apiserver-client signer). Writes the server makes itself pass.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { resourceAttributes, type Authorizer, type UserInfo } from '../authorization/types.js';
import { KUBE_APISERVER_CLIENT_SIGNER } from '../component-helpers/certificate-signers.js';
import { requestBytes } from '../validation/certificatesigningrequest.js';
import { forbidden, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

const GROUP = 'certificates.k8s.io';

const isCSR = (a: AdmissionAttributes) => a.def.group === GROUP && a.def.resource === 'certificatesigningrequests';

/**
 * IsAuthorizedForSignerName: `verb` on signers/<signerName>, or else on
 * signers/<domain>/* (a role may grant a whole domain's signers).
 */
export function isAuthorizedForSignerName(authz: Authorizer, user: UserInfo, verb: string, signerName: string): boolean {
  const attrs = (name: string) => resourceAttributes(user, { verb, apiGroup: GROUP, apiVersion: '*', resource: 'signers', name });
  if (authz.authorize(attrs(signerName)).decision === 'Allow') return true;
  return authz.authorize(attrs(`${signerName.split('/')[0]}/*`)).decision === 'Allow';
}

const csrOf = (obj: unknown) => obj as Partial<CertificateSigningRequest> | undefined;
const signerOf = (obj: unknown) => csrOf(obj)?.spec?.signerName ?? '';

export const certificateApproval: AdmissionPlugin = {
  name: 'CertificateApproval',
  validate(a) {
    const authz = a.lookup.authorization?.authorizer;
    if (!isCSR(a) || a.subresource !== 'approval' || !authz || !a.ctx.user) return;
    const signer = signerOf(a.object);
    if (!isAuthorizedForSignerName(authz, a.ctx.user, 'approve', signer)) {
      throw forbidden(a, `user not permitted to approve requests with signerName ${goQuote(signer)}`);
    }
  },
};

export const certificateSigning: AdmissionPlugin = {
  name: 'CertificateSigning',
  validate(a) {
    const authz = a.lookup.authorization?.authorizer;
    if (!isCSR(a) || a.subresource !== 'status' || !authz || !a.ctx.user) return;
    if ((csrOf(a.object)?.status?.certificate ?? '') === (csrOf(a.oldObject)?.status?.certificate ?? '')) return;
    const signer = signerOf(a.oldObject);
    if (!isAuthorizedForSignerName(authz, a.ctx.user, 'sign', signer)) {
      throw forbidden(a, `user not permitted to sign requests with signerName ${goQuote(signer)}`);
    }
  },
};

export const certificateSubjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  async validate(a) {
    if (!isCSR(a) || a.subresource || a.operation !== 'CREATE' || signerOf(a.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
    const { requestSubject } = await import('../pki/request-subject.js');
    const subject = await requestSubject(requestBytes(csrOf(a.object)));
    if (subject.organizations.includes('system:masters')) {
      throw forbidden(a, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    }
  },
};

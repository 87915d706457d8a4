/**
 * The csrapproving controller (pkg/controller/certificates/approver
 * sarapprove.go, v1.32): a kubelet's client certificate request is approved
 * when a SubjectAccessReview says its requester may `create`
 * certificatesigningrequests/selfnodeclient (a node renewing its own) or
 * /nodeclient (anyone bootstrapping a node): kubeadm binds the latter to
 * bootstrap tokens, the former to system:nodes. Other requests wait for
 * someone to approve or deny them.
 */
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import { certificatesigningrequests, subjectaccessreviews } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import { requestSubject, type RequestSubject } from '../../pki/request-subject.js';
import type { ControllerContext } from '../runtime/controller-context.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER } from '../../component-helpers/certificate-signers.js';
import { APPROVED, requestBytes } from '../../validation/certificatesigningrequest.js';
import { approvalOf, CertificateController, type CSR } from './certificate-controller.js';
import { kubeletClientRequestError } from './kubelet-requests.js';

const COMPONENT = 'csrapproving';

interface Recognizer {
  recognize(csr: CSR, subject: RequestSubject): boolean;
  subresource: string;
  successMessage: string;
}

const isNodeClientCert = (csr: CSR, s: RequestSubject) =>
  csr.spec.signerName === KUBE_APISERVER_CLIENT_KUBELET_SIGNER && kubeletClientRequestError(s, csr.spec.usages ?? []) === undefined;

const RECOGNIZERS: Recognizer[] = [
  {
    recognize: (csr, s) => csr.spec.username === s.commonName && isNodeClientCert(csr, s),
    subresource: 'selfnodeclient', successMessage: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    recognize: isNodeClientCert,
    subresource: 'nodeclient', successMessage: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
];

export class CSRApprovingController {
  private readonly loop: CertificateController;
  private readonly csrs: ResourceClient<CSR>;
  private readonly reviews: ResourceClient<SubjectAccessReview>;

  constructor(ctx: ControllerContext) {
    this.csrs = ctx.client.resource(certificatesigningrequests) as ResourceClient<CSR>;
    this.reviews = ctx.client.resource(subjectaccessreviews);
    this.loop = new CertificateController(ctx, COMPONENT, (csr) => this.handle(csr));
  }

  start(): Promise<void> { return this.loop.start(); }
  stop(): void { this.loop.stop(); }

  async handle(csr: CSR): Promise<void> {
    if (csr.status?.certificate) return;
    const { approved, denied } = approvalOf(csr);
    if (approved || denied) return;
    const subject = await requestSubject(requestBytes(csr));
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, subject)) continue;
      tried.push(r.subresource);
      if (!await this.authorize(csr, r.subresource)) continue;
      await this.csrs.update('', csr.metadata.name, (current) => {
        // Approved or denied meanwhile: nothing to add.
        if (approvalOf(current).approved || approvalOf(current).denied) return current;
        current.status = { ...current.status, conditions: [...current.status?.conditions ?? [], {
          type: APPROVED, status: 'True', reason: 'AutoApproved', message: r.successMessage,
        }] };
        return current;
      }, { subresource: 'approval' });
      return;
    }
    if (tried.length) throw new Error(`recognized csr ${JSON.stringify(csr.metadata.name)} as [${tried.join(' ')}] but subject access review was not approved`);
  }

  /** authorize: a SubjectAccessReview for the requester, as the request recorded it. */
  private async authorize(csr: CSR, subresource: string): Promise<boolean> {
    const review = await this.reviews.create('', {
      spec: {
        user: csr.spec.username, uid: csr.spec.uid, groups: csr.spec.groups, extra: csr.spec.extra,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource, version: '*' },
      },
    });
    return review.status?.allowed === true;
  }
}

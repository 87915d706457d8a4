/**
 * The csrsigning controller (pkg/controller/certificates/signer, v1.32) with
 * kubeadm's configuration, the cluster CA signing for the three built-in
 * signers: kube-apiserver-client (client auth, optionally digital signature
 * and key encipherment), kube-apiserver-client-kubelet and kubelet-serving
 * (a node's own requests). An approved request for one of them gets its
 * certificate in status.certificate, valid for its expirationSeconds
 * within the cluster signing duration (a year), or a Failed condition
 * saying why the signer refuses it. Requests for other signers are left to
 * their own signers.
 */
import { certificatesigningrequests } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { CertificateAuthority } from '../../pki/issue.js';
import type { PemPair } from '../../pki/certificates.js';
import { requestSubject, type RequestSubject } from '../../pki/request-subject.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { ControllerContext } from '../runtime/controller-context.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from '../../component-helpers/certificate-signers.js';
import { FAILED, requestBytes } from '../../validation/certificatesigningrequest.js';
import { approvalOf, CertificateController, type CSR } from './certificate-controller.js';
import { kubeletClientRequestError, kubeletServingRequestError } from './kubelet-requests.js';

const COMPONENT = 'csrsigning';

/** kube-controller-manager's --cluster-signing-duration default (8760h). */
export const CLUSTER_SIGNING_DURATION_MS = 8760 * 3600_000;
const MIN_DURATION_MS = 10 * 60_000;

/** validAPIServerClientUsages */
function apiServerClientUsagesError(_: RequestSubject, usages: readonly string[]): string | undefined {
  for (const u of usages) if (!['digital signature', 'key encipherment', 'client auth'].includes(u)) return `invalid usage for client certificate: ${u}`;
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** Each built-in signer's isRequestForSignerFn: why it will not sign a request, or undefined. */
const SIGNERS: Record<string, (s: RequestSubject, usages: readonly string[]) => string | undefined> = {
  [KUBELET_SERVING_SIGNER]: kubeletServingRequestError,
  [KUBE_APISERVER_CLIENT_KUBELET_SIGNER]: kubeletClientRequestError,
  [KUBE_APISERVER_CLIENT_SIGNER]: apiServerClientUsagesError,
};

/** signer.duration: the requested duration within [10m, the cluster signing duration]. */
export function certificateDuration(expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return CLUSTER_SIGNING_DURATION_MS;
  return Math.min(CLUSTER_SIGNING_DURATION_MS, Math.max(MIN_DURATION_MS, expirationSeconds * 1000));
}

export class CSRSigningController {
  private readonly loop: CertificateController;
  private readonly csrs: ResourceClient<CSR>;
  /** The CA read once, at the first request to sign (the X.509 library is loaded then, not at start-up). */
  private authority?: Promise<CertificateAuthority>;

  constructor(private readonly ctx: ControllerContext, private readonly ca: PemPair) {
    this.csrs = ctx.client.resource(certificatesigningrequests) as ResourceClient<CSR>;
    this.loop = new CertificateController(ctx, COMPONENT, (csr) => this.handle(csr));
  }

  start(): Promise<void> { return this.loop.start(); }
  stop(): void { this.loop.stop(); }

  async handle(csr: CSR): Promise<void> {
    const { approved, denied } = approvalOf(csr);
    const failed = (csr.status?.conditions ?? []).some((c) => c.type === FAILED && c.status === 'True');
    if (!approved || denied || failed || csr.status?.certificate) return;
    const refuses = SIGNERS[csr.spec.signerName];
    if (!refuses) return;
    const now = new Date(this.ctx.clock.now());
    const request = requestBytes(csr);
    const why = refuses(await requestSubject(request), csr.spec.usages ?? []);
    if (why !== undefined) {
      csr.status = { ...csr.status, conditions: [...csr.status?.conditions ?? [], {
        type: FAILED, status: 'True', reason: 'SignerValidationFailure', message: why, lastUpdateTime: rfc3339(now),
      }] };
    } else {
      this.authority ??= import('../../pki/issue.js').then(({ CertificateAuthority }) => CertificateAuthority.load(this.ca));
      const pem = await (await this.authority).signRequest(request, csr.spec.usages ?? [], certificateDuration(csr.spec.expirationSeconds), now);
      csr.status = { ...csr.status, certificate: Buffer.from(pem).toString('base64') };
    }
    // UpdateStatus of the object as read: a request changed meanwhile is a conflict, handled again.
    await this.csrs.updateStatus('', csr.metadata.name, () => csr);
  }
}

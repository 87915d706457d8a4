/**
 * Per-node client certificates for `winkube agent`, the way a kubelet's TLS
 * bootstrap gets its own: with the agent's credentials (the bootstrap
 * credentials) it creates a CertificateSigningRequest for
 * `system:node:<name>` in `system:nodes`, signer
 * kubernetes.io/kube-apiserver-client-kubelet, usages digital signature and
 * client auth (an ECDSA key); the server's csrapproving controller approves
 * it when the requester may create certificatesigningrequests/nodeclient
 * (kubeadm grants that to bootstrap tokens; cluster admins have it), and
 * csrsigning issues the certificate. Each node's kubelet then talks to the
 * API server as itself, under the Node authorizer and NodeRestriction.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { certificatesigningrequests } from '../../client/resources.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER } from '../../component-helpers/certificate-signers.js';
import { DENIED, FAILED } from '../../validation/certificatesigningrequest.js';
import type { ClientCredentials } from '../../client/https.js';
import type { Client, ResourceClient, Watch } from '../../client/types.js';

/** After how long the wait for approval is worth telling. */
const TELL_AFTER_MS = 5000;

/** The request's certificate once issued; an error once denied or failed. */
function outcome(csr: CertificateSigningRequest): Buffer | Error | undefined {
  if (csr.status?.certificate) return Buffer.from(csr.status.certificate, 'base64');
  const refused = (csr.status?.conditions ?? []).find((c) => c.type === DENIED || c.type === FAILED);
  if (refused) return new Error(`certificate signing request ${csr.metadata?.name} was ${refused.type.toLowerCase()}: ${refused.reason ?? ''} ${refused.message ?? ''}`.trim());
  return undefined;
}

/** A client certificate for the node, through the certificates API; resolves once it is issued. */
export async function requestNodeCredentials(client: Client, nodeName: string, log: (m: string) => void, signal?: AbortSignal): Promise<ClientCredentials> {
  const { certificateRequest } = await import('../../pki/issue.js');
  const { request, key } = await certificateRequest([{ O: ['system:nodes'] }, { CN: [`system:node:${nodeName}`] }]);
  const csrs = client.resource(certificatesigningrequests);
  const created = await csrs.create('', {
    metadata: { generateName: 'node-csr-' },
    spec: {
      request: Buffer.from(request).toString('base64'), signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
      usages: ['digital signature', 'client auth'],
    },
  });
  const name = created.metadata?.name ?? '';
  const tell = setTimeout(() => log(`node ${nodeName}: waiting for certificate signing request ${name} to be approved (kubectl certificate approve ${name})`),
    TELL_AFTER_MS);
  try {
    return await waitForCertificate(csrs, created, key, signal);
  } finally {
    clearTimeout(tell);
  }
}

/**
 * csr.WaitForCertificate: a watch on the one request (field selector
 * metadata.name) from its creation, rather than polling. When the server
 * ends the watch (a timeout, or 410 once the version is compacted), the
 * request is read again and watched from there.
 */
async function waitForCertificate(csrs: ResourceClient<CertificateSigningRequest>, created: CertificateSigningRequest, key: string,
  signal?: AbortSignal): Promise<ClientCredentials> {
  const name = created.metadata?.name ?? '';
  let resourceVersion = created.metadata?.resourceVersion ?? '';
  for (;;) {
    signal?.throwIfAborted();
    let settled: Buffer | Error | undefined;
    let watch: Watch | undefined;
    const seen = (_type: string, csr: CertificateSigningRequest) => {
      resourceVersion = csr.metadata?.resourceVersion ?? resourceVersion;
      settled ??= outcome(csr);
      if (settled) watch?.stop();
    };
    watch = await csrs.watch('', { fieldSelector: `metadata.name=${name}`, resourceVersion, ...(signal ? { signal } : {}) }, seen);
    // The certificate may have come with the watch's first events, before `watch` was set.
    if (settled) watch.stop();
    await watch.done.catch(() => {});
    if (!settled) {
      const csr = await csrs.get('', name, signal ? { signal } : {});
      resourceVersion = csr.metadata?.resourceVersion ?? '';
      settled = outcome(csr);
    }
    if (settled instanceof Error) throw settled;
    if (settled) return { cert: settled, key: Buffer.from(key) };
  }
}

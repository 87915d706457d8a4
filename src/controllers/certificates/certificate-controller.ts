/**
 * pkg/controller/certificates certificate_controller.go: the loop the
 * approver, the signers and (here) the cleaner share. Every added or
 * changed CertificateSigningRequest is queued by name and handled from the
 * informer's cache; a failed handling is retried with back-off.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { certificatesigningrequests } from '../../client/resources.js';
import { APPROVED, DENIED, FAILED } from '../../validation/certificatesigningrequest.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';

export type CSR = CertificateSigningRequest & { metadata: { name: string } };

export class CertificateController {
  private readonly queue: RateLimitingQueue;
  private informer?: SharedInformer;

  constructor(private readonly ctx: ControllerContext, private readonly name: string, private readonly handle: (csr: CSR) => Promise<void>) {
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.informer = await this.ctx.informers.inform(certificatesigningrequests, (type, csr) => {
      if (type !== 'DELETED') this.queue.add(csr.metadata.name ?? '');
    });
    this.queue.run(5, (name) => this.sync(name), (name, e) => this.ctx.log(`${this.name}: ${name}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async sync(name: string): Promise<void> {
    const csr = this.informer?.cache.get('', name);
    // The handlers change what they are given before writing it back: never the cache's object.
    if (csr) await this.handle(structuredClone(csr) as unknown as CSR);
  }
}

/** getCertApprovalCondition: whether the request carries an Approved, a Denied and a Failed condition. */
export function approvalOf(csr: CertificateSigningRequest): { approved: boolean; denied: boolean; failed: boolean } {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  return { approved: types.has(APPROVED), denied: types.has(DENIED), failed: types.has(FAILED) };
}

/**
 * The csrcleaner controller (pkg/controller/certificates/cleaner, v1.32):
 * once an hour, deletes the requests that are done with: approved, denied
 * or failed more than an hour ago, pending for a day, or whose issued
 * certificate has expired.
 */
import { X509Certificate } from 'node:crypto';
import { isNotFound } from '../../apimachinery/errors.js';
import { certificatesigningrequests } from '../../client/resources.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import type { ResourceClient } from '../../client/types.js';
import type { ControllerContext } from '../runtime/controller-context.js';
import { APPROVED, DENIED, FAILED } from '../../validation/certificatesigningrequest.js';
import { approvalOf, type CSR } from './certificate-controller.js';

const COMPONENT = 'csrcleaner';
const POLLING_INTERVAL_MS = 3600_000;
const APPROVED_EXPIRATION_MS = 3600_000;
const DENIED_EXPIRATION_MS = 3600_000;
const PENDING_EXPIRATION_MS = 24 * 3600_000;

/** Whether the request has a condition of the type last updated longer ago than `ms`. */
function conditionOlderThan(csr: CSR, type: string, ms: number, now: number): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && Date.parse(c.lastUpdateTime ?? '') + ms < now);
}

/** isIssuedExpired: the certificate's NotAfter has passed. */
function issuedExpired(csr: CSR, now: number): boolean {
  const pem = csr.status?.certificate;
  if (!pem) return false;
  try {
    return Date.parse(new X509Certificate(Buffer.from(pem, 'base64')).validTo) < now;
  } catch {
    return false;
  }
}

/** handle's tests: issued, denied, failed or pending past its deadline, or its certificate expired. */
export function isExpired(csr: CSR, now: number): boolean {
  const { approved, denied, failed } = approvalOf(csr);
  const pending = !approved && !denied && !failed;
  return (!!csr.status?.certificate && conditionOlderThan(csr, APPROVED, APPROVED_EXPIRATION_MS, now)) ||
    conditionOlderThan(csr, DENIED, DENIED_EXPIRATION_MS, now) ||
    conditionOlderThan(csr, FAILED, DENIED_EXPIRATION_MS, now) ||
    (pending && Date.parse(csr.metadata.creationTimestamp ?? '') + PENDING_EXPIRATION_MS < now) ||
    issuedExpired(csr, now);
}

export class CSRCleanerController {
  private readonly csrs: ResourceClient<CSR>;
  private informer?: SharedInformer;
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly ctx: ControllerContext) {
    this.csrs = ctx.client.resource(certificatesigningrequests) as ResourceClient<CSR>;
  }

  async start(): Promise<void> {
    this.informer = await this.ctx.informers.inform(certificatesigningrequests, () => {});
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), POLLING_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** worker: every request in the cache, tested and deleted when expired. */
  async sweep(): Promise<void> {
    const now = this.ctx.clock.now();
    for (const obj of this.informer?.cache.list('') ?? []) {
      const csr = obj as unknown as CSR;
      if (!isExpired(csr, now)) continue;
      try {
        await this.csrs.delete('', csr.metadata.name);
      } catch (e) {
        if (!isNotFound(e)) this.ctx.log(`${COMPONENT}: ${csr.metadata.name}: ${(e as Error).message}`);
      }
    }
  }
}

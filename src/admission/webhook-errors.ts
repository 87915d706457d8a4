/**
 * The errors of the webhook plugins, with upstream's texts (apiserver
 * pkg/admission/plugin/webhook/errors/statuserror.go ToStatusErr and NewDryRunUnsupportedErr;
 * pkg/util/webhook/error.go ErrCallingWebhook, which fails a request closed as an InternalError).
 */
import type { Status } from 'kubernetes-types/meta/v1.js';
import { errors, StatusError } from '../apimachinery/errors.js';

/** A failure to talk to a webhook (not a webhook's refusal): failurePolicy decides what it does. */
export class WebhookCallError extends Error {
  constructor(readonly webhookName: string, readonly reason: string) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
  }
}

/** ToStatusErr: the webhook's Status, its message prefixed with who denied the request. */
export function deniedError(webhookName: string, result: Status | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const r: Status = { ...(result ?? {}) };
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const status = !r.status || r.status === 'Success' ? 'Failure' : r.status;
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  // The Status as the webhook gave it (metav1.Status field order), with the fields ToStatusErr sets.
  const out: Status & { code: number } = { kind: 'Status', apiVersion: 'v1', metadata: r.metadata ?? {}, status, message, code };
  if (r.reason) out.reason = r.reason;
  if (r.details) out.details = r.details;
  const { code: c, ...rest } = out;
  return new StatusError({ ...rest, code: c });
}

/** NewDryRunUnsupportedErr */
export function dryRunUnsupported(webhookName: string): StatusError {
  return errors.badRequest(`admission webhook "${webhookName}" does not support dry run`);
}

/** A call failure with failurePolicy Fail: apierrors.NewInternalError(err). */
export function failedClosed(e: WebhookCallError): StatusError {
  return errors.internal(e.message);
}

/**
 * The authorization filter (k8s.io/apiserver/pkg/endpoints/filters/authorization.go
 * WithAuthorization): after authentication, impersonation and priority and
 * fairness, every request is asked of the authorizer; a denied one gets the
 * Forbidden Status, one whose evaluation failed the InternalError text.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { goQuote } from '../apimachinery/go-quote.js';
import { forbiddenError } from '../authorization/forbidden.js';
import { SYSTEM_MASTERS } from '../authorization/authorizers.js';
import type { Attributes, Authorizer, UserInfo } from '../authorization/types.js';
import { requestAttributes } from './request-attributes.js';
import type { AuditEventRecorder } from '../registry/request-audit.js';

/** The annotations the authorization filter adds to the request's audit event. */
export function annotateDecision(audit: AuditEventRecorder | undefined, allowed: boolean, reason: string): void {
  audit?.annotate('authorization.k8s.io/decision', allowed ? 'allow' : 'forbid');
  audit?.annotate('authorization.k8s.io/reason', reason);
}
import { writeStatus, writeText } from './respond.js';

/** responsewriters.InternalError: plain text, HTML-significant characters escaped. */
export function internalErrorText(req: IncomingMessage, message: string): string {
  return `Internal Server Error: ${goQuote(req.url ?? '')}: ${message}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') + '\n';
}

/**
 * Whether the request may go on; when not, the answer is written. `path` is
 * the percent-decoded URL path.
 */
export function authorizeRequest(authorizer: Authorizer, req: IncomingMessage, res: ServerResponse, user: UserInfo,
  path: string, q: URLSearchParams, audit?: AuditEventRecorder): boolean {
  // The privileged group is allowed whatever is asked (its authorizer gives no reason): its attributes need not be worked out.
  if (user.groups.includes(SYSTEM_MASTERS)) { annotateDecision(audit, true, ''); return true; }
  const attrs: Attributes = requestAttributes(user, req.method ?? 'GET', path, q);
  const d = authorizer.authorize(attrs);
  // An authorizer may allow despite evaluation errors (RBAC with a binding to a missing role).
  if (d.decision === 'Allow') { annotateDecision(audit, true, d.reason); return true; }
  if (d.error) {
    // WithAuthorization: an evaluation that failed is only "internal error", with no decision.
    audit?.annotate('authorization.k8s.io/reason', 'internal error');
    writeText(res, 500, internalErrorText(req, d.error));
    return false;
  }
  annotateDecision(audit, false, d.reason);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  writeStatus(res, forbiddenError(attrs, d.reason).status);
  return false;
}

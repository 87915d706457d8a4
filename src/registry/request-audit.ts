/**
 * What the audit log needs from each request, wherever the request enters:
 * the HTTP layer for clients, the in-process client for the components (each
 * as its own user, as their requests over HTTPS would be audited). The audit
 * pipeline itself lives in api/audit; this is its face to those callers.
 */
import type { Attributes } from '../authorization/types.js';

export interface AuditedRequest {
  /** The request line's URI, path and query. */
  requestURI: string;
  userAgent: string;
  sourceIPs: string[];
  received: Date;
  /** The client's Audit-ID header; a new UUID without one. */
  auditID?: string;
}

/** One request's audit event as it goes through its stages. */
export interface AuditEventRecorder {
  /** Whether responseObject keeps whole answers (level RequestResponse), not only a Status. */
  readonly logsResponseObject: boolean;
  readonly auditID: string;
  /** An annotation such as authorization.k8s.io/decision. */
  annotate(key: string, value: string): void;
  /** Admission's AddAnnotation: a key already set keeps its first value. */
  annotateOnce(key: string, value: string): void;
  /** The user the request was made as (Impersonate-User). */
  impersonated(user: Attributes['user']): void;
  /** The decoded request body (logged at Request level and above); fills objectRef's name, uid and resourceVersion. */
  requestObject(obj: unknown): void;
  /** The answer: a Status fills responseStatus; any object is logged at RequestResponse. */
  responseObject(obj: unknown): void;
  /** The response's status code was written (ResponseStarted for long-running requests). */
  responseStarted(code: number): void;
  /** The response is complete: the ResponseComplete event. */
  complete(): void;
}

export interface RequestAudit {
  /** The event of a request, or undefined when the policy logs it at level None. */
  begin(attrs: Attributes, request: AuditedRequest, longRunning: boolean): AuditEventRecorder | undefined;
}

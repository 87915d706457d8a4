/**
 * The admission.k8s.io/v1 AdmissionReview as this webhook reads and answers
 * it. Requests are untyped JSON from the wire, checked field by field before
 * use; the answer carries what the API server verifies (apiVersion, kind, the
 * request's uid echoed back) and nothing else it would refuse in a validating
 * answer (a patch).
 */
import { isObject } from '../meta/json.js';
import type { Obj } from '../lint/types.js';

export const REVIEW_API_VERSION = 'admission.k8s.io/v1';

export interface AdmissionRequest {
  uid: string;
  /** The kind the object was sent as (request.kind.kind), `Pod`, `Deployment`, ... */
  kind: string;
  operation: string;
  /** Set for subresource requests (pods/status, pods/ephemeralcontainers, ...). */
  subResource?: string;
  object?: Obj;
  oldObject?: Obj;
}

/** What a handler decides; `deny` is a refusal with the message shown to the user. */
export interface Decision {
  allowed: boolean;
  /** Refusals only: the Status code and reason (403 Forbidden for a policy refusal). */
  code?: number;
  reason?: string;
  message?: string;
  warnings?: string[];
  /** A JSON patch (mutating answers only). */
  patch?: readonly JSONPatchOp[];
}

export interface JSONPatchOp { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown }

export class MalformedReview extends Error {}

const objectOrAbsent = (v: unknown, field: string): Obj | undefined => {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new MalformedReview(`request.${field} is not an object`);
  return v;
};

/** The request of an AdmissionReview body, or MalformedReview saying what is wrong with it. */
export function parseAdmissionReview(body: string): AdmissionRequest {
  if (body.trim() === '') throw new MalformedReview('request body is empty');
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (e) {
    throw new MalformedReview(`couldn't decode the body as an AdmissionReview: ${(e as Error).message}`);
  }
  if (!isObject(review)) throw new MalformedReview("couldn't decode the body as an AdmissionReview: not a JSON object");
  if (review.apiVersion !== REVIEW_API_VERSION || review.kind !== 'AdmissionReview') {
    throw new MalformedReview(`expected an ${REVIEW_API_VERSION} AdmissionReview, got apiVersion ${JSON.stringify(review.apiVersion ?? '')}, kind ${JSON.stringify(review.kind ?? '')}`);
  }
  const r: unknown = review.request;
  if (!isObject(r)) throw new MalformedReview('the AdmissionReview has no request');
  if (typeof r.uid !== 'string' || r.uid === '') throw new MalformedReview('request.uid is missing');
  if (typeof r.operation !== 'string' || r.operation === '') throw new MalformedReview('request.operation is missing');
  const kind = isObject(r.kind) && typeof r.kind.kind === 'string' ? r.kind.kind : '';
  const object = objectOrAbsent(r.object, 'object');
  const oldObject = objectOrAbsent(r.oldObject, 'oldObject');
  return {
    uid: r.uid, kind, operation: r.operation,
    ...(typeof r.subResource === 'string' && r.subResource !== '' ? { subResource: r.subResource } : {}),
    ...(object ? { object } : {}), ...(oldObject ? { oldObject } : {}),
  };
}

/** The AdmissionReview answered: the fields of admissionv1.AdmissionResponse in Go's order, empty ones left out. */
export function admissionReviewResponse(uid: string, d: Decision): Record<string, unknown> {
  const response: Record<string, unknown> = { uid, allowed: d.allowed };
  if (!d.allowed) {
    response.status = {
      metadata: {}, ...(d.message ? { message: d.message } : {}), ...(d.reason ? { reason: d.reason } : {}), code: d.code ?? 403,
    };
  }
  if (d.patch && d.patch.length) {
    response.patch = Buffer.from(JSON.stringify(d.patch)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  if (d.warnings && d.warnings.length) response.warnings = d.warnings;
  return { kind: 'AdmissionReview', apiVersion: REVIEW_API_VERSION, response };
}

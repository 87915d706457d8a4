/**
 * AdmissionReview requests and the checks made on a webhook's answer (apiserver
 * pkg/admission/plugin/webhook/request/admissionreview.go: CreateAdmissionObjects,
 * CreateV1AdmissionReview, CreateV1beta1AdmissionReview, VerifyAdmissionResponse).
 */
import { randomUUID } from 'node:crypto';
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../apimachinery/object.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { GVK, GVR } from './rule-matching.js';

/** What the review describes: the request as made and the version the webhook is called with. */
export interface ReviewInput {
  operation: string;
  /** The resource and kind the webhook gets (an equivalent version under matchPolicy Equivalent). */
  kind: GVK;
  resource: GVR;
  subresource: string;
  requestKind: GVK;
  requestResource: GVR;
  name: string;
  namespace: string;
  object: KObject | null;
  oldObject: KObject | null;
  ctx: WriteContext;
  /** CreateOptions, UpdateOptions or DeleteOptions as the request carried them. */
  options: Record<string, unknown> | null;
}

export interface AdmissionResponse {
  allowed: boolean;
  patch?: string;
  patchType?: string;
  result?: Status;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** The first of the webhook's versions this server sends, or undefined (CreateAdmissionObjects). */
export function reviewVersion(versions: readonly string[] | undefined): 'v1' | 'v1beta1' | undefined {
  return (versions ?? []).find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
}

/** The request's user as AdmissionRequest.userInfo carries it (authenticationv1.UserInfo, omitempty fields left out). */
export function userInfoJSON(user: WriteContext['user']): Record<string, unknown> {
  const userInfo: Record<string, unknown> = {};
  if (user?.name) userInfo.username = user.name;
  if (user?.uid) userInfo.uid = user.uid;
  if (user?.groups?.length) userInfo.groups = user.groups;
  if (user?.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
  return userInfo;
}

/** CreateV1AdmissionReview / CreateV1beta1AdmissionReview, as JSON (Go's field order and omitempty). */
export function admissionReview(version: 'v1' | 'v1beta1', uid: string, r: ReviewInput): Record<string, unknown> {
  const userInfo = userInfoJSON(r.ctx.user);
  const request: Record<string, unknown> = { uid, kind: r.kind, resource: r.resource };
  if (r.subresource) request.subResource = r.subresource;
  request.requestKind = r.requestKind;
  request.requestResource = r.requestResource;
  if (r.subresource) request.requestSubResource = r.subresource;
  if (r.name) request.name = r.name;
  if (r.namespace) request.namespace = r.namespace;
  request.operation = r.operation;
  request.userInfo = userInfo;
  request.object = r.object;
  request.oldObject = r.oldObject;
  request.dryRun = r.ctx.dryRun;
  request.options = r.options;
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

export function newReviewUID(): string {
  return randomUUID();
}

/**
 * The operation's options object as sent to webhooks: metav1 CreateOptions/UpdateOptions as the
 * request's query gave them (writes the server makes itself send the dry run and manager they carry),
 * DeleteOptions with the dry run.
 */
export function operationOptions(operation: string, ctx: WriteContext, deleteOptions: Record<string, unknown> = {}): Record<string, unknown> | null {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : operation === 'DELETE' ? 'DeleteOptions' : '';
  if (!kind) return null;
  // DeleteOptions in Go's field order: gracePeriodSeconds, preconditions, orphanDependents, propagationPolicy, dryRun.
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1', ...(kind === 'DeleteOptions' ? deleteOptions : {}) };
  const given = ctx.options ?? { ...(ctx.dryRun ? { dryRun: ['All'] } : {}), ...(ctx.fieldManager ? { fieldManager: ctx.fieldManager } : {}) };
  if (given.dryRun?.length) o.dryRun = given.dryRun;
  if (kind !== 'DeleteOptions') {
    if (given.fieldManager) o.fieldManager = given.fieldManager;
    if ('fieldValidation' in given && given.fieldValidation) o.fieldValidation = given.fieldValidation;
  }
  return o;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** VerifyAdmissionResponse: the answer's response, or the reason it is not a valid one. */
export function verifyAdmissionResponse(version: 'v1' | 'v1beta1', uid: string, mutating: boolean, review: unknown): AdmissionResponse | { invalid: string } {
  const r = isObj(review) ? review : {};
  const resp = r.response;
  if (!isObj(resp)) return { invalid: 'webhook response was absent' };
  const patch = typeof resp.patch === 'string' && resp.patch ? resp.patch : undefined;
  const base = {
    allowed: resp.allowed === true,
    ...(isObj(resp.status) ? { result: resp.status as Status } : {}),
    ...(Array.isArray(resp.warnings) ? { warnings: resp.warnings.map(String) } : {}),
    ...(isObj(resp.auditAnnotations) ? { auditAnnotations: resp.auditAnnotations as Record<string, string> } : {}),
  };
  if (version === 'v1beta1') {
    // v1beta1 answers were never checked for uid, kind or patchType: a patch is a JSON patch.
    return mutating && patch ? { ...base, patch, patchType: 'JSONPatch' } : base;
  }
  const gotUID = typeof resp.uid === 'string' ? resp.uid : '';
  if (gotUID !== uid) return { invalid: `expected response.uid="${uid}", got "${gotUID}"` };
  const apiVersion = typeof r.apiVersion === 'string' ? r.apiVersion : '';
  const kind = typeof r.kind === 'string' ? r.kind : '';
  if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
    return { invalid: `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${apiVersion}, Kind=${kind}` };
  }
  const patchType = typeof resp.patchType === 'string' ? resp.patchType : undefined;
  if (mutating) {
    if (patch && resp.patchType == null) return { invalid: 'webhook returned response.patch but not response.patchType' };
    if (!patch && resp.patchType != null) return { invalid: 'webhook returned response.patchType but not response.patch' };
    if (resp.patchType != null && !patchType) return { invalid: `webhook returned invalid response.patchType of ""` };
    return { ...base, ...(patch ? { patch } : {}), ...(patchType ? { patchType } : {}) };
  }
  if (patch) return { invalid: 'validating webhook may not return response.patch' };
  if (resp.patchType != null) return { invalid: 'validating webhook may not return response.patchType' };
  return base;
}

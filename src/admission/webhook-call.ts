/**
 * One call of one webhook, shared by both dispatchers (the callHook / callAttrMutatingHook
 * part they share): the dry-run check against sideEffects, the review in the first
 * AdmissionReview version the webhook accepts, the POST within timeoutSeconds, the answer's
 * checks; audit annotations and warnings passed on. Failures to call are WebhookCallErrors
 * (failurePolicy applies); a dry run a webhook cannot take is the request's error.
 */
import { PatchError } from '../patch/errors.js';
import type { StatusError } from '../apimachinery/errors.js';
import { CallFailure, postReview } from './webhook-client.js';
import { dryRunUnsupported, WebhookCallError } from './webhook-errors.js';
import type { WebhookRequest } from './webhook-request.js';
import { admissionReview, newReviewUID, reviewVersion, verifyAdmissionResponse, type AdmissionResponse } from './webhook-review.js';
import type { Invocation } from './rule-matching.js';
import type { WebhookAccessor } from './webhook-source.js';

export async function callWebhook(h: WebhookAccessor, inv: Invocation, r: WebhookRequest, mutating: boolean): Promise<AdmissionResponse> {
  const name = h.hook.name;
  if (r.attrs.ctx.dryRun) {
    const se = h.hook.sideEffects;
    if (se !== 'None' && se !== 'NoneOnDryRun') throw dryRunUnsupported(name) satisfies StatusError;
  }
  const version = reviewVersion(h.hook.admissionReviewVersions);
  if (!version) {
    throw new WebhookCallError(name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  }
  const uid = newReviewUID();
  const body = JSON.stringify(admissionReview(version, uid, r.review(inv)));
  const getObject = (resource: 'services' | 'endpoints', ns: string, n: string) => r.lookup.get('', resource, ns, n);
  let text: string;
  try {
    text = await postReview({ clientConfig: h.hook.clientConfig, agent: h.agent }, getObject, body, h.hook.timeoutSeconds ?? 10, r.lookup.podEndpoints);
  } catch (e) {
    if (e instanceof CallFailure) throw new WebhookCallError(name, `failed to call webhook: ${e.message}`);
    throw e;
  }
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch (e) {
    throw new WebhookCallError(name, `failed to call webhook: ${(e as Error).message}`);
  }
  const res = verifyAdmissionResponse(version, uid, mutating, answer);
  if ('invalid' in res) throw new WebhookCallError(name, `received invalid webhook response: ${res.invalid}`);
  for (const [k, v] of Object.entries(res.auditAnnotations ?? {})) r.attrs.ctx.annotate?.(`${name}/${k}`, v);
  for (const w of res.warnings ?? []) r.attrs.ctx.warn(w);
  return res;
}

/** Whether an error is a patch's (its text goes into an internal error). */
export const isPatchError = (e: unknown): e is PatchError => e instanceof PatchError;

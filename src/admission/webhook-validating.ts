/**
 * ValidatingAdmissionWebhook (apiserver pkg/admission/plugin/webhook/validating/dispatcher.go):
 * every matching webhook is called at once; the request fails with the first error to arrive (a
 * refusal, or a call failure of a webhook with failurePolicy Fail as an internal error). Call
 * failures with failurePolicy Ignore are noted in the audit annotations.
 */
import { callWebhook } from './webhook-call.js';
import { deniedError, failedClosed, WebhookCallError } from './webhook-errors.js';
import { isExemptConfigurationResource } from './webhook-exempt.js';
import { shouldCallHook } from './webhook-match.js';
import { webhookRequest, type WebhookAttributes } from './webhook-request.js';
import type { Invocation } from './rule-matching.js';
import { webhooksOf, type WebhookAccessor } from './webhook-source.js';

const FAILED_OPEN_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

export async function validateWithWebhooks(a: WebhookAttributes): Promise<void> {
  if (isExemptConfigurationResource(a.def)) return;
  const hooks = await webhooksOf(a.lookup, 'validating');
  if (!hooks.length) return;
  const r = webhookRequest(a);
  const relevant: { h: WebhookAccessor; inv: Invocation }[] = [];
  for (const h of hooks) {
    const inv = await shouldCallHook(h, r);
    if (inv) relevant.push({ h, inv });
  }
  if (!relevant.length) return;
  const errs: Error[] = [];
  await Promise.all(relevant.map(async ({ h, inv }, idx) => {
    try {
      const res = await callWebhook(h, inv, r, false);
      if (!res.allowed) errs.push(deniedError(h.hook.name, res.result));
    } catch (e) {
      if (e instanceof WebhookCallError) {
        if ((h.hook.failurePolicy ?? 'Fail') === 'Ignore') {
          a.ctx.annotate?.(`${FAILED_OPEN_PREFIX}round_0_index_${idx}`, h.hook.name);
          return;
        }
        errs.push(failedClosed(e));
        return;
      }
      errs.push(e as Error);
    }
  }));
  const [first] = errs;
  if (first) throw first;
}

/**
 * MutatingAdmissionWebhook (apiserver pkg/admission/plugin/webhook/mutating/dispatcher.go,
 * reinvocationcontext.go): the matching webhooks in order, each seeing the object as the previous
 * one left it; a JSONPatch answer is applied and the result read as the kind (fields it does not
 * have are dropped, the object is defaulted again; the store validates it after admission). When a webhook changed the object, the webhooks with reinvocationPolicy
 * IfNeeded called before that change are called once more, in order (the in-tree plugins are not
 * run again). Call failures with failurePolicy Ignore are skipped and noted in the audit
 * annotations; with Fail they fail the request as an internal error.
 */
import { errors, StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { deepEqual } from '../validation/common.js';
import { dropUnknownFields } from '../openapi/drop-unknown.js';
import { applyJsonPatch, decodeJsonPatch } from '../patch/json-patch.js';
import type { Json } from '../patch/json.js';
import { callWebhook, isPatchError } from './webhook-call.js';
import { deniedError, failedClosed, WebhookCallError } from './webhook-errors.js';
import { isExemptConfigurationResource } from './webhook-exempt.js';
import { shouldCallHook } from './webhook-match.js';
import { webhookRequest, type WebhookAttributes, type WebhookRequest } from './webhook-request.js';
import type { Invocation } from './rule-matching.js';
import { webhooksOf, type WebhookAccessor } from './webhook-source.js';

const MUTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const PATCH_PREFIX = 'patch.webhook.admission.k8s.io/';
const FAILED_OPEN_PREFIX = `failed-open.${MUTATION_PREFIX}`;

/** Replaces the object's contents in place: the store holds the object being written. */
function replaceContents(target: KObject, source: KObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
}

/** callAttrMutatingHook: whether the webhook changed the object. */
async function callMutating(h: WebhookAccessor, inv: Invocation, r: WebhookRequest, round: number, idx: number,
  redefault?: (obj: KObject) => void): Promise<boolean> {
  const a = r.attrs;
  const name = h.hook.name;
  let changed = false;
  try {
    const res = await callWebhook(h, inv, r, true);
    if (!res.allowed) throw deniedError(name, res.result);
    if (!res.patch) return false;
    const patchText = Buffer.from(res.patch, 'base64').toString('utf8');
    let ops: Json[];
    try {
      ops = decodeJsonPatch(patchText);
    } catch (e) {
      throw isPatchError(e) ? errors.internal(e.message) : e;
    }
    if (!ops.length) return false;
    if (!a.object) {
      throw errors.internal(`admission webhook "${name}" attempted to modify the object, which is not supported for this operation`);
    }
    if (res.patchType !== 'JSONPatch') throw new WebhookCallError(name, `unsupported patch type "${res.patchType ?? ''}"`);
    const current = r.versioned(inv).object!;
    let patched: KObject;
    try {
      patched = applyJsonPatch(current as unknown as Json, ops) as unknown as KObject;
    } catch (e) {
      throw isPatchError(e) ? errors.internal(e.message) : e;
    }
    dropUnknownFields(inv.kind, patched);
    changed = !deepEqual(current, patched);
    a.ctx.annotate?.(`${PATCH_PREFIX}round_${round}_index_${idx}`,
      JSON.stringify({ configuration: h.configurationName, webhook: name, patch: ops, patchType: 'JSONPatch' }));
    const back = r.toRequested(inv, patched);
    redefault?.(back);
    replaceContents(a.object, back);
    return changed;
  } finally {
    a.ctx.annotate?.(`${MUTATION_PREFIX}round_${round}_index_${idx}`,
      JSON.stringify({ configuration: h.configurationName, webhook: name, mutated: changed }));
  }
}

/**
 * Runs the mutating webhooks over a write. `redefault` applies the resource's defaults to a
 * patched object, as upstream's decoder does.
 */
export async function admitWithWebhooks(a: WebhookAttributes, redefault?: (obj: KObject) => void): Promise<void> {
  if (isExemptConfigurationResource(a.def)) return;
  const hooks = await webhooksOf(a.lookup, 'mutating');
  if (!hooks.length) return;
  const r = webhookRequest(a);
  const previouslyInvoked = new Set<string>();
  const reinvoke = new Set<string>();
  let anyChange = false;
  for (const round of [0, 1]) {
    if (round === 1 && (!anyChange || !reinvoke.size)) return;
    for (let i = 0; i < hooks.length; i++) {
      const h = hooks[i]!;
      const inv = await shouldCallHook(h, r);
      if (!inv) continue;
      if (round === 1 && !reinvoke.has(h.uid)) continue;
      let changed = false;
      try {
        changed = await callMutating(h, inv, r, round, i, redefault);
      } catch (e) {
        if (!(e instanceof WebhookCallError)) throw e instanceof StatusError || e instanceof Error ? e : new Error(String(e));
        if ((h.hook.failurePolicy ?? 'Fail') === 'Fail') throw failedClosed(e);
        a.ctx.annotate?.(`${FAILED_OPEN_PREFIX}round_${round}_index_${i}`, h.hook.name);
      }
      if (changed && round === 0) {
        anyChange = true;
        for (const uid of previouslyInvoked) reinvoke.add(uid);
        previouslyInvoked.clear();
      }
      if (round === 0 && h.hook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(h.uid);
    }
  }
}

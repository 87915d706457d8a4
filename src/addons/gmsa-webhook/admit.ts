/**
 * sig-windows' GMSA admission webhook (kubernetes-sigs/windows-gmsa, admission-webhook/webhook.go at
 * 993de21), its decisions on one pod as pure functions over what it asks the API:
 *
 * - mutate (CREATE): each `windowsOptions` (the pod's, then each container's) naming a
 *   GMSACredentialSpec without contents gets the spec's `credspec` as JSON, by a JSON patch;
 * - validate (CREATE): each name must be one the pod's service account may `use` (a
 *   LocalSubjectAccessReview), contents set by hand must equal the named spec's, and contents
 *   without a name are refused;
 * - validate (UPDATE): neither the name nor the contents may change.
 *
 * Messages and codes are the webhook's; the API server wraps them
 * (`admission webhook "..." denied the request: <message>`).
 */
import type { Pod, WindowsSecurityContextOptions } from 'kubernetes-types/core/v1.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import { GoJSONError, goJSONParse, goTypeMismatch } from '../../patch/go-json.js';
import { deepEqual, type JsonObject } from '../../patch/json.js';

/** What the webhook reads from the API (kube_client.go). */
export interface GMSALookups {
  /**
   * isAuthorizedToUseCredSpec: whether the service account may `use` the spec, and the
   * authorizer's reason (or the review's error, as `error when checking authz access: ...`).
   */
  mayUse(serviceAccount: string, namespace: string, credSpecName: string): Promise<{ allowed: boolean; reason: string }>;
  /** retrieveCredSpecContents: the spec's `credspec` as JSON, or why not (with the webhook's code). */
  credSpecContents(credSpecName: string): Promise<{ contents: string } | { code: number; message: string }>;
}

export interface JSONPatchOp { op: 'add'; path: string; value: string }

/** An AdmissionResponse's decision: allowed (with patches when mutating) or denied with a code. */
export type GMSADecision = { allowed: true; patch?: JSONPatchOp[] } | { allowed: false; code: number; message: string };

type ResourceKind = 'pod' | 'container';

interface WindowsOptionsAt {
  options: WindowsSecurityContextOptions;
  kind: ResourceKind;
  /** The pod's name or the container's. */
  name: string;
  /** The container's index; -1 for the pod. */
  index: number;
}

/** iterateOverWindowsSecurityOptions: the pod's options, then each (non-init) container's. */
function windowsOptionsOf(pod: Pod): WindowsOptionsAt[] {
  const out: WindowsOptionsAt[] = [];
  const podOptions = pod.spec?.securityContext?.windowsOptions;
  if (podOptions) out.push({ options: podOptions, kind: 'pod', name: pod.metadata?.name ?? '', index: -1 });
  (pod.spec?.containers ?? []).forEach((c, index) => {
    const options = c.securityContext?.windowsOptions;
    if (options) out.push({ options, kind: 'container', name: c.name, index });
  });
  return out;
}

const denied = (code: number, message: string): GMSADecision => ({ allowed: false, code, message });

/** mutateCreateRequest. */
export async function mutateCreate(pod: Pod, lookups: GMSALookups): Promise<GMSADecision> {
  const patch: JSONPatchOp[] = [];
  for (const at of windowsOptionsOf(pod)) {
    const name = at.options.gmsaCredentialSpecName;
    if (name === undefined || at.options.gmsaCredentialSpec !== undefined) continue;
    const got = await lookups.credSpecContents(name);
    if (!('contents' in got)) return denied(got.code, got.message);
    const partial = at.kind === 'container' ? `/containers/${at.index}` : '';
    patch.push({ op: 'add', path: `/spec${partial}/securityContext/windowsOptions/gmsaCredentialSpec`, value: got.contents });
  }
  return patch.length ? { allowed: true, patch } : { allowed: true };
}

/** validateCreateRequest. */
export async function validateCreate(pod: Pod, namespace: string, lookups: GMSALookups): Promise<GMSADecision> {
  const serviceAccount = pod.spec?.serviceAccountName ?? '';
  for (const at of windowsOptionsOf(pod)) {
    const name = at.options.gmsaCredentialSpecName;
    const contents = at.options.gmsaCredentialSpec;
    if (name === undefined) {
      if (contents !== undefined) return denied(422, `${at.kind} ${goQuote(at.name)} has a GMSA cred spec set, but does not define the name of the corresponding resource`);
      continue;
    }
    const { allowed, reason } = await lookups.mayUse(serviceAccount, namespace, name);
    if (!allowed) {
      let msg = `service account ${goQuote(serviceAccount)} is not authorized to \`use\` GMSA cred spec ${goQuote(name)}`;
      if (reason !== '') msg += `, reason: ${goQuote(reason)}`;
      return denied(403, msg);
    }
    if (contents === undefined) continue;
    const expected = await lookups.credSpecContents(name);
    if (!('contents' in expected)) return denied(expected.code, expected.message);
    const compared = compareCredSpecContents(contents, expected.contents);
    if (compared !== true) {
      let msg = `the GMSA cred spec contents for ${at.kind} ${goQuote(at.name)} does not match the contents of GMSA resource ${goQuote(name)}`;
      if (compared !== false) msg += `: ${compared}`;
      return denied(422, msg);
    }
  }
  return { allowed: true };
}

/** validateUpdateRequest: the GMSA name and contents of the pod and of each container (by name) are immutable. */
export function validateUpdate(pod: Pod, oldPod: Pod): GMSADecision {
  const oldContainers = new Map(windowsOptionsOf(oldPod).filter((at) => at.kind === 'container').map((at) => [at.name, at.options]));
  for (const at of windowsOptionsOf(pod)) {
    const old = (at.kind === 'pod' ? oldPod.spec?.securityContext?.windowsOptions : oldContainers.get(at.name)) ?? {};
    const modified: string[] = [];
    if (at.options.gmsaCredentialSpecName !== old.gmsaCredentialSpecName) modified.push('name');
    if (at.options.gmsaCredentialSpec !== old.gmsaCredentialSpec) modified.push('contents');
    if (modified.length) {
      return denied(403, `cannot update an existing pod's GMSA settings (GMSA ${modified.join(' and ')} modified on ${at.kind} ${goQuote(at.name)})`);
    }
  }
  return { allowed: true };
}

/**
 * compareCredSpecContents: equal texts, or equal JSON objects; otherwise false, or the parse
 * failure's text (which the webhook appends to its message).
 */
function compareCredSpecContents(fromPod: string, fromResource: string): boolean | string {
  if (fromPod === fromResource) return true;
  const a = parseObject(fromPod);
  if (typeof a === 'string') return `unable to parse ${goQuote(fromPod)} as a JSON object: ${a}`;
  const b = parseObject(fromResource);
  if (typeof b === 'string') return `unable to parse CRD ${goQuote(fromResource)} as a JSON object: ${b}`;
  return deepEqual(a, b);
}

/** json.Unmarshal into a map[string]interface{}: an object (or null), else encoding/json's error text. */
function parseObject(text: string): JsonObject | null | string {
  let v;
  try {
    v = goJSONParse(text);
  } catch (e) {
    if (e instanceof GoJSONError) return e.message;
    throw e;
  }
  if (v === null || (typeof v === 'object' && !Array.isArray(v))) return v;
  return goTypeMismatch(v, 'map[string]interface {}');
}

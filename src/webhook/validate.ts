/**
 * /validate: the lint rules on the object under admission. Errors refuse it,
 * warnings come back as `response.warnings` (kubectl prints each as
 * `Warning: ...`). On UPDATE only findings the old object did not have
 * count: an object admitted before a rule existed, or before the cluster
 * changed, can still be scaled, labelled and finalized.
 */
import { lint, type LintOptions } from '../lint/engine.js';
import type { ClusterDescription, Finding, Manifest, Obj } from '../lint/types.js';
import type { AdmissionRequest, Decision } from './admission-review.js';

export interface ValidateOptions extends LintOptions {
  /** Every refusal becomes warnings (a policy rolled out in audit mode first). */
  warnOnly?: boolean;
}

/**
 * WK122 repeats the API server's own warnings for pod templates: the server
 * already sends them to the client, so through the webhook they would print
 * twice. It runs only when named in --enable.
 */
const SERVER_REPORTED = ['WK122'];

/** Where admission objects come from in a finding: no file, no line. */
const ADMISSION_SOURCE = { file: 'admission', line: 0 };

const asManifest = (obj: Obj): Manifest => ({ obj, source: ADMISSION_SOURCE, defaulted: true });

export function lintObject(obj: Obj, cluster: ClusterDescription, opts: LintOptions): Finding[] {
  const m = asManifest(obj);
  const enable = opts.enable ?? [];
  const disable = [...(opts.disable ?? []), ...SERVER_REPORTED.filter((id) => !enable.includes(id))];
  return lint([m], [], cluster, { enable, disable });
}

/**
 * The built-in controllers whose objects come from a template this webhook
 * already checked when the owner was created or updated: a Deployment's
 * ReplicaSets, a ReplicaSet's, StatefulSet's, DaemonSet's, Job's or
 * ReplicationController's pods, a CronJob's Jobs. Checking them again would
 * only turn an owner admitted before the webhook (or before a rule) into
 * FailedCreate events on scale-up or rescheduling, which no one reads as a
 * lint finding. Owners of other kinds (operators' custom resources) had no
 * template checked, so their objects are.
 */
const TEMPLATE_OWNERS = new Set(['apps/v1/Deployment', 'apps/v1/ReplicaSet', 'apps/v1/StatefulSet', 'apps/v1/DaemonSet', 'batch/v1/Job', 'batch/v1/CronJob', 'v1/ReplicationController']);

export function controlledByCheckedTemplate(obj: Obj): boolean {
  const owners: unknown = obj.metadata?.ownerReferences;
  return Array.isArray(owners) && owners.some((o: Obj) => o?.controller === true && TEMPLATE_OWNERS.has(`${String(o.apiVersion)}/${String(o.kind)}`));
}

const key = (f: Finding): string => `${f.rule}\u0000${f.path}\u0000${f.message}`;

/** One finding as a line of the refusal or as a warning: `[WK103] spec.containers[1].image: <message>`. */
export const findingLine = (f: Finding): string => `[${f.rule}] ${f.path ? `${f.path}: ` : ''}${f.message}`;

/** The refusal's message: who refuses, then one line per error. */
export function denyMessage(errors: readonly Finding[]): string {
  const n = errors.length;
  return [`winkube lint found ${n} error${n === 1 ? '' : 's'}:`, ...errors.map(findingLine)].join('\n');
}

export function validateRequest(req: AdmissionRequest, cluster: ClusterDescription, opts: ValidateOptions = {}): Decision {
  // Subresources (status, binding, eviction, ephemeral containers) do not carry the object's template; deletes have no new object.
  if (req.subResource || (req.operation !== 'CREATE' && req.operation !== 'UPDATE') || !req.object) return { allowed: true };
  if (controlledByCheckedTemplate(req.object)) return { allowed: true };
  let findings = lintObject(req.object, cluster, opts);
  if (req.operation === 'UPDATE' && req.oldObject) {
    const before = new Set(lintObject(req.oldObject, cluster, opts).map(key));
    findings = findings.filter((f) => !before.has(key(f)));
  }
  // Info findings are advice for a report, not for every kubectl apply.
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  if (errors.length && !opts.warnOnly) {
    return { allowed: false, code: 403, reason: 'Forbidden', message: denyMessage(errors), ...(warnings.length ? { warnings: warnings.map(findingLine) } : {}) };
  }
  const warned = [...errors, ...warnings].map(findingLine);
  return { allowed: true, ...(warned.length ? { warnings: warned } : {}) };
}

/**
 * Job validation as v1.32's pkg/apis/batch/validation (ValidateJob,
 * validateGeneratedSelector, ValidateJobSpec, validateJobSpec with pod
 * failure and success policies, ValidateJobUpdate) and the job strategy: an
 * update runs ValidateJob, then ValidateJobUpdate. The template's spec is
 * checked by the pod validation module with path "spec.template".
 */
import { field, goQuote, OMIT, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../meta/names.js';
import {
  arr, deepEqual, FIELD_IMMUTABLE, goInt32s, goStringMap, immutableScalar, isObj, labelSelectorAsSelector,
  labelSelectorHasInvalidLabelValue, labelSelectorString, metaCreate, metaUpdate, nameIsDNSSubdomain, nonNegative, num,
  qualifiedName, raw, str, validateLabelSelector, type Obj, withStatus,
} from './common.js';
import { goSyntaxOf } from './go-types.js';
import { templateLabels, validatePodTemplate } from './pod-template.js';

const MAX_PARALLELISM_INDEXED = 100000;
const MAX_FAILED_INDEXES = 100000;
const COMPLETIONS_SOFT_LIMIT = 100000;
const PARALLELISM_LIMIT_HIGH_COMPLETIONS = 10000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_ON_EXIT_CODES_VALUES = 255;
const MAX_ON_POD_CONDITIONS = 20;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_POLICY_RULES = 20;

const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

/** fmt %q of a []string. */
const goQuotedList = (l: string[]) => `[${l.map(goQuote).join(' ')}]`;
const tooMany = (path: string, n: number, max: number): FieldError =>
  ({ type: 'FieldValueTooMany', field: path, value: n, detail: `must have at most ${max} items` });

export interface JobOptions {
  allowInvalidLabelValueInSelector: boolean;
  /** Whether the batch.kubernetes.io/ job-name and controller-uid labels are checked too. */
  requirePrefixedLabels: boolean;
  /** Node affinity, selector, tolerations, labels, annotations and scheduling gates may change (suspended, never started). */
  allowMutableSchedulingDirectives: boolean;
}

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});

/** ValidateHasLabel */
function validateHasLabel(template: unknown, key: string, expected: string): FieldError[] {
  const labels = templateLabels(template);
  const p = `spec.template.metadata.labels[${key}]`;
  if (!labels || !(key in labels)) return [field.required(p, `must be '${expected}'`)];
  return str(labels[key]) === expected ? [] : [field.invalid(p, goStringMap(labels), `must be '${expected}'`)];
}

/** validateGeneratedSelector */
function validateGeneratedSelector(job: Obj, batchLabels: boolean): FieldError[] {
  const spec = specOf(job);
  if (spec.manualSelector === true || spec.selector == null) return [];
  const errs: FieldError[] = [];
  const uid = str(job.metadata?.uid);
  const name = str(job.metadata?.name);
  if (!uid) errs.push(field.required('metadata.uid'));
  errs.push(...validateHasLabel(spec.template, 'controller-uid', uid), ...validateHasLabel(spec.template, 'job-name', name));
  const expected: Record<string, string> = {};
  if (batchLabels) {
    errs.push(...validateHasLabel(spec.template, 'batch.kubernetes.io/controller-uid', uid));
    errs.push(...validateHasLabel(spec.template, 'batch.kubernetes.io/job-name', name));
    expected['batch.kubernetes.io/controller-uid'] = uid;
    expected['batch.kubernetes.io/job-name'] = name;
  }
  expected['controller-uid'] = uid;
  expected['job-name'] = name;
  const selector = labelSelectorAsSelector(spec.selector);
  if (selector && !selector.matches(expected)) {
    errs.push(field.invalid('spec.selector', labelSelectorString(spec.selector), '`selector` not auto-generated'));
  }
  return errs;
}

/** validation.IsDomainPrefixedPath */
export function isDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (!value) return [field.required(path)];
  const i = value.indexOf('/');
  if (i <= 0 || i === value.length - 1) return [field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = value.slice(0, i);
  const rest = value.slice(i + 1);
  const errs = isDNS1123Subdomain(host).map((m) => field.invalid(path, host, m));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) {
    errs.push(field.invalid(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  }
  return errs;
}

function validateOnExitCodes(r: Obj, path: string, containerNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const op = str(r.operator);
  if (!op) errs.push(field.required(`${path}.operator`, `valid values: ${goQuotedList(OPERATORS)}`));
  else if (!OPERATORS.includes(op)) errs.push(field.notSupported(`${path}.operator`, op, OPERATORS));
  if (r.containerName != null && !containerNames.has(str(r.containerName))) {
    errs.push(field.invalid(`${path}.containerName`, str(r.containerName), 'must be one of the container or initContainer names in the pod template'));
  }
  const values = arr<number>(r.values).map(num);
  const vp = `${path}.values`;
  if (!values.length) errs.push(field.invalid(vp, goInt32s(r.values), 'at least one value is required'));
  else if (values.length > MAX_ON_EXIT_CODES_VALUES) errs.push(tooMany(vp, values.length, MAX_ON_EXIT_CODES_VALUES));
  let ordered = true;
  const seen = new Set<number>();
  let prev: number | undefined;
  values.forEach((v, j) => {
    if (op === 'In' && v === 0) errs.push(field.invalid(`${vp}[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(field.duplicate(`${vp}[${j}]`, v));
    else seen.add(v);
    if (prev !== undefined && prev > v) ordered = false;
    prev = v;
  });
  if (!ordered) errs.push(field.invalid(vp, goInt32s(r.values), 'must be ordered'));
  return errs;
}

function validateOnPodConditions(patterns: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > MAX_ON_POD_CONDITIONS) errs.push(tooMany(path, patterns.length, MAX_ON_POD_CONDITIONS));
  patterns.forEach((pt, j) => {
    const p = `${path}[${j}]`;
    errs.push(...qualifiedName(str(pt?.type), `${p}.type`));
    const status = str(pt?.status);
    if (!status) errs.push(field.required(`${p}.status`, `valid values: ${goQuotedList(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status)) errs.push(field.notSupported(`${p}.status`, status, CONDITION_STATUSES));
  });
  return errs;
}

function validatePodFailurePolicy(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = arr<Obj>(spec.podFailurePolicy?.rules);
  const rp = `${path}.rules`;
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) errs.push(tooMany(rp, rules.length, MAX_POD_FAILURE_POLICY_RULES));
  const names = new Set<string>();
  for (const c of [...arr<Obj>(spec.template?.spec?.containers), ...arr<Obj>(spec.template?.spec?.initContainers)]) names.add(str(c?.name));
  rules.forEach((r0, i) => {
    const r = isObj(r0) ? r0 : {};
    const p = `${rp}[${i}]`;
    const action = str(r.action);
    if (!action) errs.push(field.required(`${p}.action`, `valid values: ${goQuotedList(ACTIONS)}`));
    else if (action === 'FailIndex') {
      if (spec.backoffLimitPerIndex == null) errs.push(field.invalid(`${p}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!ACTIONS.includes(action)) errs.push(field.notSupported(`${p}.action`, action, ACTIONS));
    const onExit = isObj(r.onExitCodes) ? r.onExitCodes : undefined;
    const onConds = arr<Obj>(r.onPodConditions);
    if (onExit) errs.push(...validateOnExitCodes(onExit, `${p}.onExitCodes`, names));
    if (onConds.length) errs.push(...validateOnPodConditions(onConds, `${p}.onPodConditions`));
    if (onExit && onConds.length) errs.push(field.invalid(p, OMIT, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (!onExit && !onConds.length) errs.push(field.invalid(p, OMIT, 'specifying one of OnExitCodes and OnPodConditions is required'));
  });
  return errs;
}

/** parseIndexInterval / validateIndexesFormat: the number of indexes, or the error text. */
function indexesFormat(s: string, completions: number): { total: number } | { error: string } {
  if (!s) return { total: 0 };
  let last: number | undefined;
  let total = 0;
  const atoi = (x: string) => (/^[+-]?[0-9]+$/.test(x) ? Number.parseInt(x, 10) : undefined);
  for (const interval of s.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) return { error: `the fragment ${goQuote(interval)} violates the requirement that an index interval can have at most two parts separated by '-'` };
    const [first = '', second] = limits;
    const x = atoi(first);
    if (x === undefined) return { error: `cannot convert string to integer for index: ${goQuote(first)}` };
    if (x >= completions) return { error: `too large index: ${goQuote(first)}` };
    let y = x;
    if (second !== undefined) {
      const yy = atoi(second);
      if (yy === undefined) return { error: `cannot convert string to integer for index: ${goQuote(second)}` };
      if (yy >= completions) return { error: `too large index: ${goQuote(second)}` };
      if (x >= yy) return { error: `non-increasing order, previous: ${x}, current: ${yy}` };
      y = yy;
    }
    if (last !== undefined && last >= x) return { error: `non-increasing order, previous: ${last}, current: ${x}` };
    total += y - x + 1;
    last = y;
  }
  return { total };
}

function validateSuccessPolicy(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = arr<Obj>(spec.successPolicy?.rules);
  const rp = `${path}.rules`;
  if (!rules.length) errs.push(field.required(rp, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errs.push(tooMany(rp, rules.length, MAX_SUCCESS_POLICY_RULES));
  const completions = num(spec.completions);
  rules.forEach((r0, i) => {
    const r = isObj(r0) ? r0 : {};
    const p = `${rp}[${i}]`;
    if (r.succeededCount == null && r.succeededIndexes == null) {
      errs.push(field.required(p, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (r.succeededIndexes != null) {
      const sp = `${p}.succeededIndexes`;
      if (str(r.succeededIndexes).length > MAX_SUCCEEDED_INDEXES_LENGTH) errs.push(field.tooLong(sp, MAX_SUCCEEDED_INDEXES_LENGTH));
      const res = indexesFormat(str(r.succeededIndexes), completions);
      if ('error' in res) errs.push(field.invalid(sp, str(r.succeededIndexes), `error parsing succeededIndexes: ${res.error}`));
      else total = res.total;
    }
    if (r.succeededCount != null) {
      const cp = `${p}.succeededCount`;
      const count = num(r.succeededCount);
      errs.push(...nonNegative(count, cp));
      if (count > completions) errs.push(field.invalid(cp, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (r.succeededIndexes != null && count > total) {
        errs.push(field.invalid(cp, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

/** validateJobSpec (shared with CronJob job templates). */
export function validateJobSpecCommon(spec: Obj, path: string, oldTemplate?: unknown): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex']) {
    if (spec[k] != null) errs.push(...nonNegative(num(spec[k]), `${path}.${k}`));
  }
  if (spec.maxFailedIndexes != null) {
    errs.push(...nonNegative(num(spec.maxFailedIndexes), `${path}.maxFailedIndexes`));
    if (spec.backoffLimitPerIndex == null) errs.push(field.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (spec.managedBy != null) {
    errs.push(...isDomainPrefixedPath(`${path}.managedBy`, str(spec.managedBy)));
    if (str(spec.managedBy).length > MAX_MANAGED_BY_LENGTH) errs.push(field.tooLong(`${path}.managedBy`, MAX_MANAGED_BY_LENGTH));
  }
  const mode = spec.completionMode;
  if (mode != null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(field.notSupported(`${path}.completionMode`, str(mode), ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      const c = spec.completions;
      const par = spec.parallelism;
      const mfi = spec.maxFailedIndexes;
      if (c == null) errs.push(field.required(`${path}.completions`, 'when completion mode is Indexed'));
      if (par != null && par > MAX_PARALLELISM_INDEXED) {
        errs.push(field.invalid(`${path}.parallelism`, par, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
      }
      if (c != null && mfi != null && mfi > c) errs.push(field.invalid(`${path}.maxFailedIndexes`, mfi, 'must be less than or equal to completions'));
      if (mfi != null && mfi > MAX_FAILED_INDEXES) {
        errs.push(field.invalid(`${path}.maxFailedIndexes`, mfi, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
      }
      if (c != null && c > COMPLETIONS_SOFT_LIMIT && spec.backoffLimitPerIndex != null) {
        if (mfi == null) errs.push(field.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
        if (par != null && par > PARALLELISM_LIMIT_HIGH_COMPLETIONS) {
          errs.push(field.invalid(`${path}.parallelism`, par, `must be less than or equal to ${PARALLELISM_LIMIT_HIGH_COMPLETIONS} ` +
            `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`));
        }
        if (mfi != null && mfi > MAX_FAILED_INDEXES_HIGH_COMPLETIONS) {
          errs.push(field.invalid(`${path}.maxFailedIndexes`, mfi, `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ` +
            `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`));
        }
      }
    }
  }
  if (mode == null || mode === 'NonIndexed') {
    if (spec.backoffLimitPerIndex != null) errs.push(field.invalid(`${path}.backoffLimitPerIndex`, num(spec.backoffLimitPerIndex), 'requires indexed completion mode'));
    if (spec.maxFailedIndexes != null) errs.push(field.invalid(`${path}.maxFailedIndexes`, num(spec.maxFailedIndexes), 'requires indexed completion mode'));
  }
  if (spec.podFailurePolicy != null) errs.push(...validatePodFailurePolicy(spec, `${path}.podFailurePolicy`));
  if (spec.successPolicy != null) {
    if (mode !== 'Indexed') errs.push(field.invalid(`${path}.successPolicy`, raw(goSuccessPolicy(spec.successPolicy)), 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, `${path}.successPolicy`));
  }
  if (spec.podReplacementPolicy != null) {
    const prp = str(spec.podReplacementPolicy);
    if (spec.podFailurePolicy != null) {
      if (prp !== 'Failed') errs.push(field.notSupported(`${path}.podReplacementPolicy`, prp, ['Failed']));
    } else if (!REPLACEMENT_POLICIES.includes(prp)) {
      errs.push(field.notSupported(`${path}.podReplacementPolicy`, prp, REPLACEMENT_POLICIES));
    }
  }
  errs.push(...validatePodTemplate(spec.template, `${path}.template`, oldTemplate));
  const rp = `${path}.template.spec.restartPolicy`;
  const restart = str(spec.template?.spec?.restartPolicy);
  if (restart === 'Always' || restart === '') errs.push(field.required(rp, 'valid values: "OnFailure", "Never"'));
  else if (restart !== 'OnFailure' && restart !== 'Never') errs.push(field.notSupported(rp, restart, ['OnFailure', 'Never']));
  else if (spec.podFailurePolicy != null && restart !== 'Never') {
    errs.push(field.invalid(rp, restart, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

/** %#v of a batch.SuccessPolicy (its rules' pointers cannot be reproduced). */
function goSuccessPolicy(sp: Obj): string {
  const rules = arr<Obj>(sp?.rules).map((r) => {
    const ptr = (v: unknown, t: string) => (v == null ? `(*${t})(nil)` : `(*${t})(0xc000000000)`);
    return `batch.SuccessPolicyRule{SucceededIndexes:${ptr(r?.succeededIndexes, 'string')}, SucceededCount:${ptr(r?.succeededCount, 'int32')}}`;
  });
  return `batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{${rules.join(', ')}}}`;
}

/** ValidateJobSpec */
function validateJobSpec(job: Obj, opts: JobOptions, old?: Obj): FieldError[] {
  const spec = specOf(job);
  const errs = validateJobSpecCommon(spec, 'spec', old ? specOf(old).template : undefined);
  if (spec.selector == null) errs.push(field.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }, 'spec.selector'));
  const selector = labelSelectorAsSelector(spec.selector);
  if (selector && !selector.matches(templateLabels(spec.template) as Record<string, string> | undefined)) {
    errs.push(field.invalid('spec.template.metadata.labels', goStringMap(templateLabels(spec.template)), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** ValidateJob */
function validateJob(job: Obj, opts: JobOptions, old?: Obj): FieldError[] {
  const errs = [
    ...metaCreate(job, true, nameIsDNSSubdomain), ...validateGeneratedSelector(job, opts.requirePrefixedLabels), ...validateJobSpec(job, opts, old),
  ];
  const spec = specOf(job);
  if (spec.completionMode === 'Indexed' && spec.completions != null && spec.completions > 0) {
    const host = `${str(job.metadata?.name)}-${spec.completions - 1}`;
    if (isDNS1123Label(host).length) {
      errs.push(field.invalid('metadata.name', str(job.metadata?.name), `will not able to create pod with invalid DNS label: ${host}`));
    }
  }
  return errs;
}

/** validateCompletions: immutable, except an Indexed job's together with parallelism. */
function validateCompletions(spec: Obj, old: Obj): FieldError[] {
  if (spec.completionMode !== 'Indexed') return immutableScalar(spec.completions, old.completions, 'spec.completions');
  if (deepEqual(spec.completions, old.completions) || spec.completions == null) return [];
  return spec.completions !== spec.parallelism
    ? [field.invalid('spec.completions', num(spec.completions), 'can only be modified in tandem with spec.parallelism')] : [];
}

/** validatePodTemplateUpdate: the template is immutable, but for scheduling directives of suspended, never-started jobs. */
function validatePodTemplateUpdate(spec: Obj, old: Obj, opts: JobOptions): FieldError[] {
  const t: Obj = isObj(spec.template) ? spec.template : {};
  let o: Obj = isObj(old.template) ? old.template : {};
  if (opts.allowMutableSchedulingDirectives) {
    o = structuredClone(o);
    const ts: Obj = isObj(t.spec) ? t.spec : {};
    const os: Obj = (o.spec ??= {});
    if (ts.affinity == null && os.affinity != null) {
      delete os.affinity.nodeAffinity;
      if (!Object.keys(os.affinity).length) delete os.affinity;
    } else if (ts.affinity != null && os.affinity == null) {
      os.affinity = ts.affinity.nodeAffinity == null ? {} : { nodeAffinity: ts.affinity.nodeAffinity };
    } else if (ts.affinity != null && os.affinity != null) {
      if (ts.affinity.nodeAffinity == null) delete os.affinity.nodeAffinity; else os.affinity.nodeAffinity = ts.affinity.nodeAffinity;
    }
    for (const k of ['nodeSelector', 'tolerations', 'schedulingGates']) { if (ts[k] == null) delete os[k]; else os[k] = ts[k]; }
    const tm: Obj = isObj(t.metadata) ? t.metadata : {};
    const om: Obj = (o.metadata ??= {});
    for (const k of ['annotations', 'labels']) { if (tm[k] == null) delete om[k]; else om[k] = tm[k]; }
  }
  if (deepEqual(t, o)) return [];
  return [field.invalid('spec.template', raw(goPodTemplateSpec(t)), FIELD_IMMUTABLE)];
}

/** %#v of a template's v1.ObjectMeta (templates carry only labels, annotations and perhaps a name). */
function goTemplateObjectMeta(meta: unknown): string {
  const m: Obj = isObj(meta) ? meta : {};
  const strs = (v: unknown) => (Array.isArray(v) ? `[]string{${v.map((x) => goQuote(str(x))).join(', ')}}` : '[]string(nil)');
  return `v1.ObjectMeta{Name:${goQuote(str(m.name))}, GenerateName:${goQuote(str(m.generateName))}, Namespace:${goQuote(str(m.namespace))}, ` +
    `SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), ` +
    'DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), ' +
    `Labels:${(goStringMap(m.labels) as { goSyntax: string }).goSyntax}, Annotations:${(goStringMap(m.annotations) as { goSyntax: string }).goSyntax}, ` +
    `OwnerReferences:[]v1.OwnerReference(nil), Finalizers:${strs(m.finalizers)}, ManagedFields:[]v1.ManagedFieldsEntry(nil)}`;
}

/** %#v of a core.PodTemplateSpec. */
function goPodTemplateSpec(t: Obj): string {
  return `core.PodTemplateSpec{ObjectMeta:${goTemplateObjectMeta(t.metadata)}, Spec:${goSyntaxOf('core.PodSpec', isObj(t.spec) ? t.spec : {})}}`;
}

/** ValidateJobSpecUpdate */
function validateJobSpecUpdate(job: Obj, old: Obj, opts: JobOptions): FieldError[] {
  const spec = specOf(job);
  const o = specOf(old);
  const errs = validateJobSpec(job, opts, old);
  errs.push(...validateCompletions(spec, o));
  if (!deepEqual(spec.selector, o.selector)) errs.push(field.invalid('spec.selector', labelSelectorString(spec.selector), FIELD_IMMUTABLE));
  errs.push(...validatePodTemplateUpdate(spec, o, opts));
  errs.push(...immutableScalar(spec.completionMode, o.completionMode, 'spec.completionMode'));
  if (!deepEqual(spec.podFailurePolicy, o.podFailurePolicy)) {
    errs.push(field.invalid('spec.podFailurePolicy', raw(spec.podFailurePolicy == null ? 'null' : 'batch.PodFailurePolicy{...}'), FIELD_IMMUTABLE));
  }
  errs.push(...immutableScalar(spec.backoffLimitPerIndex, o.backoffLimitPerIndex, 'spec.backoffLimitPerIndex'));
  errs.push(...immutableScalar(spec.managedBy, o.managedBy, 'spec.managedBy'));
  if (!deepEqual(spec.successPolicy, o.successPolicy)) {
    errs.push(field.invalid('spec.successPolicy', spec.successPolicy == null ? null : raw(goSuccessPolicy(spec.successPolicy)), FIELD_IMMUTABLE));
  }
  return errs;
}

const hasJobLabels = (job: Obj) => {
  const l = templateLabels(specOf(job).template) ?? {};
  return 'batch.kubernetes.io/controller-uid' in l && 'batch.kubernetes.io/job-name' in l;
};

export const jobValidation = withStatus({
  validate: (job: Obj) => validateJob(job, { allowInvalidLabelValueInSelector: false, requirePrefixedLabels: true, allowMutableSchedulingDirectives: false }),
  validateUpdate(job: Obj, old: Obj): FieldError[] {
    const opts: JobOptions = {
      allowInvalidLabelValueInSelector: labelSelectorHasInvalidLabelValue(specOf(old).selector),
      requirePrefixedLabels: hasJobLabels(old),
      allowMutableSchedulingDirectives: specOf(old).suspend === true && old.status?.startTime == null,
    };
    return [...validateJob(job, opts, old), ...metaUpdate(job, old), ...validateJobSpecUpdate(job, old, opts)];
  },
});

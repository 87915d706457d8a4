/**
 * ObjectMeta validation as core/v1 resources run it: apimachinery's
 * ValidateObjectMetaAccessor / ValidateObjectMetaAccessorUpdate plus
 * pkg/apis/core/validation's extra finalizer-name check, with upstream's
 * messages. Spec validation lives elsewhere.
 */
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { field, goQuote, type BadValue, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, validateLabels } from '../meta/names.js';
import type { KObject } from '../apimachinery/object.js';

/** apimachinery's ValidateNameFunc: messages for a name, `prefix` when it is a generateName. */
export type NameFn = (name: string, prefix: boolean) => string[];

/** maskTrailingDash: a generateName may end in '-' (upstream swaps the last two characters for "a"). */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const reDNS1035 = new RegExp(`^${DNS1035_LABEL}$`);

export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!reDNS1035.test(v)) {
    errs.push("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
      `and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL}')`);
  }
  return errs;
}

export const nameIsDNSSubdomain: NameFn = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameFn = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameFn = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** ValidateAnnotations: keys are qualified names (case-insensitively), the total at most 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(path, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v ?? ''));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(field.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** Go's %#v of an OwnerReference (pointers cannot be reproduced; shown as nil or a placeholder address). */
function ownerRefGoSyntax(r: OwnerReference): string {
  const ptr = (v: boolean | undefined) => v === undefined || v === null ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
  return `v1.OwnerReference{APIVersion:${goQuote(r.apiVersion ?? '')}, Kind:${goQuote(r.kind ?? '')}, ` +
    `Name:${goQuote(r.name ?? '')}, UID:${goQuote(r.uid ?? '')}, Controller:${ptr(r.controller)}, ` +
    `BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`;
}

/** schema.FromAPIVersionAndKind: an unparseable apiVersion leaves group and version empty. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (!apiVersion) return { group: '', version: '' };
  const [first = '', second, ...more] = apiVersion.split('/');
  if (second === undefined) return { group: '', version: first };
  if (more.length === 0) return { group: first, version: second };
  return { group: '', version: '' };
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const gv = parseGroupVersion(ref.apiVersion ?? '');
    if (!gv.version) errs.push(field.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(field.invalid(`${path}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(field.invalid(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(field.invalid(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    // BannedOwners: core/v1 Events may not own anything.
    if (gv.group === '' && gv.version === 'v1' && ref.kind === 'Event') {
      errs.push(field.invalid(path, { goSyntax: ownerRefGoSyntax(ref) }, `/v1, Kind=Event is disallowed from being an owner`));
    }
    if (ref.controller) {
      const cur = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(field.invalid(path, { goSyntax: `[]v1.OwnerReference{${(refs ?? []).map(ownerRefGoSyntax).join(', ')}}` },
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`));
      } else {
        firstController = cur;
      }
    }
  }
  return errs;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** ValidateFinalizerName: a qualified name. */
function validateFinalizerName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((m) => field.invalid(path, name, m));
}

/** apimachinery ValidateFinalizers (create only): names, and not both orphan and foregroundDeletion. */
function validateFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) errs.push(...validateFinalizerName(f, path));
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(field.invalid(path, { goSyntax: `[]string{${finalizers.map(goQuote).join(', ')}}` },
      'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** core's validateKubeFinalizerName: an unqualified finalizer must be a standard one. */
function validateKubeFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateFinalizerName(f, p));
    if (f.split('/').length === 1 && !STANDARD_FINALIZERS.has(f)) {
      errs.push(field.invalid(p, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

export interface MetaRules {
  namespaced: boolean;
  nameFn: NameFn;
  /** apimachinery's rules alone, without core's finalizer-name check (CRDs and custom resources). */
  genericOnly?: boolean;
}

/**
 * ValidateObjectMeta for a create. The store itself reports a missing name
 * ("name or generateName is required"), so that error is not repeated here.
 */
export function validateObjectMeta(meta: ObjectMeta, rules: MetaRules): FieldError[] {
  const errs: FieldError[] = [];
  const p = 'metadata';
  if (meta.generateName) {
    for (const m of rules.nameFn(meta.generateName, true)) errs.push(field.invalid(`${p}.generateName`, meta.generateName, m));
  }
  if (meta.name) {
    for (const m of rules.nameFn(meta.name, false)) errs.push(field.invalid(`${p}.name`, meta.name, m));
  }
  if (rules.namespaced) {
    if (!meta.namespace) errs.push(field.required(`${p}.namespace`));
    else for (const m of isDNS1123Label(meta.namespace)) errs.push(field.invalid(`${p}.namespace`, meta.namespace, m));
  } else if (meta.namespace) {
    errs.push(field.forbidden(`${p}.namespace`, 'not allowed on this type'));
  }
  if ((meta.generation ?? 0) < 0) {
    errs.push(field.invalid(`${p}.generation`, meta.generation!, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(meta.labels, `${p}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${p}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${p}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${p}.finalizers`));
  if (!rules.genericOnly) errs.push(...validateKubeFinalizers(meta.finalizers, `${p}.finalizers`));
  return errs;
}

/** Go's time.Time String() for an RFC 3339 timestamp. */
function goTime(ts: string): string {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  return d.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' +0000 UTC');
}

function immutable(path: string, next: unknown, old: unknown, fmt: (v: any) => BadValue): FieldError[] {
  if ((next ?? undefined) === (old ?? undefined)) return [];
  return [field.invalid(path, next === undefined || next === null ? null : fmt(next), 'field is immutable')];
}

/** ValidateObjectMetaUpdate (apimachinery) plus core's finalizer-name check. */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta, genericOnly = false): FieldError[] {
  const errs: FieldError[] = [];
  const p = 'metadata';
  if (old.deletionTimestamp) {
    const before = new Set(old.finalizers ?? []);
    const extra = [...new Set((meta.finalizers ?? []).filter((f) => !before.has(f)))].sort();
    if (extra.length) {
      errs.push(field.forbidden(`${p}.finalizers`,
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQuote).join(', ')}}`));
    }
  }
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(field.invalid(`${p}.generation`, meta.generation ?? 0, 'must not be decremented'));
  }
  const str = (v: string) => v;
  errs.push(...immutable(`${p}.name`, meta.name ?? '', old.name ?? '', str));
  errs.push(...immutable(`${p}.namespace`, meta.namespace ?? '', old.namespace ?? '', str));
  errs.push(...immutable(`${p}.uid`, meta.uid ?? '', old.uid ?? '', str));
  errs.push(...immutable(`${p}.creationTimestamp`, meta.creationTimestamp, old.creationTimestamp,
    (v: string) => ({ goSyntax: goTime(v) })));
  errs.push(...immutable(`${p}.deletionTimestamp`, meta.deletionTimestamp, old.deletionTimestamp,
    (v: string) => ({ goSyntax: goTime(v) })));
  errs.push(...immutable(`${p}.deletionGracePeriodSeconds`, meta.deletionGracePeriodSeconds, old.deletionGracePeriodSeconds,
    (v: number) => v));
  errs.push(...validateLabels(meta.labels, `${p}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${p}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${p}.ownerReferences`));
  if (!genericOnly) errs.push(...validateKubeFinalizers(meta.finalizers, `${p}.finalizers`));
  return errs;
}

/**
 * How a kind's ValidateUpdate treats ObjectMeta upstream: most run only
 * ValidateObjectMetaUpdate; some (ConfigMap, Secret, ServiceAccount, Node,
 * ReplicationController, PV, PVC) also re-run the create checks on the new
 * object; LimitRange runs only the create checks.
 */
export type UpdateMode = 'update' | 'create-then-update' | 'update-then-create' | 'create';

/** The validate/validateUpdate pair of a ResourceDef that checks ObjectMeta only. */
export function metaValidators(rules: MetaRules, mode: UpdateMode = 'update'): {
  validate: (obj: KObject) => FieldError[];
  validateUpdate: (obj: KObject, old: KObject) => FieldError[];
} {
  return {
    validate: (obj) => validateObjectMeta(obj.metadata ?? {}, rules),
    validateUpdate: (obj, old) => {
      const create = () => validateObjectMeta(obj.metadata ?? {}, rules);
      const update = () => validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {});
      switch (mode) {
        case 'create': return create();
        case 'create-then-update': return [...create(), ...update()];
        case 'update-then-create': return [...update(), ...create()];
        default: return update();
      }
    },
  };
}

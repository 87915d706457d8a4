/**
 * CustomResourceDefinition validation as apiextensions-apiserver v0.32 runs it on a v1 object
 * (pkg/apis/apiextensions/validation/validation.go ValidateCustomResourceDefinition, and
 * pkg/apiserver/schema/validation.go validateStructuralInvariants for the structural rules).
 *
 * The v1 object is validated in its internal form: when every version carries the same schema,
 * subresources or printer columns, the v1→internal conversion lifts them to spec.validation,
 * spec.subresources and spec.additionalPrinterColumns, which is where their errors then point.
 *
 * Covered: metadata and names, group, scope, versions (names, one storage version, unique names),
 * required schemas, structural schema rules (types at root/fields/items, metadata at the root,
 * array items), property types, uniqueItems, additionalProperties with properties, list/map type
 * extensions, printer columns, the scale subresource's paths. Not covered: CEL rules and their
 * cost, default pruning checks, selectableFields.
 */
import { conversionOptionsForUpdate, validateConversion, type ConversionValidationOptions } from './crd-conversion-validation.js';
import type {
  CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
  CustomResourceSubresources, JSONSchemaProps,
} from 'kubernetes-types/apiextensions/v1.js';
import { validationRuleErrors } from './crd-validation-rules.js';
import type { Schema } from '../../openapi/crd-schema.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { isDNS1123Subdomain } from '../../meta/names.js';
import { deepEqual } from '../../fieldmanager/typed.js';
import { isDNS1035Label, nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../../validation/object-meta.js';
import type { KObject } from '../../apimachinery/object.js';

type CRD = CustomResourceDefinition & KObject;

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** Where a lifted (identical in every version) part of the spec is validated, if it is lifted. */
function lifted<T>(versions: CustomResourceDefinition['spec']['versions'], pick: (v: CustomResourceDefinition['spec']['versions'][number]) => T | undefined): boolean {
  if (!versions.length) return false;
  const first = pick(versions[0]!);
  if (first === undefined || (Array.isArray(first) && first.length === 0)) return false;
  return versions.every((v) => deepEqual(pick(v), first));
}

export function validateNames(names: Partial<CustomResourceDefinitionNames>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (v: string) => isDNS1035Label(v).join(',');
  if (names.plural && label(names.plural)) errs.push(field.invalid(`${path}.plural`, names.plural, label(names.plural)));
  if (names.singular && label(names.singular)) errs.push(field.invalid(`${path}.singular`, names.singular, label(names.singular)));
  if (names.kind && label(names.kind.toLowerCase())) {
    errs.push(field.invalid(`${path}.kind`, names.kind, `may have mixed case, but should otherwise match: ${label(names.kind.toLowerCase())}`));
  }
  if (names.listKind && label(names.listKind.toLowerCase())) {
    errs.push(field.invalid(`${path}.listKind`, names.listKind, `may have mixed case, but should otherwise match: ${label(names.listKind.toLowerCase())}`));
  }
  (names.shortNames ?? []).forEach((s, i) => {
    if (label(s)) errs.push(field.invalid(`${path}.shortNames[${i}]`, s, label(s)));
  });
  if (names.kind && names.kind === names.listKind) errs.push(field.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    if (label(c)) errs.push(field.invalid(`${path}.categories[${i}]`, c, label(c)));
  });
  return errs;
}

function validateColumn(col: CustomResourceColumnDefinition, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(field.required(`${path}.name`));
  if (!col.type) errs.push(field.required(`${path}.type`, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  else if (!PRINTER_COLUMN_TYPES.includes(col.type)) errs.push(field.invalid(`${path}.type`, col.type, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  if (col.format && !PRINTER_COLUMN_FORMATS.includes(col.format)) {
    errs.push(field.invalid(`${path}.format`, col.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  if (!col.jsonPath) errs.push(field.required(`${path}.JSONPath`));
  else errs.push(...validateSimpleJSONPath(col.jsonPath, `${path}.JSONPath`));
  return errs;
}

/** validateSimpleJSONPath: a path must start with a dot. */
function validateSimpleJSONPath(s: string, path: string): FieldError[] {
  if (!s.startsWith('.')) return [field.invalid(path, s, "must be a simple json path starting with .")];
  return [];
}

function validateSubresources(sub: CustomResourceSubresources | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const scale = sub?.scale;
  if (!scale) return errs;
  if (!scale.specReplicasPath) errs.push(field.required(`${path}.scale.specReplicasPath`));
  else if (!scale.specReplicasPath.startsWith('.spec.')) {
    errs.push(field.invalid(`${path}.scale.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
  }
  if (!scale.statusReplicasPath) errs.push(field.required(`${path}.scale.statusReplicasPath`));
  else if (!scale.statusReplicasPath.startsWith('.status.')) {
    errs.push(field.invalid(`${path}.scale.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
  }
  const sel = scale.labelSelectorPath;
  if (sel && !sel.startsWith('.spec.') && !sel.startsWith('.status.')) {
    errs.push(field.invalid(`${path}.scale.labelSelectorPath`, sel, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

type Level = 'root' | 'item' | 'field';

/** validateStructuralInvariants (the parts real manifests hit); properties in key order. */
function structuralErrors(s: Schema | undefined, lvl: Level, path: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const items = Array.isArray(s.items) ? undefined : s.items;
  if (s.type === 'array' && s.items === undefined) errs.push(field.required(`${path}.items`, 'must be specified'));
  errs.push(...structuralErrors(items, 'item', `${path}.items`));
  for (const k of Object.keys(s.properties ?? {}).sort()) {
    errs.push(...structuralErrors(s.properties![k], 'field', `${path}.properties[${k}]`));
  }
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (lvl === 'root') errs.push(field.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (typeof ap === 'object') errs.push(...structuralErrors(ap, 'field', `${path}.additionalProperties`));
  }
  const embedded = !!s['x-kubernetes-embedded-resource'];
  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(field.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(field.invalid(`${path}.type`, s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !s['x-kubernetes-int-or-string'] && !s['x-kubernetes-preserve-unknown-fields']) {
    const detail = lvl === 'root' ? 'must not be empty at the root'
      : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(field.required(`${path}.type`, detail));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(field.invalid(`${path}.type`, s.type, 'must be object at the root'));
  const checkMetadata = lvl === 'root' || embedded;
  const props = s.properties ?? {};
  if (checkMetadata && props.kind && props.kind.type !== 'string') {
    errs.push(field.invalid(`${path}.properties[kind].type`, props.kind.type ?? '', 'must be string'));
  }
  if (checkMetadata && props.apiVersion && props.apiVersion.type !== 'string') {
    errs.push(field.invalid(`${path}.properties[apiVersion].type`, props.apiVersion.type ?? '', 'must be string'));
  }
  if (props.metadata) {
    const m = props.metadata;
    const mp = `${path}.properties[metadata]`;
    if (checkMetadata && m.type !== 'object') errs.push(field.invalid(`${mp}.type`, m.type ?? '', 'must be object'));
    if (lvl === 'root') {
      const { type: _t, properties, ...rest } = m;
      const extra = Object.keys(rest).length > 0 || Object.keys(properties ?? {}).some((k) => k !== 'name' && k !== 'generateName');
      if (extra) errs.push(field.forbidden(mp, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  return errs;
}

/** ValidateCustomResourceDefinitionOpenAPISchema: the rules of schema-only validation real manifests hit. */
function openAPISchemaErrors(s: Schema | undefined, path: string, cel: FieldError[], oldSelfForbiddenAt?: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const mapCorrelatable = s['x-kubernetes-map-type'] === undefined || s['x-kubernetes-map-type'] === 'granular' || s['x-kubernetes-map-type'] === 'atomic';
  const inMap = mapCorrelatable ? oldSelfForbiddenAt : oldSelfForbiddenAt ?? path;
  const inList = s['x-kubernetes-list-type'] === 'map' ? oldSelfForbiddenAt : oldSelfForbiddenAt ?? path;
  if (s.uniqueItems) errs.push(field.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const ap = s.additionalProperties;
  if (ap !== undefined && Object.keys(s.properties ?? {}).length && (ap === false || typeof ap === 'object')) {
    errs.push(field.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  for (const k of Object.keys(s.properties ?? {}).sort()) errs.push(...openAPISchemaErrors(s.properties![k], `${path}.properties[${k}]`, cel, inMap));
  (s.allOf ?? []).forEach((x, i) => errs.push(...openAPISchemaErrors(x, `${path}.allOf[${i}]`, cel, oldSelfForbiddenAt)));
  (s.oneOf ?? []).forEach((x, i) => errs.push(...openAPISchemaErrors(x, `${path}.oneOf[${i}]`, cel, oldSelfForbiddenAt)));
  (s.anyOf ?? []).forEach((x, i) => errs.push(...openAPISchemaErrors(x, `${path}.anyOf[${i}]`, cel, oldSelfForbiddenAt)));
  if (s.items && !Array.isArray(s.items)) errs.push(...openAPISchemaErrors(s.items, `${path}.items`, cel, inList));
  if (typeof ap === 'object') errs.push(...openAPISchemaErrors(ap, `${path}.additionalProperties`, cel, inMap));
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(field.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (!s.type) errs.push(field.required(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else if (s.type !== 'object') errs.push(field.invalid(`${path}.type`, s.type, 'must be object if x-kubernetes-map-type is specified'));
    if (mapType !== 'atomic' && mapType !== 'granular') errs.push(field.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (!s.type) errs.push(field.required(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else if (s.type !== 'array') errs.push(field.invalid(`${path}.type`, s.type, 'must be array if x-kubernetes-list-type is specified'));
    if (!['atomic', 'set', 'map'].includes(listType)) errs.push(field.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length && listType !== 'map') {
    if (listType === undefined) errs.push(field.required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else errs.push(field.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map' && !keys.length) errs.push(field.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  if (s.type && !OPENAPI_V3_TYPES.includes(s.type)) errs.push(field.notSupported(`${path}.type`, s.type, OPENAPI_V3_TYPES));
  // The rules' own errors are schema errors; compiling them (CEL errors) comes after all of those.
  const rules = validationRuleErrors(s, path, errs.length > 0, oldSelfForbiddenAt);
  errs.push(...rules.schema);
  cel.push(...rules.cel);
  return errs;
}

/** validateCustomResourceDefinitionValidation for one schema at `path` (…schema or spec.validation). */
function validateSchema(props: JSONSchemaProps | undefined, statusEnabled: boolean, path: string): FieldError[] {
  const schema = props;
  if (!schema) return [];
  const errs: FieldError[] = [];
  const p = `${path}.openAPIV3Schema`;
  if (statusEnabled) {
    if (schema.type !== undefined && schema.type !== 'object') {
      errs.push(field.invalid(`${p}.type`, schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
    }
  }
  if (schema.nullable) errs.push(field.forbidden(`${p}.nullable`, 'nullable cannot be true at the root'));
  errs.push(...structuralErrors(schema, 'root', p));
  const cel: FieldError[] = [];
  errs.push(...openAPISchemaErrors(schema, p, cel));
  errs.push(...cel);
  return errs;
}

/** ValidateCustomResourceDefinition (create). */
export function validateCRD(crd: CRD, conversionOptions: ConversionValidationOptions = CREATE_CONVERSION_OPTIONS): FieldError[] {
  const spec = (crd.spec ?? {});
  const names = (spec.names ?? {});
  const versions = spec.versions ?? [];
  const requiredName = `${names.plural ?? ''}.${spec.group ?? ''}`;
  const errs = validateObjectMeta(crd.metadata ?? {}, {
    namespaced: false,
    genericOnly: true,
    nameFn: (name, prefix) => [...nameIsDNSSubdomain(name, prefix), ...(name !== requiredName ? ['must be spec.names.plural+"."+spec.group'] : [])],
  });
  const s = 'spec';
  if (!spec.group) errs.push(field.required(`${s}.group`));
  else if (isDNS1123Subdomain(spec.group).length) errs.push(field.invalid(`${s}.group`, spec.group, isDNS1123Subdomain(spec.group).join(',')));
  else if (spec.group.split('.').length < 2) errs.push(field.invalid(`${s}.group`, spec.group, 'should be a domain with at least one dot'));
  if (!spec.scope) errs.push(field.required(`${s}.scope`));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(field.notSupported(`${s}.scope`, spec.scope, ['Cluster', 'Namespaced']));
  versions.forEach((v, i) => {
    if (!v.schema?.openAPIV3Schema) errs.push(field.required(`${s}.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  });
  const schemaLifted = lifted(versions, (v) => v.schema);
  const subresourcesLifted = lifted(versions, (v) => v.subresources);
  const columnsLifted = lifted(versions, (v) => v.additionalPrinterColumns);
  const seen = new Set<string>();
  let unique = true;
  let storage = 0;
  versions.forEach((v, i) => {
    if (v.storage) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const vp = `${s}.versions[${i}]`;
    const nameErrs = isDNS1035Label(v.name ?? '');
    if (nameErrs.length) errs.push(field.invalid(`${vp}.name`, v.name ?? '', nameErrs.join(',')));
    if (v.deprecationWarning !== undefined) {
      if (!v.deprecated) errs.push(field.invalid(`${vp}.deprecationWarning`, v.deprecationWarning, 'can only be set for deprecated versions'));
      else if (v.deprecationWarning.length > 256) errs.push(field.invalid(`${vp}.deprecationWarning`, v.deprecationWarning, 'must be <= 256 characters long'));
    }
    const statusEnabled = !!(subresourcesLifted ? versions[0]!.subresources : v.subresources)?.status;
    if (!schemaLifted) errs.push(...validateSchema(v.schema?.openAPIV3Schema, statusEnabled, `${vp}.schema`));
    if (!subresourcesLifted) errs.push(...validateSubresources(v.subresources, `${vp}.subresources`));
    if (!columnsLifted) (v.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `${vp}.additionalPrinterColumns[${j}]`)));
  });
  // Field errors print a bad value with Go's %#v; a list of versions is written as upstream's type name.
  const versionsValue = { goSyntax: `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(() => 'apiextensions.CustomResourceDefinitionVersion{...}').join(', ')}}` };
  if (!unique) errs.push(field.invalid(`${s}.versions`, versionsValue, 'must contain unique version names'));
  if (storage !== 1) errs.push(field.invalid(`${s}.versions`, versionsValue, 'must have exactly one version marked as storage version'));
  if (!names.plural) errs.push(field.required(`${s}.names.plural`));
  if (!names.singular) errs.push(field.required(`${s}.names.singular`));
  if (!names.kind) errs.push(field.required(`${s}.names.kind`));
  if (!names.listKind) errs.push(field.required(`${s}.names.listKind`));
  errs.push(...validateNames(names, `${s}.names`));
  if (schemaLifted) {
    const statusEnabled = versions.some((v) => !!v.subresources?.status);
    errs.push(...validateSchema(versions[0]!.schema?.openAPIV3Schema, statusEnabled, `${s}.validation`));
  }
  if (subresourcesLifted) errs.push(...validateSubresources(versions[0]!.subresources, `${s}.subresources`));
  if (columnsLifted) (versions[0]!.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `${s}.additionalPrinterColumns[${j}]`)));
  errs.push(...validateConversion(spec.conversion, conversionOptions, `${s}.conversion`));
  errs.push(...validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crd));
  return errs;
}

/** ValidateCustomResourceDefinition's conversion options: a recognized review version required, the caBundle not checked. */
const CREATE_CONVERSION_OPTIONS: ConversionValidationOptions = { requireRecognizedVersion: true, allowInvalidCABundle: true };

/** ValidateCustomResourceDefinitionStoredVersions. */
function validateStoredVersions(crd: CRD): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const versions = crd.spec?.versions ?? [];
  const path = 'status.storedVersions';
  const value = { goSyntax: `[]string{${stored.map((v) => JSON.stringify(v)).join(', ')}}` };
  if (!stored.length) return [field.invalid(path, value, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const storage = versions.find((v) => v.storage);
  if (storage && !stored.includes(storage.name)) errs.push(field.invalid(path, value, `must have the storage version ${storage.name}`));
  stored.forEach((v, i) => {
    if (!versions.some((x) => x.name === v)) errs.push(field.invalid(`${path}[${i}]`, v, 'must appear in spec.versions'));
  });
  return errs;
}

/**
 * ValidateCustomResourceDefinitionUpdate: the metadata update rules, the create rules on the spec,
 * and validateCustomResourceDefinitionSpecUpdate's immutable fields (scope and kind once Established).
 */
export function validateCRDUpdate(crd: CRD, old: CRD): FieldError[] {
  const errs = validateObjectMetaUpdate(crd.metadata ?? {}, old.metadata ?? {}, true);
  errs.push(...validateCRD(crd, conversionOptionsForUpdate(old)).filter((e) => !e.field.startsWith('metadata.')));
  const immutable = (path: string, next: string | undefined, prev: string | undefined) => {
    if (next !== prev) errs.push(field.invalid(path, next ?? '', 'field is immutable'));
  };
  const established = (old.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (established) {
    immutable('spec.scope', crd.spec?.scope, old.spec?.scope);
    immutable('spec.names.kind', crd.spec?.names?.kind, old.spec?.names?.kind);
  }
  immutable('spec.group', crd.spec?.group, old.spec?.group);
  immutable('spec.names.plural', crd.spec?.names?.plural, old.spec?.names?.plural);
  return errs;
}

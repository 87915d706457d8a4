/**
 * The resource a CRD version serves (apiextensions-apiserver pkg/registry/customresource:
 * strategy.go, status_strategy.go, validator.go; pkg/apiserver/customresource_handler.go
 * crdInfo; customresource_discovery_controller.go for the discovery facts).
 */
import { createHash } from 'node:crypto';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from 'kubernetes-types/apiextensions/v1.js';
import type { ResourceDef } from '../types.js';
import { apiVersionOf, type KObject } from '../../apimachinery/object.js';
import type { SubresourceDef } from '../../apimachinery/resource.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { errors } from '../../apimachinery/errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../../validation/object-meta.js';
import { specOf } from '../store.js';
import { applyDefaults, hasDefaults, prune, validateCustomResource } from './custom-resource-schema.js';
import { hasRules, validateCustomResourceRules } from './cel-validation.js';
import { customResourcePrinter } from './custom-resource-printer.js';
import { JSONPath, printJSONPathValue } from './jsonpath.js';
import { schemaOf, type Schema } from '../../openapi/crd-schema.js';
import { setResourceType } from '../../fieldmanager/index.js';
import { customResourceType } from '../../fieldmanager/custom-type.js';
import { WebhookConverter } from './webhook-converter.js';
import type { ConversionWebhookClients } from './conversion-webhook-client.js';
import { compareKubeAwareVersions } from '../../apimachinery/kube-version-order.js';

/** The verbs discovery lists for a custom resource, in upstream's order. */
export const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** discovery.StorageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** The scale subresource's paths, for the resources that have one. */
export interface ScalePaths { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string }
const scalePaths = new WeakMap<ResourceDef, ScalePaths>();
const schemas = new WeakMap<ResourceDef, Schema>();

/** The custom scale paths of a resource defined by a CRD, if it has a scale subresource. */
export function customScalePaths(def: ResourceDef): ScalePaths | undefined {
  return scalePaths.get(def);
}

/** The selectable field readers of a version (selectableFields: GA in v1.32). */
function fieldSelectors(v: CustomResourceDefinitionVersion): ResourceDef['fieldSelectors'] {
  if (!v.selectableFields?.length) return undefined;
  const out: NonNullable<ResourceDef['fieldSelectors']> = {};
  for (const f of v.selectableFields) {
    const path = new JSONPath(f.jsonPath);
    out[f.jsonPath.replace(/^\./, '')] = (obj) => {
      const [value] = path.find(obj);
      return printJSONPathValue(value);
    };
  }
  return out;
}

/** Validation with the schema of a version (CustomResourceValidator.Validate). */
function schemaErrors(schema: Schema | undefined, obj: KObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!schema) return errs;
  errs.push(...validateCustomResource(schema, obj));
  return errs;
}

const BLOCKING: FieldError['type'][] = ['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'];

/**
 * customResourceStrategy.Validate/ValidateUpdate: the CEL rules run after the other checks, unless one
 * of those found an error that makes the rules' input unreliable (hasBlockingErr). `schema` is the
 * version's schema when it has rules (NewValidator is nil without them), else undefined.
 */
function withRuleErrors(errs: FieldError[], schema: Schema | undefined, obj: KObject, old?: KObject): FieldError[] {
  if (!schema) return errs;
  if (errs.some((e) => BLOCKING.includes(e.type))) {
    return [...errs, field.invalid('<nil>', null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')];
  }
  return [...errs, ...validateCustomResourceRules(schema, obj, old)];
}

/** The ResourceDef of one served version of an established CRD (`conversion`: the server's webhook clients, for Webhook conversion). */
export function customResourceDef(crd: CustomResourceDefinition, v: CustomResourceDefinitionVersion, conversion: ConversionWebhookClients): ResourceDef {
  const spec = crd.spec;
  const names = crd.status?.acceptedNames ?? spec.names;
  const storage = spec.versions.find((x) => x.storage)!;
  const schema = schemaOf(v.schema?.openAPIV3Schema);
  const statusEnabled = !!v.subresources?.status;
  const subresources: SubresourceDef[] = [];
  if (statusEnabled) subresources.push({ name: 'status', kind: names.kind, verbs: SUBRESOURCE_VERBS });
  if (v.subresources?.scale) subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUBRESOURCE_VERBS });
  const namespaced = spec.scope === 'Namespaced';
  const apiVersion = `${spec.group}/${v.name}`;
  const storageApiVersion = `${spec.group}/${storage.name}`;
  const metaRules = { namespaced, nameFn: nameIsDNSSubdomain, genericOnly: true };
  // Whether the schema has CEL rules is known once per version, not walked again at every write.
  const ruleSchema = schema && hasRules(schema) ? schema : undefined;
  const def: ResourceDef = {
    group: spec.group, version: v.name, resource: names.plural, singular: names.singular ?? names.kind.toLowerCase(),
    kind: names.kind, namespaced,
    shortNames: names.shortNames, categories: names.categories,
    verbs: CUSTOM_RESOURCE_VERBS,
    subresources,
    storageVersionHash: storageVersionHash(spec.group, storage.name, names.kind),
    storagePrefix: `/${spec.group}/${names.plural}`,
    hasGeneration: true,
    // With a status subresource only spec changes count; without, everything but metadata does.
    generationInput: statusEnabled ? specOf : (o) => { const { metadata: _m, ...rest } = o; return rest; },
    hasStatusSubresource: statusEnabled,
    // customResourceStrategy (and the status strategy embedding it): AllowUnconditionalUpdate false.
    allowUnconditionalUpdate: false,
    printer: customResourcePrinter(v.additionalPrinterColumns),
    fieldSelectors: fieldSelectors(v),
    defaults(obj) {
      if (!schema || !obj || typeof obj !== 'object') return;
      prune(obj, schema);
      applyDefaults(obj, schema);
    },
    prepareForCreate(obj) {
      if (!statusEnabled) return;
      delete obj.status;
      // Upstream defaults again when it reads the object from storage, so a status default (Gateway
      // API's "Waiting for controller" conditions) shows on the created object: stored here at once.
      if (schema?.properties?.status?.default !== undefined) applyDefaults(obj, { properties: { status: schema.properties.status } });
    },
    validate(obj) {
      return withRuleErrors([...validateObjectMeta(obj.metadata ?? {}, metaRules), ...schemaErrors(schema, obj)], ruleSchema, obj);
    },
    validateUpdate(obj, old) {
      return withRuleErrors([...validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {}, true), ...schemaErrors(schema, obj)], ruleSchema, obj, old);
    },
  };
  if (spec.conversion?.strategy === 'Webhook') {
    setWebhookConversion(def, crd, conversion, schema, schemaOf(storage.schema?.openAPIV3Schema), storageApiVersion);
    return registered(def, crd, v, schema);
  }
  // Upstream's storage decoder defaults what it reads (unstructuredDefaulter), so a default added to
  // the schema shows on objects stored before it; without defaults, lists stay the stored texts.
  const defaultsOnRead = hasDefaults(schema);
  // None conversion: versions differ only in apiVersion.
  const toServed = apiVersion !== storageApiVersion ? (obj: KObject): KObject => ({ ...obj, apiVersion }) : undefined;
  if (toServed) {
    def.toStorage = (obj) => ({ ...obj, apiVersion: storageApiVersion });
    def.fromStorage = toServed;
  }
  if (defaultsOnRead) {
    // Only objects written before this schema was served can lack its defaults (without a version conversion).
    def.fromStorageOnlyOlder = !toServed;
    def.fromStorage = (stored) => {
      const obj = toServed ? toServed(stored) : stored;
      applyDefaults(obj, schema);
      return obj;
    };
  }
  return registered(def, crd, v, schema);
}

/** Records what the other modules look up about a custom resource's definition. */
function registered(def: ResourceDef, crd: CustomResourceDefinition, v: CustomResourceDefinitionVersion, schema: Schema | undefined): ResourceDef {
  const scale = v.subresources?.scale;
  if (scale) scalePaths.set(def, scale);
  if (schema) schemas.set(def, schema);
  customResources.add(def);
  sources.set(def, { crd, version: v.name });
  setResourceType(def, customResourceType(schema));
  if (v.deprecated) deprecationWarnings.set(def, v.deprecationWarning ?? defaultDeprecationWarning(crd, v.name));
  return def;
}

/**
 * Webhook conversion (every version, the storage one too: objects stored under an earlier storage
 * version convert when read). As upstream's storage codec: what is read is defaulted in the stored
 * version, then converted; a converted object is pruned with the schema of its version
 * (schemaCoercingConverter). A failure is the error the handler gets, a 500 with its text.
 */
function setWebhookConversion(def: ResourceDef, crd: CustomResourceDefinition, clients: ConversionWebhookClients, schema: Schema | undefined,
  storageSchema: Schema | undefined, storageApiVersion: string): void {
  const converter = new WebhookConverter(crd, clients);
  const apiVersion = apiVersionOf(def);
  const listKind = crd.status?.acceptedNames?.listKind ?? crd.spec.names.listKind ?? `${def.kind}List`;
  const asStatus = (e: unknown): never => {
    throw e instanceof Error ? errors.unknown(e.message) : e;
  };
  const storageDefaults = hasDefaults(storageSchema) ? storageSchema : undefined;
  def.convertFromStorage = async (stored, list) => {
    if (storageDefaults) for (const o of stored) if (o.apiVersion === storageApiVersion) applyDefaults(o, storageDefaults);
    const out = await converter.convert(stored, apiVersion, list ? listKind : undefined).catch(asStatus);
    if (schema) for (const o of out) if (!stored.includes(o)) prune(o, schema);
    return out;
  };
  def.convertToStorage = async (obj) => {
    const [out] = await converter.convert([obj], storageApiVersion).catch(asStatus);
    if (storageSchema && out !== obj) prune(out!, storageSchema);
    return out!;
  };
}

/** customresource_handler.go defaultDeprecationWarning: the deprecated version, and the newest served one not deprecated. */
function defaultDeprecationWarning(crd: CustomResourceDefinition, deprecated: string): string {
  const { group, names, versions } = crd.spec;
  const msg = `${group}/${deprecated} ${names.kind} is deprecated`;
  const newer = versions.filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(v.name, deprecated) < 0)
    .map((v) => v.name).sort(compareKubeAwareVersions);
  return newer.length ? `${msg}; use ${group}/${newer[0]} ${names.kind}` : msg;
}

const deprecationWarnings = new WeakMap<ResourceDef, string>();

/** The Warning every request to a deprecated custom resource version gets, if any. */
export function deprecationWarningOf(def: ResourceDef): string | undefined {
  return deprecationWarnings.get(def);
}

const sources = new WeakMap<ResourceDef, { crd: CustomResourceDefinition; version: string }>();

/** The CRD and version a custom resource is served from (for its OpenAPI documents). */
export function customResourceSource(def: ResourceDef): { crd: CustomResourceDefinition; version: string } | undefined {
  return sources.get(def);
}

/** The resources defined by CRDs (their Patch refuses strategic merge patches). */
const customResources = new WeakSet<ResourceDef>();

export function isCustomResource(def: ResourceDef): boolean {
  return customResources.has(def);
}

/** The fields a body's schema does not declare, as the custom resource decoder reports them (unknown field "<path>"). */
export function unknownCustomResourceFields(def: ResourceDef, body: Record<string, unknown>): string[] {
  const schema = schemas.get(def);
  return schema ? prune(structuredClone(body), schema) : [];
}

/**
 * fieldValidation for a custom resource's create or update body (schemaCoercingDecoder):
 * Strict refuses unknown fields with the strict decoding error, Warn warns of each.
 */
export function checkCustomResourceFields(def: ResourceDef, body: Record<string, unknown>, directive: 'Strict' | 'Warn' | 'Ignore',
  warn: (message: string) => void): void {
  if (!isCustomResource(def) || directive === 'Ignore') return;
  const messages = unknownCustomResourceFields(def, body).map((p) => `unknown field "${p}"`);
  if (!messages.length) return;
  if (directive === 'Strict') {
    const kind = typeof body.kind === 'string' && body.kind ? body.kind : def.kind;
    const version = typeof body.apiVersion === 'string' && body.apiVersion ? body.apiVersion.split('/').pop()! : def.version;
    throw errors.badRequest(`${kind} in version "${version}" cannot be handled as a ${def.kind}: strict decoding error: ${messages.join(', ')}`);
  }
  for (const m of messages) warn(m);
}

/** The ResourceDefs of an established CRD's served versions, in version priority order (the preferred first). */
export function customResourceDefs(crd: CustomResourceDefinition, conversion: ConversionWebhookClients): ResourceDef[] {
  if (crd.spec.conversion?.strategy !== 'Webhook') conversion.release(crd.metadata?.name ?? '');
  return crd.spec.versions.filter((v) => v.served)
    .sort((a, b) => compareKubeAwareVersions(a.name, b.name))
    .map((v) => customResourceDef(crd, v, conversion));
}


/**
 * kube-apiserver's --encryption-provider-config: an EncryptionConfiguration
 * (apiserver.config.k8s.io/v1) read, validated and turned into transformers per
 * group resource as k8s.io/apiserver/pkg/server/options/encryptionconfig does
 * (v1.32), with its error texts. KMS providers are not supported.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { field, formatFieldErrors, OMIT, type FieldError } from '../../apimachinery/field-errors.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import { AesCbcTransformer, AesGcmTransformer } from './aes.js';
import { groupResourceKey, groupResourceText, parseGroupResource, type GroupResource } from './group-resource.js';
import { IdentityTransformer } from './identity.js';
import { SecretboxTransformer } from './secretbox.js';
import { PrefixTransformers, type PrefixTransformer, type ValueTransformer } from './value-transformer.js';

interface Key { name?: string; secret?: string }
interface KeysConfiguration { keys?: Key[] }
interface ProviderConfiguration {
  aesgcm?: KeysConfiguration; aescbc?: KeysConfiguration; secretbox?: KeysConfiguration;
  identity?: object; kms?: object;
}
interface ResourceConfiguration { resources?: string[]; providers?: ProviderConfiguration[] }
export interface EncryptionConfigurationDoc {
  apiVersion?: string; kind?: string;
  resources?: ResourceConfiguration[];
}

const API_VERSION = 'apiserver.config.k8s.io/v1';
const KIND = 'EncryptionConfiguration';
const AES_KEY_SIZES = [16, 24, 32];
const SECRETBOX_KEY_SIZES = [32];

export class EncryptionConfigError extends Error {}

/** The transformers a configuration sets, looked up as the storage factory does: the resource, its group's `*`, then `*.*`. */
export class EncryptionConfiguration {
  constructor(private readonly byGroupResource: ReadonlyMap<string, ValueTransformer>) {}

  transformerFor(gr: GroupResource): ValueTransformer | undefined {
    return this.byGroupResource.get(groupResourceKey(gr))
      ?? this.byGroupResource.get(groupResourceKey({ group: gr.group, resource: '*' }))
      ?? this.byGroupResource.get(groupResourceKey({ group: '*', resource: '*' }));
  }
}

/** encryptionconfig.LoadEncryptionConfig: the file's transformers, or the error kube-apiserver stops with. */
export function loadEncryptionConfig(file: string): EncryptionConfiguration {
  let data: string;
  try {
    data = readFileSync(file, 'utf8');
  } catch (e) {
    throw new EncryptionConfigError(`error while parsing file: error while loading file: error reading encryption provider configuration file ${goQuote(file)}: ${goOpenError(file, e as NodeJS.ErrnoException)}`);
  }
  if (data.length === 0) {
    throw new EncryptionConfigError(`error while parsing file: error while loading file: encryption provider configuration file ${goQuote(file)} is empty`);
  }
  const doc = decode(file, data);
  const errs = validateEncryptionConfiguration(doc);
  if (errs.length) throw new EncryptionConfigError(`error while parsing file: ${formatFieldErrors(errs)}`);
  try {
    return buildTransformers(doc);
  } catch (e) {
    throw new EncryptionConfigError(`error while building transformers: ${(e as Error).message}`);
  }
}

function goOpenError(file: string, e: NodeJS.ErrnoException): string {
  const text: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EISDIR: 'is a directory' };
  return `open ${file}: ${text[e.code ?? ''] ?? e.message}`;
}

function decode(file: string, data: string): EncryptionConfigurationDoc {
  let doc: unknown;
  try {
    doc = parseYaml(data);
  } catch (e) {
    throw new EncryptionConfigError(`error while parsing file: error decoding encryption provider configuration file ${goQuote(file)}: ${(e as Error).message}`);
  }
  const d = (doc ?? {}) as EncryptionConfigurationDoc;
  if (d.apiVersion !== API_VERSION || d.kind !== KIND) {
    // The scheme knows only this kind; its wording for another is guessed to be the decoder's.
    throw new EncryptionConfigError(`error while parsing file: error decoding encryption provider configuration file ${goQuote(file)}: no kind ${goQuote(d.kind ?? '')} is registered for version ${goQuote(d.apiVersion ?? '')} in scheme "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go:80"`);
  }
  return d;
}

/** validation.ValidateEncryptionConfiguration (reload off). */
export function validateEncryptionConfiguration(c: EncryptionConfigurationDoc): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.resources?.length) return [field.required('resources', 'at least one resources is required')];
  for (const [i, conf] of c.resources.entries()) {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const resources = conf.resources ?? [];
    if (!resources.length) errs.push(field.required(r, `at least one ${r} is required`));
    errs.push(...validateResourceOverlap(resources, r), ...validateResourceNames(resources, r));
    const providers = conf.providers ?? [];
    if (!providers.length) errs.push(field.required(p, `at least one ${p} is required`));
    for (const [j, provider] of providers.entries()) {
      const path = `${p}[${j}]`;
      const single = validateSingleProvider(provider, path);
      errs.push(...single);
      if (single.length) continue;
      if (provider.aesgcm) errs.push(...validateKeys(provider.aesgcm.keys, `${path}.aesgcm.keys`, AES_KEY_SIZES));
      else if (provider.aescbc) errs.push(...validateKeys(provider.aescbc.keys, `${path}.aescbc.keys`, AES_KEY_SIZES));
      else if (provider.secretbox) errs.push(...validateKeys(provider.secretbox.keys, `${path}.secretbox.keys`, SECRETBOX_KEY_SIZES));
    }
  }
  return errs;
}

/** Go's %#v of a []string, as field.Invalid prints the resource list. */
function goStringSlice(values: string[]): { goSyntax: string } {
  return { goSyntax: `[]string{${values.map(goQuote).join(', ')}}` };
}

function validateResourceOverlap(resources: string[], path: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  for (const [i, r1] of grs.entries()) {
    for (const [j, r2] of grs.entries()) {
      if (i === j) continue;
      if (r1.group === r2.group && r1.resource === r2.resource && !duplicate) { duplicate = true; continue; }
      if (overlap) continue;
      if (r1.group === '*' && r1.resource === '*') { overlap = true; continue; }
      if (r1.group !== r2.group) continue;
      if (r1.resource === '*' || r2.resource === '*') overlap = true;
    }
  }
  const errs: FieldError[] = [];
  if (duplicate) errs.push(field.invalid(path, goStringSlice(resources), 'the same resource cannot be specified multiple times'));
  if (overlap) {
    errs.push(field.invalid(path, goStringSlice(resources),
      "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"));
  }
  return errs;
}

function validateResourceNames(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [j, res] of resources.entries()) {
    const at = `${path}[${j}]`;
    const gr = parseGroupResource(res);
    if (/[A-Z]/.test(res)) errs.push(field.invalid(at, res, 'resource name should not contain capital letters'));
    else if (res === '*') errs.push(field.invalid(at, res, "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"));
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(res)) {
      errs.push(field.invalid(at, res, 'resources which do not have REST API/s cannot be encrypted'));
    } else if (gr.group === 'events.k8s.io') {
      errs.push(field.invalid(at, res, "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"));
    } else if (gr.group === 'extensions') {
      errs.push(field.invalid(at, res, "'extensions' group has been removed and cannot be used for encryption"));
    } else if (gr.group === '*' && gr.resource !== '*') {
      errs.push(field.invalid(at, res, 'encrypting the same resource across groups is not supported'));
    }
  }
  return errs;
}

function validateSingleProvider(p: ProviderConfiguration, path: string): FieldError[] {
  const found = [p.kms, p.aesgcm, p.aescbc, p.secretbox, p.identity].filter((x) => x !== undefined && x !== null).length;
  // Upstream prints the provider struct with %#v (pointer addresses): the value is left out here.
  if (found === 0) return [field.invalid(path, OMIT, 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity')];
  if (found > 1) return [field.invalid(path, OMIT, 'more than one provider specified in a single element, should split into different list elements')];
  return [];
}

function validateKeys(keys: Key[] | undefined, path: string, sizes: number[]): FieldError[] {
  if (!keys?.length) return [field.required(path, 'at least one keys is required')];
  return keys.flatMap((k, i) => validateKey(k, `${path}[${i}]`, sizes));
}

function validateKey(key: Key, path: string, sizes: number[]): FieldError[] {
  const errs: FieldError[] = [];
  if (!key.name) errs.push(field.required(`${path}.name`, 'name is a mandatory field for a key'));
  if (!key.secret) return [...errs, field.required(`${path}.secret`, 'secret is a mandatory field for a key')];
  const secret = decodeStdBase64(key.secret);
  if (!secret) return [...errs, field.invalid(`${path}.secret`, 'REDACTED', 'secrets must be base64 encoded')];
  if (!sizes.includes(secret.length)) {
    errs.push(field.invalid(`${path}.secret`, 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`));
  }
  return errs;
}

/** base64.StdEncoding.DecodeString: padded, standard alphabet, nothing else. */
function decodeStdBase64(s: string): Buffer | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}

const AESCBC_PREFIX = 'k8s:enc:aescbc:v1:';
const AESGCM_PREFIX = 'k8s:enc:aesgcm:v1:';
const SECRETBOX_PREFIX = 'k8s:enc:secretbox:v1:';

/** getTransformerOverrides: each listed group resource gets its configurations' providers, in order. */
function buildTransformers(c: EncryptionConfigurationDoc): EncryptionConfiguration {
  const lists = new Map<string, PrefixTransformer[]>();
  for (const conf of c.resources ?? []) {
    const transformers = (conf.providers ?? []).map(providerTransformer);
    for (const res of conf.resources ?? []) {
      const gr = parseGroupResource(res);
      const anyInGroup = { group: gr.group, resource: '*' };
      if (lists.has(groupResourceKey(anyInGroup))) {
        throw new Error(`resource ${goQuote(groupResourceText(gr))} is masked by earlier rule ${goQuote(groupResourceText(anyInGroup))}`);
      }
      if (lists.has(groupResourceKey({ group: '*', resource: '*' }))) {
        throw new Error(`resource ${goQuote(groupResourceText(gr))} is masked by earlier rule "*.*"`);
      }
      const key = groupResourceKey(gr);
      lists.set(key, [...(lists.get(key) ?? []), ...transformers]);
    }
  }
  const out = new Map<string, ValueTransformer>();
  for (const [gr, list] of lists) out.set(gr, new PrefixTransformers(list, 'no matching prefix found'));
  return new EncryptionConfiguration(out);
}

function providerTransformer(p: ProviderConfiguration): PrefixTransformer {
  if (p.aesgcm) return keyedTransformer(AESGCM_PREFIX, p.aesgcm, (k) => new AesGcmTransformer(k), 'AES');
  if (p.aescbc) return keyedTransformer(AESCBC_PREFIX, p.aescbc, (k) => new AesCbcTransformer(k), 'AES');
  if (p.secretbox) return keyedTransformer(SECRETBOX_PREFIX, p.secretbox, (k) => new SecretboxTransformer(k), 'Secretbox');
  if (p.kms) throw new Error('KMS providers are not supported by winkube');
  return { prefix: Buffer.alloc(0), transformer: new IdentityTransformer() };
}

/** A provider's keys: each under `<name>:` after the provider's prefix, the first writing. */
function keyedTransformer(prefix: string, conf: KeysConfiguration, make: (key: Buffer) => ValueTransformer, kind: string): PrefixTransformer {
  const keys = (conf.keys ?? []).map((k): PrefixTransformer => ({
    prefix: Buffer.from(`${k.name}:`), transformer: make(Buffer.from(k.secret ?? '', 'base64')),
  }));
  return {
    prefix: Buffer.from(prefix),
    transformer: new PrefixTransformers(keys, `no matching key was found for the provided ${kind} transformer`),
  };
}

/**
 * The ConversionReview exchange of a conversion webhook, without the network: the request
 * upstream sends and the checks it makes on the answer, with its texts
 * (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go).
 */
import type { KObject } from '../../apimachinery/object.js';
import { formatFieldErrors } from '../../apimachinery/field-errors.js';
import { validateLabels } from '../../meta/names.js';
import { validateAnnotations } from '../../validation/object-meta.js';

const REVIEW_GROUP = 'apiextensions.k8s.io';

/** The review versions this server speaks, as createConversionReviewObjects tries them. */
type ReviewVersion = 'v1' | 'v1beta1';

export interface ConversionReviewRequest { version: ReviewVersion; body: Record<string, unknown> }

/** schema.GroupVersion.String() of an apiVersion ("" when it does not parse, as FromAPIVersionAndKind). */
export function groupVersionString(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') return '';
  const parts = apiVersion.split('/');
  if (parts.length > 2) return '';
  return apiVersion;
}

/** schema.GroupVersionKind.String(): "<group>/<version>, Kind=<kind>" (a core kind starts with "/"). */
export function gvkString(apiVersion: unknown, kind: unknown): string {
  const gv = groupVersionString(apiVersion);
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * createConversionReviewObjects: a review in the first of the CRD's conversionReviewVersions the
 * server supports, asking for `objects` in `desiredAPIVersion`.
 */
export function conversionReviewRequest(reviewVersions: readonly string[], objects: KObject[], desiredAPIVersion: string,
  uid: string): ConversionReviewRequest {
  const version = reviewVersions.find((v): v is ReviewVersion => v === 'v1' || v === 'v1beta1');
  if (!version) throw new Error('no supported conversion review versions');
  return {
    version,
    body: {
      kind: 'ConversionReview', apiVersion: `${REVIEW_GROUP}/${version}`,
      request: { uid, desiredAPIVersion, objects },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    },
  };
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}

/**
 * getConvertedObjectsFromResponse: the converted objects of a well-formed, successful answer, else
 * the error upstream reports. v1 answers must be v1 ConversionReviews carrying the request's uid;
 * v1beta1 answers are not checked for either, as upstream keeps compatibility.
 */
export function convertedObjectsFromResponse(version: ReviewVersion, expectedUID: string, answer: unknown): unknown[] {
  const review = record(answer) ?? {};
  if (version === 'v1') {
    const expected = `${REVIEW_GROUP}/v1, Kind=ConversionReview`;
    const got = gvkString(review.apiVersion ?? '', review.kind ?? '');
    if (got !== expected) throw new Error(`expected webhook response of ${expected}, got ${got}`);
  }
  const response = record(review.response);
  if (!response) throw new Error('no response provided');
  if (version === 'v1') {
    const uid = typeof response.uid === 'string' ? response.uid : '';
    if (uid !== expectedUID) throw new Error(`expected response.uid=${JSON.stringify(expectedUID)}, got ${JSON.stringify(uid)}`);
  }
  const result = record(response.result) ?? {};
  const status = typeof result.status === 'string' ? result.status : '';
  if (status !== 'Success') {
    const message = typeof result.message === 'string' ? result.message : '';
    if (message) throw new Error(message);
    throw new Error(`response.result.status was '${status}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** getRawExtensionObject: a converted object as unstructured.UnmarshalJSON reads it (it needs a kind). */
function convertedObject(raw: unknown): KObject {
  const obj = record(raw);
  const text = JSON.stringify(raw);
  if (!obj) throw new Error(`json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw === 'string' ? 'string' : typeof raw === 'number' ? 'number' : typeof raw === 'boolean' ? 'bool' : 'null'} into Go value of type map[string]interface {}`);
  if (typeof obj.kind !== 'string' || !obj.kind) throw new Error(`Object 'Kind' is missing in '${text}'`);
  return obj as KObject;
}

/** validateConvertedObject: the identity of the object may not change. */
export function validateConvertedObject(original: KObject, converted: KObject): void {
  const meta = (o: KObject) => record(o.metadata) ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const checks: [string, unknown, unknown][] = [
    ['kind', original.kind, converted.kind],
    ['name', meta(original).name, meta(converted).name],
    ['namespace', meta(original).namespace, meta(converted).namespace],
    ['UID', meta(original).uid, meta(converted).uid],
  ];
  for (const [what, e, a] of checks) {
    if (str(e) !== str(a)) throw new Error(`must have the same ${what}: ${str(e)} != ${str(a)}`);
  }
}

/** Go's %T of a JSON value as encoding/json decodes it into interface{}. */
function goType(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string': return 'string';
    case 'number': return 'float64';
    case 'boolean': return 'bool';
    case 'object': return v === null ? '<nil>' : 'map[string]interface {}';
    default: return '<nil>';
  }
}

/**
 * restoreObjectMeta: the converted object gets the original's metadata back, except its labels and
 * annotations, which the webhook may change (and which must then be valid).
 */
export function restoreObjectMeta(original: KObject, converted: KObject): KObject {
  if (!('metadata' in converted)) throw new Error('missing metadata in converted object');
  const response = record(converted.metadata);
  if (!response) throw new Error(`invalid metadata of type ${goType(converted.metadata)} in converted object`);
  const restored: Record<string, unknown> = original.metadata ? structuredClone(original.metadata) as Record<string, unknown> : {};
  for (const fld of ['labels', 'annotations'] as const) {
    const value = response[fld];
    if (value === undefined || value === null) { delete restored[fld]; continue; }
    const responseField = record(value);
    if (!responseField) throw new Error(`invalid metadata.${fld} of type ${goType(value)} in converted object`);
    const originalField = record(restored[fld]) ?? {};
    let changed = Object.keys(originalField).length !== Object.keys(responseField).length;
    for (const [k, v] of Object.entries(responseField)) {
      if (typeof v !== 'string') throw new Error(`metadata.${fld}[${k}] must be a string, but is ${goType(v)} in converted object`);
      if (originalField[k] !== v) changed = true;
    }
    if (changed) {
      const map = responseField as Record<string, string>;
      const errs = fld === 'labels' ? validateLabels(map, 'metadata.labels') : validateAnnotations(map, 'metadata.annotation');
      if (errs.length) throw new Error(formatFieldErrors(errs));
    }
    restored[fld] = responseField;
  }
  return { ...converted, metadata: restored as KObject['metadata'] };
}

/** The objects a conversion sends: those not in the desired version already (getObjectsToConvert). */
export function objectsToConvert(objects: KObject[], desiredAPIVersion: string): KObject[] {
  return objects.filter((o) => o.apiVersion !== desiredAPIVersion);
}

/**
 * The checks of webhookConverter.Convert on the answer for a list (`listGVK` set: one call for many,
 * errors name the index among those sent) or for one object, and the objects in the desired version:
 * those sent replaced by their conversions, metadata restored.
 */
export function applyConvertedObjects(objects: KObject[], desiredAPIVersion: string, answer: unknown[],
  listGVK: string | undefined): KObject[] {
  const sent = objectsToConvert(objects, desiredAPIVersion);
  const inGVK = listGVK ?? gvkString(objects[0]?.apiVersion, objects[0]?.kind);
  if (answer.length !== sent.length) throw new Error(`conversion webhook for ${inGVK} returned ${answer.length} objects, expected ${sent.length}`);
  if (listGVK === undefined) {
    const original = objects[0]!;
    const converted = convertedObject(answer[0]);
    const gv = groupVersionString(converted.apiVersion);
    if (gv !== desiredAPIVersion) {
      throw new Error(`conversion webhook for ${inGVK} returned invalid object at index 0: invalid groupVersion (expected ${desiredAPIVersion}, received ${gv})`);
    }
    if (converted.kind !== original.kind) {
      throw new Error(`conversion webhook for ${inGVK} returned invalid object at index 0: invalid kind (expected ${original.kind}, received ${converted.kind})`);
    }
    try { validateConvertedObject(original, converted); } catch (e) {
      throw new Error(`conversion webhook for ${inGVK} returned invalid object: ${(e as Error).message}`, { cause: e });
    }
    try { return [restoreObjectMeta(original, converted)]; } catch (e) {
      throw new Error(`conversion webhook for ${inGVK} returned invalid metadata: ${(e as Error).message}`, { cause: e });
    }
  }
  let index = 0;
  return objects.map((original) => {
    if (original.apiVersion === desiredAPIVersion) return original;
    const at = `conversion webhook for ${inGVK} returned invalid converted object at index ${index}`;
    let converted: KObject;
    try { converted = convertedObject(answer[index]); } catch (e) { throw new Error(`${at}: ${(e as Error).message}`, { cause: e }); }
    const gv = groupVersionString(converted.apiVersion);
    if (gv !== desiredAPIVersion) throw new Error(`${at}: invalid groupVersion (expected ${desiredAPIVersion}, received ${gv})`);
    if (converted.kind !== original.kind) throw new Error(`${at}: invalid kind (expected ${original.kind}, received ${converted.kind})`);
    try { validateConvertedObject(original, converted); } catch (e) { throw new Error(`${at}: ${(e as Error).message}`, { cause: e }); }
    let out: KObject;
    try { out = restoreObjectMeta(original, converted); } catch (e) {
      throw new Error(`conversion webhook for ${inGVK} returned invalid metadata in object at index ${index}: ${(e as Error).message}`, { cause: e });
    }
    index++;
    return out;
  });
}

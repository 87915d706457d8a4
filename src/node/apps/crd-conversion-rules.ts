/**
 * What `agnhost crd-conversion-webhook` answers on /crdconvert (kubernetes/kubernetes
 * test/images/agnhost/crd-conversion-webhook/converter: framework.go's serve and doConversion,
 * example_converter.go's convertExampleCRD), as pure functions of the request.
 *
 * The example converter knows stable.example.com v1 and v2: v1's `hostPort` ("host:port") is v2's
 * `host` and `port`. A review is decoded by Content-Type (application/json or application/yaml,
 * nothing else: the header is split on "/" without parameters); the answer is encoded by Accept
 * (empty: JSON), as the apimachinery JSON serializer writes it (json.Encoder: compact, a final
 * newline, HTML characters escaped; converted objects with sorted keys, as Unstructured marshals).
 * Errors answer as http.Error does. What the handler logs through klog (-v=4 in the e2e test) is
 * returned with the answer; `panics` stands for net/http recovering a handler panic (a `hostPort`
 * that is not a string), which closes the connection unanswered.
 */
import { stringify as yamlStringify, parse as yamlParse } from 'yaml';
import { goMarshal } from '../../apimachinery/go-json.js';

type JSONObject = Record<string, unknown>;

/** metav1.Status as the converter fills it: Success, or Failure with a message. */
export interface ConverterStatus { status: 'Success' | 'Failure'; message?: string }

/** A klog line the handler writes: severity, source location and message. */
export interface ConverterLog { severity: 'I' | 'E'; source: string; message: string }

export interface ConvertAnswer {
  status: number;
  /** Set by the handler (http.Error's); a success sets none, so net/http sniffs the body. */
  headers: [string, string][];
  body: string;
  logs: ConverterLog[];
  /** The handler panicked: net/http logs it and closes the connection without an answer. */
  panic?: string;
}

const V1 = 'stable.example.com/v1';
const V2 = 'stable.example.com/v2';

/** fmt's %s of an interface{} value that Unstructured decoding produced. */
function goSprintS(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (typeof v === 'boolean') return `%!s(bool=${v})`;
  if (typeof v === 'number') return Number.isInteger(v) ? `%!s(int64=${v})` : `%!s(float64=${v})`;
  // Maps and slices print their elements with %s; the e2e tests send strings only.
  return `%!s(${goMarshal(v)})`;
}

/** The type name Go's type assertion panic names for a decoded JSON value. */
function goDynamicType(v: unknown): string {
  if (v === null) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

class HandlerPanic extends Error {}

/** convertExampleCRD: the converted object, or the failure status. */
export function convertExampleCR(obj: JSONObject, toVersion: string): { converted?: JSONObject; status: ConverterStatus } {
  const converted = structuredClone(obj);
  const fromVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const fail = (message: string) => ({ status: { status: 'Failure' as const, message } });
  if (toVersion === fromVersion) return fail(`conversion from a version to itself should not call the webhook: ${toVersion}`);
  if (fromVersion === V1) {
    if (toVersion !== V2) return fail(`unexpected conversion version ${JSON.stringify(toVersion)}`);
    if ('hostPort' in converted) {
      const hostPort = converted.hostPort;
      delete converted.hostPort;
      if (typeof hostPort !== 'string') {
        throw new HandlerPanic(`interface conversion: interface {} is ${goDynamicType(hostPort)}, not string`);
      }
      const parts = hostPort.split(':');
      if (parts.length !== 2) return fail(`invalid hostPort value \`${hostPort}\``);
      converted.host = parts[0];
      converted.port = parts[1];
    }
  } else if (fromVersion === V2) {
    if (toVersion !== V1) return fail(`unexpected conversion version ${JSON.stringify(toVersion)}`);
    const hasHost = 'host' in converted; const hasPort = 'port' in converted;
    if (hasHost || hasPort) {
      converted.hostPort = `${hasHost ? goSprintS(converted.host) : ''}:${hasPort ? goSprintS(converted.port) : ''}`;
      delete converted.host;
      delete converted.port;
    }
  } else {
    return fail(`unexpected conversion version ${JSON.stringify(fromVersion)}`);
  }
  return { converted, status: { status: 'Success' } };
}

/** metav1.Status's gogo-generated String(), as klog.Error(status.String()) prints it. */
function statusString(s: ConverterStatus): string {
  return `&Status{ListMeta:ListMeta{SelfLink:,ResourceVersion:,Continue:,RemainingItemCount:nil,},Status:${s.status},Message:${s.message ?? ''},Reason:,Details:nil,Code:0,}`;
}

/** metav1.Status as encoding/json writes it (ListMeta is a struct: never omitted). */
const statusJSON = (s: ConverterStatus): JSONObject => ({ metadata: {}, status: s.status, ...(s.message !== undefined ? { message: s.message } : {}) });

interface ConversionResponse { uid: string; convertedObjects: JSONObject[] | null; result: ConverterStatus }

/** doConversionV1 / doConversionV1beta1 (the same code for both review versions). */
function doConversion(request: JSONObject, logs: ConverterLog[], v1: boolean): ConversionResponse {
  const uid = typeof request.uid === 'string' ? request.uid : '';
  const desired = typeof request.desiredAPIVersion === 'string' ? request.desiredAPIVersion : '';
  const objects = Array.isArray(request.objects) ? request.objects : [];
  const converted: JSONObject[] = [];
  for (const raw of objects) {
    // Unstructured.UnmarshalJSON requires an object with a kind.
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as JSONObject).kind !== 'string' || (raw as JSONObject).kind === '') {
      const rawText = goMarshal(raw);
      const err = `Object 'Kind' is missing in '${rawText}'`;
      logs.push({ severity: 'E', source: `framework.go:${v1 ? 93 : 62}`, message: err });
      return { uid, convertedObjects: null, result: { status: 'Failure', message: `failed to unmarshall object (${rawText}) with error: ${err}` } };
    }
    logs.push({ severity: 'I', source: 'example_converter.go:30', message: 'converting crd' });
    const out = convertExampleCR(raw as JSONObject, desired);
    if (out.status.status !== 'Success' || !out.converted) {
      logs.push({ severity: 'E', source: `framework.go:${v1 ? 103 : 72}`, message: statusString(out.status) });
      return { uid, convertedObjects: null, result: out.status };
    }
    out.converted.apiVersion = desired;
    converted.push(out.converted);
  }
  return { uid, convertedObjects: converted.length ? converted : null, result: { status: 'Success' } };
}

/** http.Error: the message and a newline as plain text. */
function httpError(status: number, message: string, logs: ConverterLog[]): ConvertAnswer {
  return { status, headers: [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']], body: `${message}\n`, logs };
}

type Format = 'json' | 'yaml';

function inputFormat(contentType: string): Format | undefined {
  const i = contentType.indexOf('/');
  if (i < 0) return undefined;
  const [type, sub] = [contentType.slice(0, i), contentType.slice(i + 1)];
  if (type !== 'application') return undefined;
  return sub === 'json' ? 'json' : sub === 'yaml' ? 'yaml' : undefined;
}

/** goautoneg: clauses by quality (stable), the first that JSON or YAML satisfies. */
function outputFormat(accept: string): Format | undefined {
  if (accept === '') return 'json';
  const clauses = accept.split(',').map((c, i) => {
    const [range = '', ...params] = c.split(';').map((p) => p.trim());
    const q = params.map((p) => /^q=([\d.]+)$/.exec(p)?.[1]).find((v) => v !== undefined);
    const [type = '', sub = ''] = range.split('/');
    return { type, sub, q: q === undefined ? 1 : Number(q), i };
  }).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const c of clauses) {
    if (c.type === 'application' && (c.sub === 'json' || c.sub === 'yaml')) return c.sub;
    // A wildcard takes whichever serializer the map yields first; JSON is the one this model picks.
    if ((c.type === 'application' && c.sub === '*') || (c.type === '*' && c.sub === '*')) return 'json';
  }
  return undefined;
}

const REVIEW_GROUP = 'apiextensions.k8s.io';
/** The kinds apiextensions v1 and v1beta1 register in the converter's scheme besides ConversionReview. */
const OTHER_KINDS = ['CustomResourceDefinition', 'CustomResourceDefinitionList', 'WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions'];

/** "%v" of a []byte: its decimal bytes in brackets. */
const goBytes = (b: Uint8Array) => `[${[...b].join(' ')}]`;

/** The klog.V(2) "sending response" line: %v of *ConversionResponse (its objects are pointers). */
function responseLine(r: ConversionResponse, pointer: () => string): string {
  const objs = (r.convertedObjects ?? []).map(() => `{[] ${pointer()}}`).join(' ');
  const st = `{{ } {   <nil>} ${r.result.status} ${r.result.message ?? ''}  <nil> 0}`;
  return `sending response: &{${r.uid} [${objs}] ${st}}`;
}

/**
 * serve: one POST to /crdconvert. `pointer` gives the addresses %v prints for the converted
 * objects (the process's heap addresses, which nothing else depends on).
 */
export function serveConversion(contentType: string, accept: string, body: Uint8Array, pointer: () => string): ConvertAnswer {
  const logs: ConverterLog[] = [];
  const format = inputFormat(contentType);
  if (!format) {
    const msg = `invalid Content-Type header \`${contentType}\``;
    logs.push({ severity: 'E', source: 'framework.go:129', message: msg });
    return httpError(400, msg, logs);
  }
  logs.push({ severity: 'I', source: 'framework.go:134', message: `handling request: ${goBytes(body)}` });
  const text = Buffer.from(body).toString('utf8');
  let review: unknown;
  try {
    review = format === 'json' ? JSON.parse(text) : yamlParse(text);
  } catch (e) {
    const err = (e as Error).message;
    logs.push({ severity: 'E', source: 'framework.go:138', message: err });
    return httpError(400, `failed to deserialize body (${text}) with error ${err}`, logs);
  }
  const obj = (review !== null && typeof review === 'object' && !Array.isArray(review) ? review : {}) as JSONObject;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const deserializeError = (err: string) => {
    logs.push({ severity: 'E', source: 'framework.go:138', message: err });
    return httpError(400, `failed to deserialize body (${text}) with error ${err}`, logs);
  };
  if (!kind) return deserializeError(`Object 'Kind' is missing in '${text}'`);
  const version = apiVersion.startsWith(`${REVIEW_GROUP}/`) ? apiVersion.slice(REVIEW_GROUP.length + 1) : '';
  if (version !== 'v1' && version !== 'v1beta1' || (kind !== 'ConversionReview' && !OTHER_KINDS.includes(kind))) {
    return deserializeError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "k8s.io/kubernetes/test/images/agnhost/crd-conversion-webhook/converter/framework.go:211"`);
  }
  if (kind !== 'ConversionReview') {
    const msg = `Unsupported group version kind: ${apiVersion}, Kind=${kind}`;
    // klog.Error(err) with the decode's nil error.
    logs.push({ severity: 'E', source: 'framework.go:177', message: '<nil>' });
    return httpError(400, msg, logs);
  }
  const request = (obj.request !== null && typeof obj.request === 'object' ? obj.request : {}) as JSONObject;
  let response: ConversionResponse;
  try {
    response = doConversion(request, logs, version === 'v1');
  } catch (e) {
    if (e instanceof HandlerPanic) return { status: 0, headers: [], body: '', logs, panic: e.message };
    throw e;
  }
  logs.push({ severity: 'I', source: `framework.go:${version === 'v1' ? 170 : 155}`, message: responseLine(response, pointer) });
  const out = outputFormat(accept);
  if (!out) {
    const msg = `invalid accept header \`${accept}\``;
    logs.push({ severity: 'E', source: 'framework.go:186', message: msg });
    return httpError(400, msg, logs);
  }
  // The request is reset to an empty one (a non-nil pointer: it is still written).
  const answer = {
    kind: 'ConversionReview', apiVersion,
    request: { uid: '', desiredAPIVersion: '', objects: null },
    response: { uid: response.uid, convertedObjects: response.convertedObjects, result: statusJSON(response.result) },
  };
  return { status: 200, headers: [], body: out === 'json' ? encodeReviewJSON(answer) : yamlStringify(answer, { sortMapEntries: false }), logs };
}

/** The review in struct field order (encoding/json), its objects as Unstructured marshals them. */
function encodeReviewJSON(r: { kind: string; apiVersion: string; request: JSONObject; response: { uid: string; convertedObjects: JSONObject[] | null; result: JSONObject } }): string {
  const objects = r.response.convertedObjects === null ? 'null' : `[${r.response.convertedObjects.map(goMarshal).join(',')}]`;
  const result = `{"metadata":{},"status":${goMarshal(r.response.result.status)}${r.response.result.message !== undefined ? `,"message":${goMarshal(r.response.result.message)}` : ''}}`;
  return `{"kind":"ConversionReview","apiVersion":${goMarshal(r.apiVersion)},"request":{"uid":"","desiredAPIVersion":"","objects":null},`
    + `"response":{"uid":${goMarshal(r.response.uid)},"convertedObjects":${objects},"result":${result}}}\n`;
}

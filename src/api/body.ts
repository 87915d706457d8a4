import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { errors } from '../apimachinery/errors.js';
import { PROTOBUF_MEDIA_TYPE, decodeProtobufRequest, summarizeData } from '../protobuf/request.js';
import { goTypes } from '../openapi/go-types.js';
import { auditRequestBody } from './audit/http-audit.js';
import { SERVED_MEDIA_TYPES } from './negotiate.js';
import { exceededDepthAt, goDecode, normalizeDecoded, MAX_NESTING_DEPTH, maxDepthMessage } from '../openapi/go-decode.js';

/** Upstream's request body limit (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    throw errors.tooLarge(limit);
  }
  if (req.readableEnded) return Buffer.alloc(0);
  // Data events rather than an async iterator, which costs a promise per chunk (and most bodies are one chunk).
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const onData = (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        reject(errors.tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const done = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', done);
      req.off('close', onClose);
      if (error) reject(error);
    };
    const onEnd = () => {
      done();
      const [only] = chunks;
      if (tooLarge) return;
      const body = chunks.length === 1 && only ? only : Buffer.concat(chunks);
      auditRequestBody(req, body);
      resolve(body);
    };
    // A request aborted before its end: what for-await reported as a premature close.
    const onClose = () => { if (!req.readableEnded) done(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })); };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', done);
    req.on('close', onClose);
  });
}

/** The media type without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

const UNKNOWN_FORMAT = `the body of the request was in an unknown format - accepted media types include: ${SERVED_MEDIA_TYPES.join(', ')}`;

/** Go's json error wording for the commonest failures. */
function goJsonError(e: Error, text: string): string {
  if (/Unexpected end of JSON input|Unterminated string|Expected .* after/.test(e.message) && !/position \d+/.test(e.message)) {
    return 'unexpected end of JSON input';
  }
  const m = /position (\d+)/.exec(e.message);
  if (m) {
    const pos = Number(m[1]);
    if (pos >= text.trimEnd().length) return 'unexpected end of JSON input';
    return `invalid character '${text[pos]}' looking for beginning of value`;
  }
  return e.message;
}

/** The group, version and kind a body is decoded into, for its typed decode. */
export interface BodyType { group: string; version: string; kind: string }

/** transformDecodeError's message when the body's version and kind could not be read. */
function unrecognized(kind: string, reason: string, body: Buffer): string {
  return `the object provided is unrecognized (must be of type ${kind}): ${reason} (${summarizeData(body)})`;
}

/**
 * SimpleMetaFactory.Interpret: apiVersion and kind decoded (by encoding/json)
 * into a struct of two strings, then the apiVersion parsed as a group version.
 */
function interpretTypeMeta(obj: Record<string, unknown>, kind: string, body: Buffer): void {
  for (const key in obj) {
    if (key !== 'apiVersion' && key !== 'kind') continue;
    const v = obj[key];
    if (v === null || typeof v === 'string') continue;
    const what = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : 'number';
    throw errors.badRequest(unrecognized(kind,
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go struct field .${key} of type string`, body));
  }
  const apiVersion = obj.apiVersion;
  if (typeof apiVersion === 'string' && apiVersion.split('/').length > 2) {
    throw errors.badRequest(unrecognized(kind, `unexpected GroupVersion string: ${apiVersion}`, body));
  }
}

/**
 * YAML as sigs.k8s.io/yaml hands it to the JSON decoder: !!binary values are
 * the strings of their bytes (yaml.v2 decodes them so), the rest is JSON data.
 */
function yamlToJSONValue(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = yamlToJSONValue(v[i]);
  } else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = yamlToJSONValue(o[k]);
  }
  return v;
}

/**
 * yaml.v2's nesting limit (10000 flow levels or indents), for a document the
 * YAML parser here could not follow: "yaml: exceeded max depth of 10000".
 */
function yamlTooDeep(text: string): boolean {
  let flow = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) max = Math.max(max, ++flow);
    else if (c === 0x5d || c === 0x7d) flow--;
  }
  if (max > MAX_NESTING_DEPTH) return true;
  // Block sequences opened on one line ("- - - ..."): one indent each.
  return /(?:- ){10001}/.test(text);
}

/**
 * The typed decode of a JSON text into the Go type of `type`, which must have
 * apiVersion/kind read already: upstream's 400 "<Kind> in version "<v>" cannot
 * be handled as a <Kind>: json: cannot unmarshal ...".
 */
function checkGoTypes(text: string, obj: Record<string, unknown>, type: BodyType): void {
  const t = goTypes().forKind(type.group, type.version, type.kind);
  if (!t) return;
  const { error: err, hugeQuantities } = goDecode(text, t);
  if (err === undefined) {
    if (hugeQuantities.length || text.includes('null')) normalizeDecoded(obj, t, hugeQuantities);
    return;
  }
  const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : type.kind;
  const version = typeof obj.apiVersion === 'string' && obj.apiVersion ? obj.apiVersion.slice(obj.apiVersion.lastIndexOf('/') + 1) : type.version;
  throw errors.badRequest(`${kind} in version "${version}" cannot be handled as a ${type.kind}: ${err}`);
}

/**
 * Decodes a request body as an object of `kind`. Errors are worded as
 * upstream's decoder words them, with the first bytes of the body quoted.
 * With `type`, the body is also decoded against that kind's Go type, as the
 * API server's typed decoder does before anything else looks at it.
 */
export function decodeObject(body: Buffer, contentType: string | undefined, kind: string, type?: BodyType): Record<string, unknown> {
  const mt = mediaType(contentType) || 'application/json';
  const text = body.toString('utf8');
  let value: unknown;
  let json = text;
  if (mt === 'application/json') {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw errors.badRequest(unrecognized(kind, `couldn't get version/kind; json parse error: ${goJsonError(e as Error, text)}`, body));
    }
    const bracket = exceededDepthAt(text);
    if (bracket) throw errors.badRequest(unrecognized(kind, `couldn't get version/kind; json parse error: ${maxDepthMessage(bracket)}`, body));
  } else if (mt === PROTOBUF_MEDIA_TYPE) {
    return decodeProtobufRequest(body, kind);
  } else if (mt === 'application/yaml') {
    try {
      // Duplicate keys are field validation's to report (Strict refuses them, Warn and Ignore keep the last).
      value = yamlToJSONValue(parseYaml(text, { uniqueKeys: false }));
    } catch (e) {
      if (/Maximum call stack size exceeded/.test((e as Error).message) && yamlTooDeep(text)) {
        throw errors.badRequest(unrecognized(kind, `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`, body));
      }
      throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; yaml parse error: ${(e as Error).message}`);
    }
    json = type ? JSON.stringify(value) ?? 'null' : '';
  } else {
    throw errors.unsupportedMediaType(UNKNOWN_FORMAT);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const obj = value as Record<string, unknown>;
  interpretTypeMeta(obj, kind, body);
  if (type) checkGoTypes(json, obj, type);
  return obj;
}

import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { errors } from './status.js';
import { PROTOBUF_MEDIA_TYPE, decodeProtobufRequest } from '../protobuf/request.js';

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
      if (!tooLarge) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
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
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

const UNKNOWN_FORMAT = 'the body of the request was in an unknown format - accepted media types include: ' +
  'application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor';

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

/**
 * Decodes a request body as an object of `kind`. Errors are worded as
 * upstream's decoder words them, with the first bytes of the body quoted.
 */
export function decodeObject(body: Buffer, contentType: string | undefined, kind: string): Record<string, unknown> {
  const type = mediaType(contentType) || 'application/json';
  const text = body.toString('utf8');
  let value: unknown;
  if (type === 'application/json') {
    try {
      value = JSON.parse(text);
    } catch (e) {
      const excerpt = text.length > 30 ? `${text.slice(0, 30)} ...` : text;
      throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${goJsonError(e as Error, text)} (${excerpt})`);
    }
  } else if (type === PROTOBUF_MEDIA_TYPE) {
    return decodeProtobufRequest(body, kind);
  } else if (type === 'application/yaml') {
    try {
      // Duplicate keys are field validation's to report (Strict refuses them, Warn and Ignore keep the last).
      value = parseYaml(text, { uniqueKeys: false });
    } catch (e) {
      throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; yaml parse error: ${(e as Error).message}`);
    }
  } else {
    throw errors.unsupportedMediaType(UNKNOWN_FORMAT);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return value as Record<string, unknown>;
}

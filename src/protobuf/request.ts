/**
 * Protobuf request bodies as the API server's write handlers decode them: the decoded
 * JSON object, or a metav1.Status error worded as upstream's transformDecodeError
 * words protobuf decoding failures.
 */
import { errors } from '../apimachinery/errors.js';
import { ProtobufEnvelopeError, ProtobufObjectError, UnknownKindError, decodeProtobufObject } from './decode.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** Upstream's summarizeData: the first 30 bytes, as text for JSON and hex otherwise. */
export function summarizeData(data: Buffer, max = 30): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, max);
  const text = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return data.length > max ? `${text} ...` : text;
}

/**
 * Decodes a protobuf body sent for an object of `kind`. A body of another kind comes
 * back with just its apiVersion and kind when this decoder does not know that kind,
 * so that the caller's type check answers as for a JSON body of that kind.
 */
export function decodeProtobufRequest(body: Buffer, kind: string): Record<string, unknown> {
  try {
    return decodeProtobufObject(body, { kind }).object;
  } catch (e) {
    if (e instanceof ProtobufEnvelopeError) {
      throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): ${e.message} (${summarizeData(body)})`);
    }
    if (e instanceof ProtobufObjectError) {
      const version = e.apiVersion.slice(e.apiVersion.lastIndexOf('/') + 1);
      throw errors.badRequest(`${e.kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${e.message}`);
    }
    if (e instanceof UnknownKindError) {
      if (e.kind !== kind) return { apiVersion: e.apiVersion, kind: e.kind };
      // Kinds without protobuf (custom resources) accept only JSON and YAML.
      throw errors.unsupportedMediaType('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
    }
    throw e;
  }
}
